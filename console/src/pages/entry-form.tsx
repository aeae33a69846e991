// Create and edit, for every resource. An edit sends only the fields the user changed, with
// If-Match: the ETag of the version the form was filled from. A 412 (someone else saved in
// between) reads the stored version and shows it beside the user's, field by field; the user
// chooses, and saves against the new version. A 422 puts each refusal beside its field.
// Write-only fields (an SSH key's private key) start empty, are sent only when typed, and are
// dropped from the page's state once the service accepted them (after a refusal they stay in
// their field, so that the operator corrects the form without pasting the key again).
import { useEffect, useRef, useState } from 'preact/hooks';
import { Problem, request, type Entry } from '../api.js';
import { useConsole } from '../context.js';
import { forget, LOOKUP_RESOURCES, useLookup } from '../lookups.js';
import type { ConsoleField, ConsoleResource } from '../registry-types.js';
import { editableFields, same } from '../resources.js';
import { href, navigate } from '../router.js';
import { FieldInput, FieldValue, Heading, inputText, inputValue, ProblemView, TableRegion } from '../ui.js';

type FormValues = Record<string, string | boolean | string[]>;

function formOf(fields: readonly ConsoleField[], entry: Entry | undefined): FormValues {
  const values: FormValues = {};
  for (const field of fields) values[field.name] = field.writeOnly ? '' : inputText(field, entry === undefined ? field.default : entry[field.name]);
  return values;
}

/** The body of a create: what the user filled in (an empty text leaves the field to its default). */
function createBody(fields: readonly ConsoleField[], values: FormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const text = values[field.name]!;
    if (text === '') continue;
    body[field.name] = inputValue(field, text);
  }
  return body;
}

/** The body of an edit: only what differs from `stored` (a write-only field: only if typed). */
function changedBody(fields: readonly ConsoleField[], values: FormValues, stored: Entry): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const text = values[field.name]!;
    if (field.writeOnly) {
      if (text !== '') body[field.name] = text;
      continue;
    }
    const value = inputValue(field, text);
    if (!same(value, stored[field.name])) body[field.name] = value;
  }
  return body;
}

export function useReferenceLookups(resource: ConsoleResource): Map<string, Map<number, Entry>> {
  const referenced = [...new Set(resource.fields.map((field) => field.references).filter((name): name is string => name !== undefined && LOOKUP_RESOURCES.includes(name)))];
  // Hooks in a fixed order: one per resource that may be referenced, used or not.
  const maps = LOOKUP_RESOURCES.map((name) => [name, useLookup(referenced.includes(name) ? name : undefined)] as const);
  return new Map(maps);
}

interface Conflict {
  readonly stored: Entry;
  readonly etag: string;
  /** Field name -> keep the user's value (true) or the stored one. */
  readonly keepMine: Record<string, boolean>;
}

