// A page follows the change stream while it is open: `onRecord` sees every change committed
// after the page opened (the tab's one stream, see live.ts).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChangeRecord } from './api.js';
import { useConsole } from './context.js';
import { forget, LOOKUP_RESOURCES } from './lookups.js';

export function useLive(onRecord: (record: ChangeRecord, replayed: boolean) => void): boolean {
  const { live } = useConsole();
  const handler = useRef(onRecord);
  handler.current = onRecord;
  const [connected, setConnected] = useState(live.live);
  useEffect(() => {
    const stopState = live.onState(setConnected);
    const stop = live.subscribe((record, replayed) => {
      // The names shown for references follow too.
      if (LOOKUP_RESOURCES.includes(record.resource) && !replayed) forget(record.resource);
      handler.current(record, replayed);
    });
    setConnected(live.live);
    return () => {
      stop();
      stopState();
    };
  }, [live]);
  return connected;
}

/** Ids marked "changed elsewhere" for a few seconds after a change arrived. */
export function useChangedMarks(): [ReadonlySet<number>, (id: number) => void] {
  const [marked, setMarked] = useState<ReadonlySet<number>>(new Set());
  const mark = (id: number): void => {
    setMarked((current) => new Set([...current, id]));
    setTimeout(() => setMarked((current) => new Set([...current].filter((one) => one !== id))), 10_000);
  };
  return [marked, mark];
}
