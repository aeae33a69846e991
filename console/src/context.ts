// What every page reads: the texts of the page's language, the language segment of the path,
// and the tab's change stream.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { LiveFeed } from './live.js';
import type { Texts } from './texts.js';

export interface ConsoleContext {
  readonly t: Texts;
  /** 'en' or 'fr': the language of the texts and of field descriptions. */
  readonly language: 'en' | 'fr';
  readonly live: LiveFeed;
}

export const Console = createContext<ConsoleContext>(undefined as unknown as ConsoleContext);

export function useConsole(): ConsoleContext {
  return useContext(Console);
}
