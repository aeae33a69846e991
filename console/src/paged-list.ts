// A list shown a page at a time with a button for more (an entry's history, a server's
// aliases), read again from the start when the entry changes. Replies can come back in any
// order: a reply to a re-read older than the latest is dropped, a page asked for before a
// re-read is dropped too (the re-read covers it), and a page adds only what is not shown yet.
import { useEffect, useRef, useState } from 'preact/hooks';
import { LIST_LIMIT_MAX } from './api.js';

export interface PagedAnswer<T> {
  readonly items: T[];
  readonly total: number;
  /** Where the next page starts (a cursor or an offset), null at the end. */
  readonly next: string | null;
}

export interface PagedList<T> {
  readonly items: T[] | undefined;
  readonly total: number;
  readonly next: string | null;
  readonly problem: unknown;
  /** Reads the page after what is shown. */
  more(): void;
}

export function usePagedList<T extends { id: number }>(
  read: (after: string | null, limit: number) => Promise<PagedAnswer<T>>,
  /** What is listed: another one starts again at one page. */
  identity: string,
  /** Its version: a change reads again as many as the operator asked to see. */
  version: string,
  page: number,
): PagedList<T> {
  const [items, setItems] = useState<T[] | undefined>(undefined);
  const [total, setTotal] = useState(0);
  const [next, setNext] = useState<string | null>(null);
  const [problem, setProblem] = useState<unknown>(undefined);
  const wanted = useRef(page);
  const rereads = useRef(0);
  const reader = useRef(read);
  reader.current = read;
  const settle = (answer: PagedAnswer<T>): void => {
    setTotal(answer.total);
    setNext(answer.next);
    setProblem(undefined);
  };
  useEffect(() => {
    wanted.current = page;
  }, [identity]);
  useEffect(() => {
    const mine = (rereads.current += 1);
    reader
      .current(null, Math.min(wanted.current, LIST_LIMIT_MAX))
      .then((answer) => {
        if (rereads.current !== mine) return;
        setItems(answer.items);
        settle(answer);
      })
      .catch((error: unknown) => rereads.current === mine && setProblem(error));
  }, [identity, version]);
  const more = (): void => {
    if (next === null) return;
    const since = rereads.current;
    wanted.current = (items?.length ?? 0) + page;
    reader
      .current(next, page)
      .then((answer) => {
        if (rereads.current !== since) return;
        setItems((current) => {
          const shown = new Set((current ?? []).map((one) => one.id));
          return [...(current ?? []), ...answer.items.filter((one) => !shown.has(one.id))];
        });
        settle(answer);
      })
      .catch((error: unknown) => rereads.current === since && setProblem(error));
  };
  return { items, total, next, problem, more };
}
