// An entry's history as a readable diff (who, when, which fields from what to what), and the
// global change log with its filters (contract section 13).
import { useEffect, useState } from 'preact/hooks';
import { Problem, request, type ChangeRecord, type Entry } from '../api.js';
import { useConsole } from '../context.js';
import type { ConsoleField } from '../registry-types.js';
import { RESOURCES, resourceNamed, same } from '../resources.js';
import { href, navigate, useRoute } from '../router.js';
import { FieldValue, Heading, ProblemView, TableRegion } from '../ui.js';
import { newestChangeId } from '../live.js';
import { useReferenceLookups } from './entry-form.js';
import { usePagedList, type PagedAnswer } from '../paged-list.js';

const SERVICE_FIELDS = new Set(['updated_at', 'created_at']);

/** The fields a change set, from what to what (the timestamps the service moves left out). */
function changedFields(record: ChangeRecord): [string, unknown, unknown][] {
  const before = record.before ?? {};
  const after = record.after ?? {};
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((name) => !SERVICE_FIELDS.has(name));
  return names.filter((name) => !same(before[name as keyof typeof before], after[name as keyof typeof after])).map((name) => [name, (before as Entry)[name], (after as Entry)[name]]);
}

function fieldOf(resource: string, name: string): ConsoleField {
  return resourceNamed(resource)?.fields.find((field) => field.name === name) ?? { name, kind: 'text', required: false, nullable: true, readOnly: false, writeOnly: false, description: { en: '', fr: '' } };
}

export function ChangeDiff(props: { record: ChangeRecord; lookups: Map<string, Map<number, Entry>> }) {
  const { t } = useConsole();
  const { record } = props;
  const changes = changedFields(record);
  return (
    <ul class="diff">
      {changes.map(([name, from, to]) => {
        const field = fieldOf(record.resource, name);
        return (
          <li key={name}>
            <code>{name}</code>:{' '}
            {record.before !== null && (
              <>
                <del>
                  <FieldValue field={field} value={from} lookups={props.lookups} />
                </del>{' '}
                →{' '}
              </>
            )}
            <ins>
              <FieldValue field={field} value={to} lookups={props.lookups} />
            </ins>
          </li>
        );
      })}
      {record.secrets_changed.map((name) => (
        <li key={name}>{t.secretChanged(name)}</li>
      ))}
    </ul>
  );
}

function when(at: string, language: string): string {
  return new Date(at).toLocaleString(language === 'fr' ? 'fr-FR' : 'en-GB', { timeZone: 'UTC', timeZoneName: 'short' });
}

const PAGE = 50;

export function EntryHistory(props: { resource: string; id: number; version: string }) {
  const { t, language } = useConsole();
  const resource = resourceNamed(props.resource)!;
  const lookups = useReferenceLookups(resource);
  // Newest first, a page at a time (offsets): "older changes" appends the next page, so that
  // an entry with a long past shows all of it; a change to the entry reads them again.
  const read = async (after: string | null, limit: number): Promise<PagedAnswer<ChangeRecord>> => {
    const offset = after === null ? 0 : Number(after);
    const answer = await request<{ items: ChangeRecord[]; total: number }>('GET', `/config/${props.resource}/${props.id}/history?limit=${limit}&offset=${offset}`);
    const end = offset + answer.body.items.length;
    return { items: answer.body.items, total: answer.body.total, next: end < answer.body.total ? String(end) : null };
  };
  const { items: records, total, problem, more } = usePagedList(read, `${props.resource}/${props.id}`, props.version, PAGE);
  // An entry that never existed has no history: the entry's own read already says 404 on its
  // page, once (a hard-deleted entry keeps its history, read with a 200).
  if (problem instanceof Problem && problem.status === 404) return null;
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">{t.history}</h2>
      <ProblemView problem={problem} />
      {records === undefined ? (
        problem === undefined && <p>{t.loading}</p>
      ) : records.length === 0 ? (
        <p>{t.noChanges}</p>
      ) : (
        <ol class="history">
          {records.map((record) => (
            <li key={record.id} data-change={record.id}>
              <p>
                <strong>{t.actionNames[record.action] ?? record.action}</strong> — {t.whoWhen(record.actor, when(record.at, language))}
              </p>
              <ChangeDiff record={record} lookups={lookups} />
            </li>
          ))}
        </ol>
      )}
      {records !== undefined && records.length < total && (
        <button type="button" onClick={more}>
          {t.olderChanges(total - records.length)}
        </button>
      )}
    </section>
  );
}

