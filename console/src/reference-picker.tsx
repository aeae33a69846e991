// The choice of a reference when its resource has more entries than the first page read for
// choices (lookups.ts): a text input whose suggestions (a <datalist>) come from the API's `q`
// search as the operator types. A suggestion reads "name #id"; choosing one (or typing an id)
// sets the reference. The native input keeps keyboard use and the accessible name of a label.
import { useEffect, useState } from 'preact/hooks';
import { request, type Entry, type ListAnswer } from './api.js';
import { useConsole } from './context.js';
import { entryLabel, lookupSort, readName } from './lookups.js';

/** How a suggestion reads, and what the input holds once it is chosen. */
export function choiceText(resource: string, entry: Entry): string {
  return `${entryLabel(resource, entry)} #${entry.id}`;
}

/** The id an input's text names: "name #id" or a bare id; undefined for anything else. */
export function chosenId(text: string): string | undefined {
  const match = /(?:^|#)(\d+)\s*$/.exec(text.trim());
  return match === null ? undefined : match[1];
}

/** Suggestions for `text`: the first twenty entries matching it (`q`), read as it changes. */
function useSuggestions(resource: string, text: string): Entry[] {
  const [found, setFound] = useState<Entry[]>([]);
  useEffect(() => {
    const query = text.trim();
    if (chosenId(query) !== undefined) return;
    let current = true;
    // A pause before searching: one request per word typed, not per key.
    const timer = setTimeout(() => {
      request<ListAnswer<Entry>>('GET', `/config/${resource}?limit=20&sort=${lookupSort(resource)}${query === '' ? '' : `&q=${encodeURIComponent(query)}`}`)
        .then((answer) => current && setFound(answer.body.items))
        .catch(() => undefined);
    }, 150);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [resource, text]);
  return found;
}

export function ReferencePicker(props: {
  resource: string;
  id: string;
  /** The form field name of the chosen id (a hidden input), for forms read with FormData. */
  name?: string;
  value: string;
  onChange?: (id: string) => void;
  known: Map<number, Entry>;
  required?: boolean;
  describedBy?: string;
  invalid?: boolean;
  /** Empties the input once an entry is chosen (to choose several). */
  clearOnChoice?: boolean;
}) {
  const { t } = useConsole();
  const { resource, value, known } = props;
  const [typed, setTyped] = useState<string | undefined>(undefined);
  const [chosen, setChosen] = useState(value);
  // A value set from outside (a discarded edit, a reset) shows as its name again.
  useEffect(() => {
    setChosen(value);
    setTyped((text) => (text !== undefined && (chosenId(text) ?? '') === value ? text : undefined));
  }, [value]);
  const entry = chosen === '' ? undefined : known.get(Number(chosen));
  // A name is read only for a choice shown by name (the initial or a chosen value), never for
  // each digit typed: typed text shows as typed.
  if (typed === undefined && chosen !== '' && entry === undefined) readName(resource, Number(chosen));
  const text = typed ?? (chosen === '' ? '' : entry === undefined ? `#${chosen}` : choiceText(resource, entry));
  const suggestions = useSuggestions(resource, typed ?? '');
  const listId = `${props.id}-choices`;
  const hintId = `${props.id}-unnamed`;
  // Text that names no entry (a search not yet chosen from) leaves the choice as it was.
  const unnamed = !props.clearOnChoice && typed !== undefined && typed.trim() !== '' && chosenId(typed) === undefined;
  const describedBy = [props.describedBy ?? '', unnamed ? hintId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <input
        id={props.id}
        type="text"
        list={listId}
        autoComplete="off"
        placeholder={t.typeToSearch}
        required={props.required}
        aria-describedby={describedBy}
        aria-invalid={props.invalid || unnamed ? 'true' : undefined}
        value={text}
        onInput={(event) => {
          const next = (event.target as HTMLInputElement).value;
          const id = chosenId(next) ?? '';
          if (props.clearOnChoice) {
            // Nothing is chosen until the text names an entry; then the input is emptied for the next.
            if (id !== '') props.onChange?.(id);
            setTyped(id === '' ? next : '');
            return;
          }
          setTyped(next);
          // Only a text naming an entry, or an emptied one (a choice cleared on purpose), changes
          // the choice: a search typed and not chosen from must not clear the reference on save.
          if (id === '' && next.trim() !== '') return;
          setChosen(id);
          props.onChange?.(id);
        }}
      />
      {unnamed && (
        <small id={hintId} class="hint">
          {t.namesNoEntry(chosen === '' ? t.none : entry === undefined ? `#${chosen}` : choiceText(resource, entry))}
        </small>
      )}
      <datalist id={listId}>
        {suggestions.map((one) => (
          <option key={one.id} value={choiceText(resource, one)} />
        ))}
      </datalist>
      {props.name !== undefined && <input type="hidden" name={props.name} value={chosen} />}
    </>
  );
}

/** Several references (a server's tags): the chosen ones as removable chips, and a picker to add one. */
export function ReferencesPicker(props: {
  resource: string;
  id: string;
  label: string;
  /** The form field name of each chosen id (hidden inputs), for forms read with FormData. */
  name?: string;
  value: string[];
  onChange: (ids: string[]) => void;
  known: Map<number, Entry>;
  describedBy?: string;
}) {
  const { t } = useConsole();
  const { resource, value, known } = props;
  return (
    <fieldset class="choices" id={`${props.id}-set`} aria-describedby={props.describedBy}>
      <legend>{props.label}</legend>
      <span class="chips">
        {value.map((one) => {
          const entry = known.get(Number(one));
          if (entry === undefined) readName(resource, Number(one));
          const name = entry === undefined ? `#${one}` : entryLabel(resource, entry);
          return (
            <span key={one} class="chip">
              {name}{' '}
              <button type="button" aria-label={t.removeChoice(name)} onClick={() => props.onChange(value.filter((other) => other !== one))}>
                ×
              </button>
              {props.name !== undefined && <input type="hidden" name={props.name} value={one} />}
            </span>
          );
        })}
      </span>
      <label for={props.id}>{t.addChoice}</label>
      <ReferencePicker resource={resource} id={props.id} value="" known={known} clearOnChoice onChange={(one) => !value.includes(one) && props.onChange([...value, one])} />
    </fieldset>
  );
}
