// One entry: its fields (references by name, linked), edit, delete (and restore for a
// soft-deleted server), its aliases for a server, and its history. The page follows the
// change stream: a change made elsewhere shows at once, marked.
import { useEffect, useRef, useState } from 'preact/hooks';
import { request, type Entry } from '../api.js';
import { useConsole } from '../context.js';
import { forget, LOOKUP_RESOURCES } from '../lookups.js';
import type { ConsoleResource } from '../registry-types.js';
import { shownFields } from '../resources.js';
import { href, navigate, useRoute } from '../router.js';
import { DeleteButton, FieldValue, Heading, ProblemView, Status, TableRegion } from '../ui.js';
import { useLive } from '../use-live.js';
import { useReferenceLookups } from './entry-form.js';
import { EntryHistory } from './history.js';
import { LiveState } from './live-state.js';
import { ServerAliases } from './server-aliases.js';

export function EntryPage(props: { resource: ConsoleResource; id: number }) {
  const { t } = useConsole();
  const { resource, id } = props;
  const route = useRoute();
  const lookups = useReferenceLookups(resource);
  const [entry, setEntry] = useState<Entry | null | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  const [status, setStatus] = useState<string>(() => {
    const saved = route.params.get('saved');
    return saved === 'created' ? t.created : saved === 'saved' ? t.saved : '';
  });
  const [changed, setChanged] = useState(false);
  const [version, setVersion] = useState('');
  const name = t.resourceNames[resource.name] ?? resource.name;
  // A delete or restore made here swaps the action buttons, which drops the keyboard focus:
  // it goes to the first action of the entry as it now is (Restore, or Edit).
  const actions = useRef<HTMLDivElement>(null);
  const focusActions = useRef(false);
  useEffect(() => {
    if (!focusActions.current || entry === undefined || entry === null) return;
    focusActions.current = false;
    actions.current?.querySelector<HTMLElement>('a, button')?.focus();
  }, [entry]);

  const load = (): void => {
    request<{ item: Entry }>('GET', `/config/${resource.name}/${id}`)
      .then((answer) => {
        setEntry(answer.body.item);
        setVersion(answer.headers.get('etag') ?? '');
      })
      .catch((error) => {
        setEntry(null);
        setProblem(error);
      });
  };
  useEffect(load, [resource.name, id]);

  const connected = useLive((record, replayed) => {
    if (record.resource !== resource.name || record.entry_id !== id) return;
    if (record.after === null) {
      setEntry(null);
      setStatus(t.deletedDone);
    } else {
      setEntry(record.after);
    }
    setVersion(String(record.id));
    if (replayed) return;
    setChanged(true);
    setTimeout(() => setChanged(false), 10_000);
  });

  const remove = async (): Promise<void> => {
    setProblem(undefined);
    try {
      await request('DELETE', `/config/${resource.name}/${id}`);
      if (LOOKUP_RESOURCES.includes(resource.name)) forget(resource.name);
      if (resource.softDelete) {
        focusActions.current = true;
        setStatus(t.deletedDone);
        load();
      } else {
        navigate(`/${resource.name}`);
      }
    } catch (error) {
      setProblem(error);
    }
  };

  const restore = async (): Promise<void> => {
    setProblem(undefined);
    try {
      const answer = await request<{ item: Entry }>('POST', `/config/${resource.name}/${id}/restore`);
      focusActions.current = true;
      setEntry(answer.body.item);
      setStatus(t.restored);
    } catch (error) {
      setProblem(error);
    }
  };

  const deleted = entry !== null && entry !== undefined && entry.is_deleted === 1;
  return (
    <section>
      <p class="breadcrumb">
        <a href={href(`/${resource.name}`)}>{name}</a>
      </p>
      <Heading>
        {name} #{id} {deleted && <span class="badge">{t.deleted}</span>}
      </Heading>
      <LiveState connected={connected} />
      <Status>{status}</Status>
      <ProblemView problem={problem} />
      {entry === undefined && <p>{t.loading}</p>}
      {entry !== undefined && entry !== null && (
        <>
          <div class={changed ? 'entry changed' : 'entry'} data-changed={changed ? 'true' : undefined}>
            {changed && <p class="badge changed-badge">{t.changedElsewhere}</p>}
            <TableRegion label={t.details}>
              <table class="fields">
                <tbody>
                  {shownFields(resource).map((field) => (
                    <tr key={field.name} data-field={field.name}>
                      <th scope="row">{field.name}</th>
                      <td>
                        <FieldValue field={field} value={entry[field.name]} lookups={lookups} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableRegion>
          </div>
          <div class="buttons" ref={actions}>
            {!deleted && (
              <a class="button primary" href={href(`/${resource.name}/${id}/edit`)}>
                {t.edit}
              </a>
            )}
            {!deleted && <DeleteButton onDelete={remove} />}
            {deleted && (
              <button type="button" class="primary" onClick={restore}>
                {t.restore}
              </button>
            )}
          </div>
          {resource.name === 'servers' && <ServerAliases id={id} version={version} />}
        </>
      )}
      <EntryHistory resource={resource.name} id={id} version={version} />
    </section>
  );
}
