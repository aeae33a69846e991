// A server's aliases on its page: a hundred at a time by name, the rest read on request by the
// list's cursor (`next`/`after`), as the entry's older changes are.
import { useEffect, useState } from 'preact/hooks';
import { request, type Entry, type ListAnswer } from '../api.js';
import { useConsole } from '../context.js';
import { href } from '../router.js';

const PAGE = 100;

export function ServerAliases(props: { id: number; version: string }) {
  const { t } = useConsole();
  const [aliases, setAliases] = useState<Entry[] | undefined>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [total, setTotal] = useState(0);
  const read = async (after: string | null): Promise<void> => {
    const answer = await request<ListAnswer<Entry>>('GET', `/config/aliases?id_mysql_server=${props.id}&limit=${PAGE}&sort=dns${after === null ? '' : `&after=${encodeURIComponent(after)}`}`);
    setAliases((current) => (after === null ? answer.body.items : [...(current ?? []), ...answer.body.items]));
    setNext(answer.body.next ?? null);
    setTotal(answer.body.total);
  };
  useEffect(() => {
    read(null).catch(() => setAliases([]));
  }, [props.id, props.version]);
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
        <button type="button" onClick={() => read(next).catch(() => undefined)}>
          {t.moreAliases(Math.max(total - aliases.length, 0))}
        </button>
      )}
      <a class="button" href={href('/aliases/new')}>
        {t.newEntry}
      </a>
    </section>
  );
}
