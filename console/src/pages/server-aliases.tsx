// A server's aliases on its page: a hundred at a time by name, the rest read on request by the
// list's cursor (`next`/`after`), as the entry's older changes are.
import { useEffect, useRef, useState } from 'preact/hooks';
import { request, type Entry, type ListAnswer } from '../api.js';
import { useConsole } from '../context.js';
import { href } from '../router.js';

const PAGE = 100;
/** The most a list answer holds (its `limit`). */
const LIST_LIMIT_MAX = 1000;

export function ServerAliases(props: { id: number; version: string }) {
  const { t } = useConsole();
  const [aliases, setAliases] = useState<Entry[] | undefined>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [total, setTotal] = useState(0);
  // A change to the server (props.version) reads again as many as the operator asked to see,
  // not only the first hundred. A page read by cursor adds the aliases not shown yet, so a
  // re-read that comes back first loses none and shows none twice.
  const wanted = useRef(PAGE);
  const read = async (after: string | null, limit: number): Promise<void> => {
    const answer = await request<ListAnswer<Entry>>('GET', `/config/aliases?id_mysql_server=${props.id}&limit=${limit}&sort=dns${after === null ? '' : `&after=${encodeURIComponent(after)}`}`);
    setAliases((current) => {
      if (after === null) return answer.body.items;
      const shown = new Set((current ?? []).map((alias) => alias.id));
      return [...(current ?? []), ...answer.body.items.filter((alias) => !shown.has(alias.id))];
    });
    setNext(answer.body.next ?? null);
    setTotal(answer.body.total);
  };
  useEffect(() => {
    wanted.current = PAGE;
  }, [props.id]);
  useEffect(() => {
    read(null, Math.min(wanted.current, LIST_LIMIT_MAX)).catch(() => setAliases([]));
  }, [props.id, props.version]);
  const more = (after: string, shown: number): void => {
    wanted.current = shown + PAGE;
    read(after, PAGE).catch(() => undefined);
  };
  return (
    <section aria-labelledby="aliases-title">
      <h2 id="aliases-title">{t.aliases}</h2>
      {aliases === undefined ? (
        <p>{t.loading}</p>
      ) : aliases.length === 0 ? (
        <p>{t.noEntries}</p>
      ) : (
        <ul class="aliases">
          {aliases.map((alias) => (
            <li key={alias.id}>
              <a href={href(`/aliases/${alias.id}`)}>
                {String(alias.dns)}:{String(alias.port)}
              </a>
            </li>
          ))}
        </ul>
      )}
      {aliases !== undefined && next !== null && (
        <button type="button" onClick={() => more(next, aliases.length)}>
          {t.moreAliases(Math.max(total - aliases.length, 0))}
        </button>
      )}
      <a class="button" href={href('/aliases/new')}>
        {t.newEntry}
      </a>
    </section>
  );
}
