// Pieces every page uses: the problem box, a status line read out by screen readers, a
// scrollable table region, a delete button that asks once more, a field's input, and how a
// value is written for a person.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Problem, type Entry } from './api.js';
import { useConsole } from './context.js';
import { entryLabel, Lookup, readName } from './lookups.js';
import { ReferencePicker, ReferencesPicker } from './reference-picker.js';
import type { ConsoleField } from './registry-types.js';
import { href } from './router.js';

export function Heading(props: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // A new page: the reader starts at its heading (keyboard and screen reader users).
  useEffect(() => heading.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={heading}>
      {props.children}
    </h1>
  );
}

/**
 * After an action whose button goes away with its answer (a bulk change, a restore from a list,
 * an import, a secret dismissed): the focus goes to the page's heading, where the keyboard
 * continues through the page, instead of falling to the document's start.
 */
export function focusHeading(): void {
  document.querySelector<HTMLElement>('main h1')?.focus();
}

/** A refusal, as the service worded it; 409 REFERENCED links to what still holds the entry. */
export function ProblemView(props: { problem: unknown }) {
  const { t } = useConsole();
  const problem = props.problem;
  if (problem === undefined || problem === null) return null;
  if (!(problem instanceof Problem)) return <div class="problem" role="alert">{String((problem as Error).message ?? problem)}</div>;
  if (problem.status === 0) return <div class="problem" role="alert">{t.networkError}</div>;
  const holders = Array.isArray(problem.body.referenced_by) ? (problem.body.referenced_by as { resource: string; ids: number[] }[]) : [];
  return (
    <div class="problem" role="alert">
      <p>
        <strong>{t.problem}</strong> ({problem.status} {problem.code}){t.colon} {problem.detail}
      </p>
      {problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((error, index) => (
            <li key={index}>
              {error.index === undefined ? '' : `[${error.index + 1}] `}
              {error.field === undefined ? '' : <code>{error.field}</code>} {error.message}
            </li>
          ))}
        </ul>
      )}
      {holders.length > 0 && (
        <p>
          {t.referencedBy}{' '}
          {holders.flatMap((holder) =>
            holder.ids.map((id) => (
              <a key={`${holder.resource}-${id}`} class="holder" href={href(`/${holder.resource}/${id}`)}>
                {t.resourceNames[holder.resource] ?? holder.resource} #{id}
              </a>
            )),
          )}
        </p>
      )}
    </div>
  );
}

/** A line read out when it changes (saved, deleted, …). */
export function Status(props: { children: ComponentChildren }) {
  return (
    <p class="status" role="status">
      {props.children}
    </p>
  );
}

