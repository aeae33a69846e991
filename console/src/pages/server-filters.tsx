// The server list's filters (section 11: client, environment, tags, monitored, deleted) and
// its bulk actions on the selected rows. A client, environment or tag beyond the first page of
// choices (lookups.ts) is chosen by search (reference-picker.tsx) instead of a full list.
import { useState } from 'preact/hooks';
import { request } from '../api.js';
import { useConsole } from '../context.js';
import { entryLabel, useLookup, type Lookup } from '../lookups.js';
import { ReferencePicker, ReferencesPicker } from '../reference-picker.js';
import { DeleteButton } from '../ui.js';

/** A filter by one reference: a select while every choice is known, else a picker fed by `q`. */
function ReferenceFilter(props: { resource: string; id: string; name: string; label: string; chosen: string; known: Lookup }) {
  const { t } = useConsole();
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.known.complete ? (
        <select id={props.id} name={props.name}>
          <option value="">{t.anyValue}</option>
          {[...props.known.values()].map((entry) => (
            <option key={entry.id} value={String(entry.id)} selected={props.chosen === String(entry.id)}>
              {entryLabel(props.resource, entry)}
            </option>
          ))}
        </select>
      ) : (
        <ReferencePicker resource={props.resource} id={props.id} name={props.name} value={props.chosen} known={props.known} />
      )}
    </div>
  );
}

export function ServerFilters(props: { params: URLSearchParams }) {
  const { t } = useConsole();
  const clients = useLookup('clients');
  const environments = useLookup('environments');
  const tags = useLookup('tags');
  const chosenTags = new Set(props.params.getAll('tag'));
  const [chosenFilterTags, setChosenFilterTags] = useState(() => props.params.getAll('tag'));
  const value = (name: string): string => props.params.get(name) ?? '';
  return (
    <>
      <ReferenceFilter resource="clients" id="filter-client" name="id_client" label={t.client} chosen={value('id_client')} known={clients} />
      <ReferenceFilter resource="environments" id="filter-environment" name="id_environment" label={t.environment} chosen={value('id_environment')} known={environments} />
      <div class="field">
        <label for="filter-monitored">{t.monitored}</label>
        <select id="filter-monitored" name="is_monitored">
          <option value="">{t.anyValue}</option>
          <option value="true" selected={value('is_monitored') === 'true'}>
            {t.yes}
          </option>
          <option value="false" selected={value('is_monitored') === 'false'}>
            {t.no}
          </option>
        </select>
      </div>
      {tags.complete ? (
        <fieldset class="field tag-filter">
          <legend>{t.tag}</legend>
          {[...tags.values()].map((tag) => (
            <label key={tag.id} class="choice">
              <input type="checkbox" name="tag" value={String(tag.id)} defaultChecked={chosenTags.has(String(tag.id))} /> {String(tag.name)}
            </label>
          ))}
        </fieldset>
      ) : (
        <div class="field tag-filter">
          <ReferencesPicker resource="tags" id="filter-tag" name="tag" label={t.tag} value={chosenFilterTags} onChange={setChosenFilterTags} known={tags} />
        </div>
      )}
      <div class="field check">
        <input id="filter-deleted" type="checkbox" name="include_deleted" value="true" defaultChecked={value('include_deleted') === 'true'} />
        <label for="filter-deleted">{t.includeDeleted}</label>
      </div>
    </>
  );
}

export function BulkActions(props: { selected: number[]; done: (message: string) => void; failed: (problem: unknown) => void }) {
  const { t } = useConsole();
  const tags = useLookup('tags');
  const [tag, setTag] = useState('');
  const count = props.selected.length;
  const changeTags = async (change: 'add_tags' | 'remove_tags'): Promise<void> => {
    if (tag === '') return;
    try {
      const answer = await request<{ count: number }>('PATCH', '/config/servers', { body: props.selected.map((id) => ({ id, [change]: [Number(tag)] })) });
      props.done(t.bulkDone(answer.body.count));
    } catch (error) {
      props.failed(error);
    }
  };
  const remove = async (): Promise<void> => {
    try {
      const answer = await request<{ count: number }>('DELETE', `/config/servers?id=${props.selected.join(',')}`);
      props.done(t.bulkDone(answer.body.count));
    } catch (error) {
      props.failed(error);
    }
  };
  return (
    <div class="bulk" role="group" aria-label={t.selected(count)}>
      <span>{t.selected(count)}</span>
      <label for="bulk-tag">{t.tagToChange}</label>
      {tags.complete ? (
        <select id="bulk-tag" value={tag} onChange={(event) => setTag((event.target as HTMLSelectElement).value)}>
          <option value="">—</option>
          {[...tags.values()].map((one) => (
            <option key={one.id} value={String(one.id)}>
              {String(one.name)}
            </option>
          ))}
        </select>
      ) : (
        <ReferencePicker resource="tags" id="bulk-tag" value={tag} onChange={setTag} known={tags} />
      )}
      <button type="button" disabled={count === 0 || tag === ''} onClick={() => changeTags('add_tags')}>
        {t.addTag}
      </button>
      <button type="button" disabled={count === 0 || tag === ''} onClick={() => changeTags('remove_tags')}>
        {t.removeTag}
      </button>
      {count > 0 && <DeleteButton label={t.deleteSelected} onDelete={remove} />}
    </div>
  );
}