export function ChangeLog() {
  const { t, language } = useConsole();
  const route = useRoute();
  const params = route.params;
  const filters = { resource: params.get('resource') ?? '', actor: params.get('actor') ?? '', action: params.get('action') ?? '', entry_id: params.get('entry_id') ?? '' };
  const [since, setSince] = useState<number | undefined>(params.has('since') ? Number(params.get('since')) : undefined);
  const [page, setPage] = useState<{ items: ChangeRecord[]; next: number } | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  const lookups = useReferenceLookups(resourceNamed('servers')!);
  const filtered = Object.values(filters).some((value) => value !== '');

  useEffect(() => {
    setSince(params.has('since') ? Number(params.get('since')) : undefined);
  }, [params.toString()]);

  useEffect(() => {
    let current = true;
    (async () => {
      // Unfiltered, the log opens on its newest page: ids follow one another.
      const from = since ?? (filtered ? 0 : Math.max(0, (await newestChangeId()) - PAGE));
      const search = new URLSearchParams({ since: String(from), limit: String(PAGE) });
      for (const [name, value] of Object.entries(filters)) if (value !== '') search.set(name, value);
      const answer = await request<{ items: ChangeRecord[]; next: number }>('GET', `/changes?${search}`);
      if (current) setPage(answer.body);
    })().catch((error) => current && setProblem(error));
    return () => {
      current = false;
    };
  }, [since, filters.resource, filters.actor, filters.action, filters.entry_id]);

  const submit = (event: Event): void => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    navigate('/changes', Object.fromEntries([...form.entries()].map(([name, value]) => [name, String(value)])));
  };

  return (
    <section>
      <Heading>{t.changes}</Heading>
      <form key={params.toString()} class="filters" onSubmit={submit} aria-label={t.filters}>
        <div class="field">
          <label for="log-resource">{t.resource}</label>
          <select id="log-resource" name="resource">
            <option value="">{t.anyValue}</option>
            {RESOURCES.map((resource) => (
              <option key={resource.name} value={resource.name} selected={filters.resource === resource.name}>
                {t.resourceNames[resource.name] ?? resource.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="log-action">{t.action}</label>
          <select id="log-action" name="action">
            <option value="">{t.anyValue}</option>
            {['create', 'update', 'delete', 'restore'].map((action) => (
              <option key={action} value={action} selected={filters.action === action}>
                {t.actionNames[action]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="log-actor">{t.actor}</label>
          <input id="log-actor" name="actor" defaultValue={filters.actor} />
        </div>
        <div class="field">
          <label for="log-entry">{t.entry}</label>
          <input id="log-entry" name="entry_id" type="number" min={1} defaultValue={filters.entry_id} />
        </div>
        <div class="field">
          <label for="log-since">{t.since}</label>
          <input id="log-since" name="since" type="number" min={0} defaultValue={since === undefined ? '' : String(since)} />
        </div>
        <div class="buttons">
          <button type="submit" class="primary">
            {t.apply}
          </button>
          <a class="button" href={href('/changes')}>
            {t.newest}
          </a>
        </div>
      </form>
      <ProblemView problem={problem} />
      {page === undefined ? (
        problem === undefined && <p>{t.loading}</p>
      ) : page.items.length === 0 ? (
        <p>{t.noChanges}</p>
      ) : (
        <TableRegion label={t.changes}>
          <table class="changes">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">{t.at}</th>
                <th scope="col">{t.who}</th>
                <th scope="col">{t.entry}</th>
                <th scope="col">{t.what}</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((record) => (
                <tr key={record.id}>
                  <td>{record.id}</td>
                  <td>{when(record.at, language)}</td>
                  <td>{record.actor}</td>
                  <td>
                    <a href={href(`/${record.resource}/${record.entry_id}`)}>
                      {t.resourceNames[record.resource] ?? record.resource} #{record.entry_id}
                    </a>{' '}
                    {t.actionNames[record.action] ?? record.action}
                  </td>
                  <td>
                    <ChangeDiff record={record} lookups={lookups} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      {page !== undefined && page.items.length === PAGE && (
        <div class="buttons">
          <a class="button" href={href('/changes', { ...filters, since: page.next })}>
            {t.next}
          </a>
        </div>
      )}
    </section>
  );
}