/** A wide table scrolls on its own on a phone, and can be scrolled with the keyboard. */
export function TableRegion(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-region" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}

/** Delete, then confirm: two keystrokes, never a lost entry by one stray Enter. */
export function DeleteButton(props: { onDelete: () => Promise<void> | void; label?: string }) {
  const { t } = useConsole();
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // The confirm and cancel buttons go away with the question: the focus comes back to Delete
  // (after a cancel, or a refused delete), not to the page's start.
  const asked = useRef(false);
  useEffect(() => {
    if (asking) confirm.current?.focus();
    else if (asked.current) button.current?.focus();
    asked.current = asking;
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="danger" ref={button} onClick={() => setAsking(true)}>
        {props.label ?? t.delete}
      </button>
    );
  }
  return (
    <span class="confirm">
      <button
        type="button"
        class="danger"
        ref={confirm}
        onClick={async () => {
          setAsking(false);
          await props.onDelete();
        }}
      >
        {t.confirmDelete}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        {t.cancel}
      </button>
    </span>
  );
}

/** A value as a person reads it; references by their name, linked. */
export function FieldValue(props: { field: ConsoleField; value: unknown; lookups: Map<string, Map<number, Entry>> }) {
  const { t } = useConsole();
  const { field, value } = props;
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  if (field.kind === 'boolean') return <>{t.yesNo(value === true || value === 1)}</>;
  if (field.kind === 'reference' && field.references !== undefined) {
    const known = props.lookups.get(field.references);
    const target = known?.get(value as number);
    if (target === undefined && known instanceof Lookup && known.loaded) readName(field.references, value as number);
    return <a href={href(`/${field.references}/${String(value)}`)}>{entryLabel(field.references, target, value)}</a>;
  }
  if (field.kind === 'references' && Array.isArray(value) && field.references !== undefined) {
    const targets = props.lookups.get(field.references);
    if (targets instanceof Lookup && targets.loaded) for (const id of value as number[]) if (!targets.has(id)) readName(field.references, id);
    return (
      <span class="chips">
        {value.map((id: number) => (
          <a key={id} class="chip" href={href(`/${field.references}/${id}`)}>
            {entryLabel(field.references!, targets?.get(id), id)}
          </a>
        ))}
      </span>
    );
  }
  if (field.kind === 'multiline') return <code class="wrap">{String(value)}</code>;
  return <>{Array.isArray(value) ? value.join(', ') : String(value)}</>;
}

/** What an input holds for a field's value (forms keep text, and turn it into JSON on save). */
export function inputText(field: ConsoleField, value: unknown): string | boolean | string[] {
  if (field.kind === 'boolean') return value === true || value === 1;
  if (field.kind === 'references') return Array.isArray(value) ? value.map(String) : [];
  if (value === null || value === undefined) return '';
  return String(value);
}

/** The JSON value of an input's text: numbers for integers and references, null for an empty nullable field. */
export function inputValue(field: ConsoleField, text: string | boolean | string[]): unknown {
  if (field.kind === 'boolean') return text === true;
  if (field.kind === 'references') return (text as string[]).map(Number);
  const raw = String(text);
  if (raw === '' && field.nullable) return null;
  if ((field.kind === 'integer' || field.kind === 'reference') && /^-?\d+$/.test(raw.trim())) return Number(raw.trim());
  return raw;
}

export function FieldInput(props: {
  field: ConsoleField;
  value: string | boolean | string[];
  onChange: (value: string | boolean | string[]) => void;
  error?: string | undefined;
  creating: boolean;
  lookups: Map<string, Map<number, Entry>>;
}) {
  const { t, language } = useConsole();
  const { field, value } = props;
  const id = `field-${field.name}`;
  const help = `${id}-help`;
  const errorId = `${id}-error`;
  const describedBy = [help, props.error === undefined ? '' : errorId].filter(Boolean).join(' ');
  const common = { id, 'aria-describedby': describedBy, 'aria-invalid': props.error === undefined ? undefined : ('true' as const) };
  const required = field.required && !(field.writeOnly && !props.creating);
  let input;
  const choices = field.references === undefined ? undefined : props.lookups.get(field.references);
  if (field.kind === 'boolean') {
    input = <input type="checkbox" {...common} checked={value === true} onChange={(event) => props.onChange((event.target as HTMLInputElement).checked)} />;
  } else if (field.kind === 'enum') {
    input = (
      <select {...common} required={required} value={value as string} onChange={(event) => props.onChange((event.target as HTMLSelectElement).value)}>
        <option value="">—</option>
        {(field.values ?? []).map((choice) => (
          <option key={choice} value={String(choice)}>
            {String(choice)}
          </option>
        ))}
      </select>
    );
  } else if (field.kind === 'reference' && choices instanceof Lookup && !choices.complete) {
    input = <ReferencePicker resource={field.references!} id={id} value={value as string} onChange={props.onChange} known={choices} required={required} describedBy={describedBy} invalid={props.error !== undefined} />;
  } else if (field.kind === 'references' && choices instanceof Lookup && !choices.complete) {
    input = <ReferencesPicker resource={field.references!} id={id} label={field.name} value={value as string[]} onChange={props.onChange} known={choices} describedBy={describedBy} />;
  } else if (field.kind === 'reference' && choices !== undefined) {
    input = (
      <select {...common} required={required} value={value as string} onChange={(event) => props.onChange((event.target as HTMLSelectElement).value)}>
        <option value="">{field.nullable ? t.nullOption : '—'}</option>
        {[...choices.values()].map((entry) => (
          <option key={entry.id} value={String(entry.id)}>
            {entryLabel(field.references!, entry)}
          </option>
        ))}
      </select>
    );
  } else if (field.kind === 'references' && choices !== undefined) {
    const chosen = new Set(value as string[]);
    input = (
      <fieldset {...common} class="choices">
        <legend>{field.name}</legend>
        {[...choices.values()].map((entry) => (
          <label key={entry.id} class="choice">
            <input
              type="checkbox"
              checked={chosen.has(String(entry.id))}
              onChange={(event) => {
                const next = new Set(chosen);
                if ((event.target as HTMLInputElement).checked) next.add(String(entry.id));
                else next.delete(String(entry.id));
                props.onChange([...next]);
              }}
            />{' '}
            {entryLabel(field.references!, entry)}
          </label>
        ))}
      </fieldset>
    );
  } else if (field.kind === 'multiline') {
    input = (
      <textarea
        {...common}
        rows={field.writeOnly ? 6 : 3}
        required={required}
        value={value as string}
        autoComplete="off"
        spellcheck={false}
        onInput={(event) => props.onChange((event.target as HTMLTextAreaElement).value)}
      />
    );
  } else {
    const onInput = (event: Event): void => props.onChange((event.target as HTMLInputElement).value);
    input =
      field.kind === 'integer' || field.kind === 'reference' ? (
        <input {...common} type="number" required={required} min={field.min} max={field.max} value={value as string} onInput={onInput} />
      ) : (
        <input {...common} type="text" required={required} maxLength={field.max} value={value as string} onInput={onInput} />
      );
  }
  const hints = [field.description[language]];
  if (required) hints.push(t.required);
  if ('default' in field && field.default !== undefined && !field.writeOnly) hints.push(t.defaultValue(JSON.stringify(field.default)));
  if (field.writeOnly) hints.push(props.creating ? t.writeOnlyCreateHelp : t.writeOnlyHelp);
  return (
    <div class={`field field-${field.kind}`}>
      {field.kind === 'references' && choices !== undefined ? null : <label for={id}>{field.name}</label>}
      {input}
      <small id={help} class="hint">
        {hints.join(' · ')}
      </small>
      {props.error !== undefined && (
        <small id={errorId} class="field-error">
          {props.error}
        </small>
      )}
    </div>
  );
}
