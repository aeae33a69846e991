// CSV import of servers: a file or pasted text (parsed by papaparse), each column mapped to a
// server field (by its header when the names match), a dry run of the bulk POST
// (`?dry_run=true`) whose refusals are put on their rows, then the same POST for real: all
// rows are created together, or none.
import Papa from 'papaparse';
import { useRef, useState } from 'preact/hooks';
import { Problem, request, type Entry } from '../api.js';
import { useConsole } from '../context.js';
import { entryLabel, forget, useLookup } from '../lookups.js';
import { editableFields, resourceNamed } from '../resources.js';
import { href } from '../router.js';
import { focusHeading, Heading, inputValue, ProblemView, Status, TableRegion } from '../ui.js';
import { clientNamed, environmentNamed, tagNamed, withNamed } from './csv-names.js';

const MAX_ROWS = 1000;
// Columns that name a reference by what people write in a spreadsheet, not by its id.
const BY_NAME = { client: 'client', environment: 'environment', tags: 'tags-by-name' } as const;

interface Row {
  readonly line: number;
  readonly body: Record<string, unknown>;
  readonly problems: string[];
}

function truthy(text: string): unknown {
  const word = text.trim().toLowerCase();
  if (['true', '1', 'yes', 'oui', 'y', 'o'].includes(word)) return true;
  if (['false', '0', 'no', 'non', 'n', ''].includes(word)) return false;
  return text;
}

