// One webhook's deliveries (contract section 16): a filter by status, each delivery with its
// attempts and a redeliver button, and the cursor to the next page. The page that shows them
// (webhooks.tsx) reads them and acts.
import { useConsole } from '../context.js';
import { href, navigate } from '../router.js';
import { TableRegion } from '../ui.js';

export interface Attempt {
  at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response: string;
}

export interface Delivery {
  id: number;
  change_id: number | null;
  type: string;
  status: string;
  attempts: Attempt[];
  next_attempt_at: string | null;
}

/** One page of deliveries, newest first. */
export interface DeliveryPage {
  items: Delivery[];
  next?: string | null;
}

const STATUSES = ['pending', 'retrying', 'succeeded', 'failed'];

export function DeliveryList(props: { webhookId: number; status: string; deliveries: DeliveryPage | undefined; redeliver: (delivery: Delivery) => void }) {
  const { t } = useConsole();
  return (
    <>
      <h2>{t.deliveries}</h2>
      <form
        key={props.status}
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(`/webhooks/${props.webhookId}`, { status: String(new FormData(event.target as HTMLFormElement).get('status') ?? '') });
        }}
      >
        <div class="field">
          <label for="delivery-status">{t.status}</label>
          <select id="delivery-status" name="status">
            <option value="">{t.anyStatus}</option>
            {STATUSES.map((one) => (
              <option key={one} value={one} selected={one === props.status}>
                {one}
              </option>
            ))}
          </select>
        </div>
        <div class="buttons">
          <button type="submit">{t.apply}</button>
        </div>
      </form>
      {props.deliveries !== undefined && (
        <ol class="deliveries">
          {props.deliveries.items.length === 0 && <li>{t.noEntries}</li>}
          {props.deliveries.items.map((delivery) => (
            <li key={delivery.id} data-delivery={delivery.id}>
              <p>
                <strong>#{delivery.id}</strong> {delivery.type} — {t.status}{t.colon} <span class={`state-${delivery.status}`}>{delivery.status}</span>
                {delivery.next_attempt_at !== null && ` — ${t.nextAttempt}${t.colon} ${delivery.next_attempt_at}`}{' '}
                <button type="button" onClick={() => props.redeliver(delivery)}>
                  {t.redeliver} <span class="visually-hidden">#{delivery.id}</span>
                </button>
              </p>
              <TableRegion label={`${t.attempts} #${delivery.id}`}>
                <table>
                  <caption>{t.attempts}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t.at}</th>
                      <th scope="col">{t.status}</th>
                      <th scope="col">ms</th>
                      <th scope="col">{t.error}</th>
                      <th scope="col">{t.response}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {delivery.attempts.map((attempt, index) => (
                      <tr key={index}>
                        <td>{attempt.at}</td>
                        <td>{attempt.status_code ?? '—'}</td>
                        <td>{t.duration(attempt.duration_ms)}</td>
                        <td>{attempt.error ?? '—'}</td>
                        <td>
                          <code class="wrap">{attempt.response}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableRegion>
            </li>
          ))}
        </ol>
      )}
      {props.deliveries?.next && (
        <a class="button" href={href(`/webhooks/${props.webhookId}`, { status: props.status, after: props.deliveries.next })}>
          {t.next}
        </a>
      )}
    </>
  );
}
