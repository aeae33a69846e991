// A server's aliases on its page: a hundred at a time by name, the rest read on request by the
// list's cursor (`next`/`after`), as the entry's older changes are.
import { request, type Entry, type ListAnswer } from '../api.js';
import { useConsole } from '../context.js';
import { usePagedList, type PagedAnswer } from '../paged-list.js';
import { href } from '../router.js';
import { ProblemView } from '../ui.js';

const PAGE = 100;

export function ServerAliases(props: { id: number; version: string }) {
  const { t } = useConsole();
  const read = async (after: string | null, limit: number): Promise<PagedAnswer<Entry>> => {
    const answer = await request<ListAnswer<Entry>>('GET', `/config/aliases?id_mysql_server=${props.id}&limit=${limit}&sort=dns${after === null ? '' : `&after=${encodeURIComponent(after)}`}`);
    return { items: answer.body.items, total: answer.body.total, next: answer.body.next ?? null };
  };
  const { items: aliases, total, next, problem, more } = usePagedList(read, String(props.id), props.version, PAGE);
  return (
    <section aria-labelledby="aliases-title">
      <h2 id="aliases-title">{t.aliases}</h2>
      <ProblemView problem={problem} />
      {aliases === undefined ? (
        problem === undefined && <p>{t.loading}</p>
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
        <button type="button" onClick={more}>
          {t.moreAliases(Math.max(total - aliases.length, 0))}
        </button>
      )}
      <a class="button" href={href('/aliases/new')}>
        {t.newEntry}
      </a>
    </section>
  );
}