export function EntryForm(props: { resource: ConsoleResource; id?: number }) {
  const { t } = useConsole();
  const { resource, id } = props;
  const fields = editableFields(resource);
  const lookups = useReferenceLookups(resource);
  const [loaded, setLoaded] = useState<{ entry: Entry; etag: string } | undefined>(undefined);
  const [values, setValues] = useState<FormValues>(() => formOf(fields, undefined));
  const [problem, setProblem] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const [conflict, setConflict] = useState<Conflict | undefined>(undefined);
  const name = t.resourceNames[resource.name] ?? resource.name;
  // The submit button is disabled while a request runs, which drops the keyboard focus: the
  // answer puts it back where the user has to act (the conflict, the first refused field).
  const conflictHeading = useRef<HTMLHeadingElement>(null);
  const entryForm = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (conflict !== undefined) conflictHeading.current?.focus();
  }, [conflict !== undefined]);
  useEffect(() => {
    if (problem === undefined) return;
    const invalid = entryForm.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    (invalid ?? entryForm.current?.querySelector<HTMLElement>('button[type="submit"]'))?.focus();
  }, [problem]);

  useEffect(() => {
    if (id === undefined) return;
    request<{ item: Entry }>('GET', `/config/${resource.name}/${id}`)
      .then((answer) => {
        setLoaded({ entry: answer.body.item, etag: answer.headers.get('etag') ?? '' });
        setValues(formOf(fields, answer.body.item));
      })
      .catch(setProblem);
  }, [resource.name, id]);

  const errors = new Map<string, string>();
  if (problem instanceof Problem) for (const error of problem.errors) if (error.field !== undefined) errors.set(error.field, error.message);

  const forgetSecrets = (): void => setValues((current) => ({ ...current, ...Object.fromEntries(fields.filter((field) => field.writeOnly).map((field) => [field.name, ''])) }));

  const done = (entryId: number): void => {
    if (LOOKUP_RESOURCES.includes(resource.name)) forget(resource.name);
    navigate(`/${resource.name}/${entryId}`, { saved: id === undefined ? 'created' : 'saved' });
  };

  async function save(body: Record<string, unknown>, etag: string | undefined): Promise<void> {
    setBusy(true);
    setProblem(undefined);
    try {
      if (id === undefined) {
        const answer = await request<{ id: number }>('POST', `/config/${resource.name}`, { body });
        forgetSecrets();
        done(answer.body.id);
      } else {
        if (Object.keys(body).length > 0) {
          await request('PATCH', `/config/${resource.name}/${id}`, { body, headers: etag === undefined ? {} : { 'if-match': etag } });
        }
        forgetSecrets();
        done(id);
      }
    } catch (error) {
      if (error instanceof Problem && error.status === 412 && id !== undefined) {
        const current = await request<{ item: Entry }>('GET', `/config/${resource.name}/${id}`);
        const stored = current.body.item;
        const keepMine: Record<string, boolean> = {};
        for (const field of fields) {
          if (field.writeOnly) continue;
          // Default: the user's value where the user changed the field, else the stored one.
          const mine = inputValue(field, values[field.name]!);
          if (!same(mine, stored[field.name])) keepMine[field.name] = !same(mine, loaded?.entry[field.name]);
        }
        setConflict({ stored, etag: current.headers.get('etag') ?? '', keepMine });
      } else {
        setProblem(error);
      }
    } finally {
      setBusy(false);
    }
  }

  const submit = (event: Event): void => {
    event.preventDefault();
    if (id === undefined) void save(createBody(fields, values), undefined);
    else if (loaded !== undefined) void save(changedBody(fields, values, loaded.entry), loaded.etag);
  };

  const resolve = (event: Event): void => {
    event.preventDefault();
    if (conflict === undefined) return;
    const merged: FormValues = { ...values };
    for (const field of fields) {
      if (conflict.keepMine[field.name] === false) merged[field.name] = inputText(field, conflict.stored[field.name]);
    }
    setValues(merged);
    setLoaded({ entry: conflict.stored, etag: conflict.etag });
    setConflict(undefined);
    void save(changedBody(fields, merged, conflict.stored), conflict.etag);
  };

  const discard = (): void => {
    if (conflict === undefined) return;
    setLoaded({ entry: conflict.stored, etag: conflict.etag });
    setValues(formOf(fields, conflict.stored));
    setConflict(undefined);
    entryForm.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  };

  if (id !== undefined && loaded === undefined) {
    return (
      <section>
        <Heading>
          {name} #{id}
        </Heading>
        {problem === undefined ? <p>{t.loading}</p> : <ProblemView problem={problem} />}
      </section>
    );
  }

  return (
    <section>
      <Heading>{id === undefined ? `${name}: ${t.newEntry}` : `${name} #${id}: ${t.edit}`}</Heading>
      {conflict !== undefined && (
        <form class="conflict" onSubmit={resolve} aria-labelledby="conflict-title">
          <h2 id="conflict-title" tabIndex={-1} ref={conflictHeading}>
            {t.conflictTitle}
          </h2>
          <p>{t.conflictHelp}</p>
          {/* is_deleted is read-only, so no row of the table below would show it. */}
          {conflict.stored.is_deleted === 1 && (
            <p class="conflict-deleted">
              <strong>{t.conflictDeleted}</strong>
            </p>
          )}
          <TableRegion label={t.conflictTitle}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.field}</th>
                  <th scope="col">{t.yours}</th>
                  <th scope="col">{t.stored}</th>
                </tr>
              </thead>
              <tbody>
                {fields
                  .filter((field) => field.name in conflict.keepMine)
                  .map((field) => (
                    <tr key={field.name} data-field={field.name}>
                      <th scope="row">{field.name}</th>
                      <td>
                        <label>
                          <input
                            type="radio"
                            name={`keep-${field.name}`}
                            checked={conflict.keepMine[field.name] === true}
                            onChange={() => setConflict({ ...conflict, keepMine: { ...conflict.keepMine, [field.name]: true } })}
                          />{' '}
                          <span class="visually-hidden">{t.keepYours}{t.colon} </span>
                          <FieldValue field={field} value={inputValue(field, values[field.name]!)} lookups={lookups} />
                        </label>
                      </td>
                      <td>
                        <label>
                          <input
                            type="radio"
                            name={`keep-${field.name}`}
                            checked={conflict.keepMine[field.name] === false}
                            onChange={() => setConflict({ ...conflict, keepMine: { ...conflict.keepMine, [field.name]: false } })}
                          />{' '}
                          <span class="visually-hidden">{t.keepStored}{t.colon} </span>
                          <FieldValue field={field} value={conflict.stored[field.name]} lookups={lookups} />
                        </label>
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </TableRegion>
          <div class="buttons">
            <button type="submit" class="primary">
              {t.saveChoices}
            </button>
            <button type="button" onClick={discard}>
              {t.useStored}
            </button>
          </div>
        </form>
      )}
      <ProblemView problem={problem} />
      <form class="entry-form" onSubmit={submit} noValidate ref={entryForm}>
        {fields.map((field) => (
          <FieldInput
            key={field.name}
            field={field}
            value={values[field.name]!}
            onChange={(value) => setValues((current) => ({ ...current, [field.name]: value }))}
            error={errors.get(field.name)}
            creating={id === undefined}
            lookups={lookups}
          />
        ))}
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy || conflict !== undefined}>
            {id === undefined ? t.create : t.save}
          </button>
          <a class="button" href={href(id === undefined ? `/${resource.name}` : `/${resource.name}/${id}`)}>
            {t.cancel}
          </a>
        </div>
      </form>
    </section>
  );
}