export function CsvImport() {
  const { t } = useConsole();
  const servers = resourceNamed('servers')!;
  const fields = editableFields(servers);
  const clients = useLookup('clients');
  const environments = useLookup('environments');
  const tags = useLookup('tags');
  const [text, setText] = useState('');
  const [headers, setHeaders] = useState<string[]>([]);
  const [records, setRecords] = useState<Record<string, string>[]>([]);
  const [mapping, setMapping] = useState<Record<string, string>>({});
  const [rows, setRows] = useState<Row[] | undefined>(undefined);
  const [checked, setChecked] = useState<'ok' | 'refused' | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  const [status, setStatus] = useState('');
  const [created, setCreated] = useState<Entry[]>([]);
  // Bumped by each check and by each change of the rows or mapping: a reply to an older one is dropped.
  const run = useRef(0);

  const targets: [string, string][] = [
    ...fields.map((field) => [field.name, field.name] as [string, string]),
    [BY_NAME.client, t.clientByName],
    [BY_NAME.environment, t.environmentByKey],
    [BY_NAME.tags, t.tagsByName],
  ];

  const read = (source: string): void => {
    run.current += 1;
    setProblem(undefined);
    setRows(undefined);
    setChecked(undefined);
    setCreated([]);
    const parsed = Papa.parse<Record<string, string>>(source.trim(), { header: true, skipEmptyLines: 'greedy', transformHeader: (header) => header.trim() });
    if (parsed.errors.length > 0) {
      setProblem(new Error(`${t.parseErrors} ${parsed.errors.map((error) => `${t.row} ${(error.row ?? 0) + 2}: ${error.message}`).join('; ')}`));
      return;
    }
    if (parsed.data.length > MAX_ROWS) {
      setProblem(new Error(t.tooManyRows));
      return;
    }
    const columns = parsed.meta.fields ?? [];
    setHeaders(columns);
    setRecords(parsed.data);
    const known = new Map(targets.map(([value]) => [value.toLowerCase(), value]));
    known.set('client', BY_NAME.client);
    known.set('environment', BY_NAME.environment);
    setMapping(Object.fromEntries(columns.map((column) => [column, known.get(column.toLowerCase()) ?? ''])));
  };

  const upload = async (event: Event): Promise<void> => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file === undefined) return;
    const content = await file.text();
    setText(content);
    read(content);
  };

  /** The POST body of each row, and what is wrong with it before the service is asked. */
  const build = (clients: Map<number, Entry>, environments: Map<number, Entry>, tags: Map<number, Entry>): Row[] =>
    records.map((record, index) => {
      const body: Record<string, unknown> = {};
      const problems: string[] = [];
      for (const [column, target] of Object.entries(mapping)) {
        const raw = (record[column] ?? '').trim();
        if (target === '' || raw === '') continue;
        if (target === BY_NAME.client) {
          const client = [...clients.values()].find((one) => clientNamed(one, raw));
          if (client === undefined) problems.push(t.unknownName(t.client, raw));
          else body.id_client = client.id;
        } else if (target === BY_NAME.environment) {
          const environment = [...environments.values()].find((one) => environmentNamed(one, raw));
          if (environment === undefined) problems.push(t.unknownName(t.environment, raw));
          else body.id_environment = environment.id;
        } else if (target === BY_NAME.tags) {
          const ids: number[] = [];
          for (const tagName of raw.split(/[;|]/).map((one) => one.trim()).filter(Boolean)) {
            const tag = [...tags.values()].find((one) => tagNamed(one, tagName));
            if (tag === undefined) problems.push(t.unknownName(t.tag, tagName));
            else ids.push(tag.id);
          }
          if (ids.length > 0) body.tags = ids;
        } else {
          const field = fields.find((one) => one.name === target)!;
          if (field.kind === 'boolean') body[target] = truthy(raw);
          else if (field.kind === 'references') body[target] = raw.split(/[;|,]/).map((one) => one.trim()).filter(Boolean).map(Number);
          else body[target] = inputValue(field, raw);
        }
      }
      return { line: index + 2, body, problems };
    });

  // Another mapping makes other entries: the preview (and its button that creates them) goes,
  // so that what is created is always what the dry run checked.
  const changeMapping = (column: string, target: string): void => {
    run.current += 1;
    setMapping({ ...mapping, [column]: target });
    setRows(undefined);
    setChecked(undefined);
  };

  /** The names the mapped columns hold, of each kind. */
  const namesIn = (target: string, split: boolean): string[] =>
    Object.entries(mapping)
      .filter(([, to]) => to === target)
      .flatMap(([column]) => records.map((record) => (record[column] ?? '').trim()))
      .flatMap((raw) => (split ? raw.split(/[;|]/).map((one) => one.trim()) : [raw]))
      .filter(Boolean);
  const namedInRows = (): Promise<[Map<number, Entry>, Map<number, Entry>, Map<number, Entry>]> =>
    Promise.all([
      withNamed('clients', clients, namesIn(BY_NAME.client, false), clientNamed),
      withNamed('environments', environments, namesIn(BY_NAME.environment, false), environmentNamed),
      withNamed('tags', tags, namesIn(BY_NAME.tags, true), tagNamed),
    ]);

  const send = async (dryRun: boolean): Promise<void> => {
    setProblem(undefined);
    setStatus('');
    const mine = (run.current += 1);
    let built: Row[];
    try {
      built = build(...(await namedInRows()));
    } catch (error) {
      if (run.current === mine) setProblem(error);
      return;
    }
    if (run.current !== mine) return;
    if (built.some((row) => row.problems.length > 0)) {
      setRows(built);
      setChecked('refused');
      return;
    }
    try {
      const answer = await request<{ count: number; items: Entry[] }>('POST', `/config/servers${dryRun ? '?dry_run=true' : ''}`, { body: built.map((row) => row.body) });
      // A creation happened whatever changed since; a dry run of an older mapping says nothing.
      if (dryRun && run.current !== mine) return;
      setRows(built);
      setChecked('ok');
      if (!dryRun) {
        focusHeading();
        setCreated(answer.body.items);
        setStatus(t.imported(answer.body.count));
        setRecords([]);
        setRows(undefined);
        setChecked(undefined);
        forget('servers');
      }
    } catch (error) {
      if (run.current !== mine) return;
      if (error instanceof Problem && error.errors.some((one) => one.index !== undefined)) {
        setRows(
          built.map((row, index) => ({
            ...row,
            problems: error.errors.filter((one) => one.index === index).map((one) => `${one.field ?? ''} ${one.message}`.trim()),
          })),
        );
        setChecked('refused');
        // Each refusal is on its row; only those that name no row are said above the table.
        if (error.errors.some((one) => one.index === undefined)) setProblem(error);
      } else {
        setProblem(error);
      }
    }
  };

  const refusals = rows?.reduce((count, row) => count + row.problems.length, 0) ?? 0;
  return (
    <section>
      <Heading>{t.importTitle}</Heading>
      <p class="lead">{t.importHelp}</p>
      <form
        class="csv-source"
        onSubmit={(event) => {
          event.preventDefault();
          read(text);
        }}
      >
        <div class="field">
          <label for="csv-file">{t.csvFile}</label>
          <input id="csv-file" type="file" accept=".csv,text/csv,text/plain" onChange={upload} />
        </div>
        <div class="field">
          <label for="csv-text">{t.csvText}</label>
          <textarea id="csv-text" rows={8} value={text} spellcheck={false} onInput={(event) => setText((event.target as HTMLTextAreaElement).value)} />
        </div>
        <div class="buttons">
          <button type="submit" class="primary">
            {t.readCsv}
          </button>
        </div>
      </form>
      <Status>{status}</Status>
      {created.length > 0 && (
        <ul class="created">
          {created.map((server) => (
            <li key={server.id}>
              <a href={href(`/servers/${server.id}`)}>{entryLabel('servers', server)}</a>
            </li>
          ))}
        </ul>
      )}
      {headers.length > 0 && records.length > 0 && (
        <form
          class="mapping"
          onSubmit={(event) => {
            event.preventDefault();
            void send(true);
          }}
        >
          <fieldset>
            <legend>{t.mapping}</legend>
            {headers.map((column) => (
              <div class="field" key={column}>
                <label for={`map-${column}`}>{t.mapTo(column)}</label>
                <select id={`map-${column}`} value={mapping[column] ?? ''} onChange={(event) => changeMapping(column, (event.target as HTMLSelectElement).value)}>
                  <option value="">{t.ignore}</option>
                  {targets.map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </div>
            ))}
          </fieldset>
          <div class="buttons">
            <button type="submit" class="primary">
              {t.preview}
            </button>
          </div>
        </form>
      )}
      {rows !== undefined && (
        <section aria-labelledby="preview-title">
          <h2 id="preview-title">{t.previewTitle}</h2>
          <p role="status" class={checked === 'ok' ? 'ok' : 'refused'}>
            {checked === 'ok' ? t.previewOk(rows.length) : t.previewRefused(refusals)}
          </p>
          <ProblemView problem={problem} />
          <TableRegion label={t.previewTitle}>
            <table class="preview">
              <thead>
                <tr>
                  <th scope="col">{t.row}</th>
                  {headers.map((column) => (
                    <th scope="col" key={column}>
                      {column}
                    </th>
                  ))}
                  <th scope="col">{t.problems}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row, index) => (
                  <tr key={row.line} data-line={row.line} class={row.problems.length > 0 ? 'refused' : undefined}>
                    <th scope="row">{row.line}</th>
                    {headers.map((column) => (
                      <td key={column}>{records[index]?.[column] ?? ''}</td>
                    ))}
                    <td class="row-problems">{row.problems.join('; ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
          {checked === 'ok' && (
            <div class="buttons">
              <button type="button" class="primary" onClick={() => send(false)}>
                {t.applyImport(rows.length)}
              </button>
            </div>
          )}
        </section>
      )}
      {rows === undefined && <ProblemView problem={problem} />}
    </section>
  );
}
