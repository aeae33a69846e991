// The list of a resource: `q`, sort, cursor paging (`next`/`after`: never an offset deep in a
// million rows) and the total; for servers also the filters of section 11 and bulk actions
// (delete, tag add and remove on the selected rows). What the list shows is in the URL, so
// back and forward work. The page follows the change stream: a row changed elsewhere changes
// in place, marked; entries created elsewhere are counted, not inserted (the page stays put).
import { useEffect, useState } from 'preact/hooks';
import { request, type Entry, type ListAnswer } from '../api.js';
import { useConsole } from '../context.js';
import type { ConsoleResource } from '../registry-types.js';
import { columnFields, sortableFields } from '../resources.js';
import { href, navigate, useRoute } from '../router.js';
import { DeleteButton, FieldValue, focusHeading, Heading, ProblemView, Status, TableRegion } from '../ui.js';
import { useChangedMarks, useLive } from '../use-live.js';
import { useReferenceLookups } from './entry-form.js';
import { LiveState } from './live-state.js';
import { BulkActions, ServerFilters } from './server-filters.js';

const LIMITS = ['25', '50', '100', '200'];
const SERVER_FILTERS = ['id_client', 'id_environment', 'tag', 'is_monitored', 'include_deleted'];

export function ListPage(props: { resource: ConsoleResource }) {
  const { t, language } = useConsole();
  const { resource } = props;
  const route = useRoute();
  const params = route.params;
  const isServers = resource.name === 'servers';
  const lookups = useReferenceLookups(resource);
  const [page, setPage] = useState<ListAnswer<Entry> | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  const [status, setStatus] = useState('');
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [created, setCreated] = useState(0);
  const [marked, mark] = useChangedMarks();
  const [reloads, setReloads] = useState(0);
  // The cursors of the pages before this one, to go back (the API's cursor goes forward).
  const [previous, setPrevious] = useState<string[]>([]);
  const name = t.resourceNames[resource.name] ?? resource.name;
  const sort = params.get('sort') ?? '-id';
  const limit = params.get('limit') ?? '50';
  const columns = columnFields(resource);

  useEffect(() => {
    const search = new URLSearchParams();
    search.set('limit', limit);
    search.set('sort', sort);
    for (const [key, value] of params) if (value !== '' && (key === 'q' || key === 'after' || (isServers && SERVER_FILTERS.includes(key)))) search.append(key, value);
    let current = true;
    request<ListAnswer<Entry>>('GET', `/config/${resource.name}?${search}`)
      .then((answer) => {
        if (!current) return;
        setPage(answer.body);
        setProblem(undefined);
        setSelected(new Set());
        setCreated(0);
      })
      .catch((error) => current && setProblem(error));
    return () => {
      current = false;
    };
  }, [resource.name, params.toString(), reloads]);

  const connected = useLive((record, replayed) => {
    if (record.resource !== resource.name) return;
    if (record.action === 'create') {
      if (replayed) return;
      setCreated((count) => count + 1);
      return;
    }
    setPage((current) => {
      if (current === undefined || !current.items.some((item) => item.id === record.entry_id)) return current;
      if (!replayed) mark(record.entry_id);
      const items = current.items.map((item) => (item.id === record.entry_id ? (record.after ?? { ...item, is_deleted: 1 }) : item));
      return { ...current, items };
    });
  });

  const go = (changes: Record<string, string | string[] | undefined>): void => {
    const next: Record<string, string | string[]> = {};
    for (const key of new Set(params.keys())) next[key] = params.getAll(key);
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) delete next[key];
      else next[key] = value;
    }
    navigate(`/${resource.name}`, next);
  };

  const submitFilters = (event: Event): void => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const next: Record<string, string[]> = {};
    for (const [key, value] of form.entries()) if (String(value) !== '') (next[key] ??= []).push(String(value));
    setPrevious([]);
    navigate(`/${resource.name}`, next);
  };

  const sortField = sort.replace(/^-/, '');
  const descending = sort.startsWith('-');
  const items = page?.items ?? [];
  const allSelected = items.length > 0 && items.every((item) => selected.has(item.id));
  const toggle = (id: number, on: boolean): void => setSelected((current) => new Set(on ? [...current, id] : [...current].filter((one) => one !== id)));
  const restore = async (id: number): Promise<void> => {
    try {
      await request('POST', `/config/${resource.name}/${id}/restore`);
      focusHeading();
      setStatus(t.restored);
      setReloads((count) => count + 1);
    } catch (error) {
      setProblem(error);
    }
  };

  return (
    <section>
      <Heading>{name}</Heading>
      <p class="lead">{resource.description[language]}</p>
      <div class="buttons">
        <a class="button primary" href={href(`/${resource.name}/new`)}>
          {t.newEntry}
        </a>
      </div>
      <form key={params.toString()} class="filters" onSubmit={submitFilters} aria-label={t.filters}>
        <div class="field">
          <label for="filter-q">{t.search}</label>
          <input id="filter-q" name="q" type="search" defaultValue={params.get('q') ?? ''} aria-describedby="filter-q-help" />
          <small id="filter-q-help" class="hint">
            {t.searchHelp}
          </small>
        </div>
        {isServers && <ServerFilters params={params} />}
        <div class="field">
          <label for="filter-sort">{t.sort}</label>
          <select id="filter-sort" name="sort">
            {sortableFields(resource).flatMap((field) =>
              [false, true].map((down) => (
                <option key={`${field.name}-${down}`} value={`${down ? '-' : ''}${field.name}`} selected={sortField === field.name && descending === down}>
                  {field.name} ({down ? t.descending : t.ascending})
                </option>
              )),
            )}
          </select>
        </div>
        <div class="field">
          <label for="filter-limit">{t.perPage}</label>
          <select id="filter-limit" name="limit">
            {LIMITS.map((one) => (
              <option key={one} value={one} selected={one === limit}>
                {one}
              </option>
            ))}
          </select>
        </div>
        <div class="buttons">
          <button type="submit" class="primary">
            {t.apply}
          </button>
          <a class="button" href={href(`/${resource.name}`)}>
            {t.clear}
          </a>
        </div>
      </form>
      <LiveState connected={connected} />
      <Status>{status}</Status>
      <ProblemView problem={problem} />
      {created > 0 && (
        <p class="notice">
          {t.newElsewhere(created)}{' '}
          <button type="button" onClick={() => setReloads((count) => count + 1)}>
            {t.reload}
          </button>
        </p>
      )}
      {isServers && (
        <BulkActions
          selected={[...selected]}
          done={(message) => {
            focusHeading();
            setStatus(message);
            setReloads((count) => count + 1);
          }}
          failed={setProblem}
        />
      )}
      {page === undefined ? (
        // A refused first read is said by the problem box above; it is not loading any more
        // (the history and the change log do the same).
        problem === undefined && <p>{t.loading}</p>
      ) : (
        <>
          <p class="total" aria-live="polite">
            {t.total(items.length, page.total, page.total_exact !== false)}
          </p>
          <TableRegion label={name}>
            <table class="list">
              <thead>
                <tr>
                  {isServers && (
                    <th scope="col">
                      <input type="checkbox" aria-label={t.selectAll} checked={allSelected} onChange={(event) => setSelected(new Set((event.target as HTMLInputElement).checked ? items.map((item) => item.id) : []))} />
                    </th>
                  )}
                  {columns.map((field) => (
                    <th scope="col" key={field.name} aria-sort={sortField === field.name ? (descending ? 'descending' : 'ascending') : undefined}>
                      {field.name}
                    </th>
                  ))}
                  <th scope="col">{t.actions}</th>
                </tr>
              </thead>
              <tbody>
                {items.length === 0 && (
                  <tr>
                    <td colSpan={columns.length + 2}>{t.noEntries}</td>
                  </tr>
                )}
                {items.map((item) => {
                  const changed = marked.has(item.id);
                  const deleted = item.is_deleted === 1;
                  return (
                    <tr key={item.id} data-id={item.id} class={[changed ? 'changed' : '', deleted ? 'deleted' : ''].join(' ').trim() || undefined}>
                      {isServers && (
                        <td>
                          <input type="checkbox" aria-label={`${t.select} #${item.id}`} checked={selected.has(item.id)} onChange={(event) => toggle(item.id, (event.target as HTMLInputElement).checked)} />
                        </td>
                      )}
                      {columns.map((field) => (
                        <td key={field.name} data-field={field.name}>
                          {field.name === 'id' ? (
                            <a href={href(`/${resource.name}/${item.id}`)}>#{item.id}</a>
                          ) : (
                            <FieldValue field={field} value={item[field.name]} lookups={lookups} />
                          )}
                        </td>
                      ))}
                      <td class="row-actions">
                        {changed && <span class="badge changed-badge">{t.changedElsewhere}</span>}
                        {deleted && <span class="badge">{t.deleted}</span>}
                        {/* A hard-deleted entry (shown as deleted by the change stream) is gone: no restore, no edit. */}
                        {deleted ? (
                          resource.softDelete && (
                            <button type="button" onClick={() => restore(item.id)}>
                              {t.restore} <span class="visually-hidden">#{item.id}</span>
                            </button>
                          )
                        ) : (
                          <a href={href(`/${resource.name}/${item.id}/edit`)}>
                            {t.edit} <span class="visually-hidden">#{item.id}</span>
                          </a>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableRegion>
          <nav class="pager" aria-label={t.next}>
            {params.has('after') && (
              <button
                type="button"
                onClick={() => {
                  setPrevious((stack) => stack.slice(0, -1));
                  go({ after: previous[previous.length - 1] });
                }}
              >
                {t.previous}
              </button>
            )}
            {params.has('after') && (
              <button
                type="button"
                onClick={() => {
                  setPrevious([]);
                  go({ after: undefined });
                }}
              >
                {t.first}
              </button>
            )}
            {page.next !== null && page.next !== undefined && (
              <button
                type="button"
                onClick={() => {
                  setPrevious((stack) => [...stack, params.get('after') ?? '']);
                  go({ after: page.next ?? undefined });
                }}
              >
                {t.next}
              </button>
            )}
          </nav>
        </>
      )}
    </section>
  );
}
