import { useConsole } from '../context.js';

/** Whether the page follows the change stream, said in words (no colour alone). */
export function LiveState(props: { connected: boolean }) {
  const { t } = useConsole();
  return <p class={props.connected ? 'live on' : 'live off'}>{props.connected ? t.liveOn : t.liveOff}</p>;
}
