// Webhooks (contract section 16, admin tokens): the list, create (the signing secret shown
// once, never kept), enable and disable, delete, and one webhook's deliveries with their
// attempts (webhook-deliveries.tsx), redeliver and ping.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Problem, request, type ListAnswer } from '../api.js';
import { useConsole } from '../context.js';
import { RESOURCES } from '../resources.js';
import { href, navigate, useRoute } from '../router.js';
import { DeleteButton, focusHeading, Heading, ProblemView, Status, TableRegion } from '../ui.js';
import { DeliveryList, type Attempt, type Delivery, type DeliveryPage } from './webhook-deliveries.js';

interface Webhook {
  id: number;
  name: string;
  url: string;
  resources: string[];
  actions: string[];
  enabled: boolean;
  headers?: string[] | Record<string, unknown>;
  failing_since: string | null;
  disabled_reason: string | null;
}

const ACTIONS = ['create', 'update', 'delete', 'restore'];

function AdminOnly(props: { problem: unknown }) {
  const { t } = useConsole();
  if (props.problem instanceof Problem && props.problem.status === 403) return <p class="problem" role="alert">{t.webhooksAdmin} {props.problem.detail}</p>;
  return <ProblemView problem={props.problem} />;
}

function headerLines(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function WebhookForm(props: { created: (secret: string, id: number) => void }) {
  const { t } = useConsole();
  const [problem, setProblem] = useState<unknown>(undefined);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const formElement = event.target as HTMLFormElement;
    const form = new FormData(formElement);
    const headersText = String(form.get('headers') ?? '');
    const body: Record<string, unknown> = {
      name: String(form.get('name') ?? ''),
      url: String(form.get('url') ?? ''),
      resources: form.getAll('resources').map(String),
      actions: form.getAll('actions').map(String),
      enabled: form.get('enabled') === 'on',
    };
    if (headersText.trim() !== '') body.headers = headerLines(headersText);
    try {
      const answer = await request<{ id: number; secret: string }>('POST', '/webhooks', { body });
      // Header values are write-only: not kept in the form either.
      formElement.reset();
      props.created(answer.body.secret, answer.body.id);
    } catch (error) {
      setProblem(error);
    }
  };
  return (
    <form class="entry-form" onSubmit={submit} aria-labelledby="new-webhook">
      <h2 id="new-webhook">{t.newEntry}</h2>
      <ProblemView problem={problem} />
      <div class="field">
        <label for="webhook-name">{t.name}</label>
        <input id="webhook-name" name="name" required maxLength={100} />
      </div>
      <div class="field">
        <label for="webhook-url">{t.url}</label>
        <input id="webhook-url" name="url" type="url" required maxLength={2048} />
      </div>
      <fieldset class="field">
        <legend>{t.resources}</legend>
        {RESOURCES.map((resource) => (
          <label class="choice" key={resource.name}>
            <input type="checkbox" name="resources" value={resource.name} /> {resource.name}
          </label>
        ))}
      </fieldset>
      <fieldset class="field">
        <legend>{t.actionsFilter}</legend>
        {ACTIONS.map((action) => (
          <label class="choice" key={action}>
            <input type="checkbox" name="actions" value={action} /> {action}
          </label>
        ))}
      </fieldset>
      <div class="field check">
        <input id="webhook-enabled" name="enabled" type="checkbox" defaultChecked />
        <label for="webhook-enabled">{t.enabled}</label>
      </div>
      <div class="field">
        <label for="webhook-headers">{t.headers}</label>
        <textarea id="webhook-headers" name="headers" rows={3} autoComplete="off" spellcheck={false} />
      </div>
      <div class="buttons">
        <button type="submit" class="primary">
          {t.create}
        </button>
      </div>
    </form>
  );
}

/** The secret, shown once: it lives in this component's state until the user dismisses it. */
function SecretOnce(props: { secret: string; dismiss: () => void }) {
  const { t } = useConsole();
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);
  return (
    <div class="secret" role="alert">
      <label for="webhook-secret">{t.secretOnce}</label>
      <input id="webhook-secret" ref={field} readOnly value={props.secret} autoComplete="off" spellcheck={false} />
      <button type="button" onClick={props.dismiss}>
        {t.secretSaved}
      </button>
    </div>
  );
}

export function WebhookList() {
  const { t } = useConsole();
  const [hooks, setHooks] = useState<Webhook[] | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [reloads, setReloads] = useState(0);
  // Paged by the list's cursor, like the deliveries: past the first hundred, none is out of reach.
  const after = useRoute().params.get('after') ?? '';
  const [next, setNext] = useState<string | null>(null);
  useEffect(() => {
    // Next then Back quickly: only the page now asked for may show its hooks and its next.
    let current = true;
    request<ListAnswer<Webhook>>('GET', `/webhooks?limit=100${after === '' ? '' : `&after=${encodeURIComponent(after)}`}`)
      .then((answer) => {
        if (!current) return;
        setHooks(answer.body.items);
        setNext(answer.body.next ?? null);
      })
      .catch((error: unknown) => current && setProblem(error));
    return () => {
      current = false;
    };
  }, [reloads, after]);
  const toggle = async (hook: Webhook): Promise<void> => {
    try {
      await request('PATCH', `/webhooks/${hook.id}`, { body: { enabled: !hook.enabled } });
      setReloads((count) => count + 1);
    } catch (error) {
      setProblem(error);
    }
  };
  return (
    <section>
      <Heading>{t.webhooksTitle}</Heading>
      <AdminOnly problem={problem} />
      {secret !== undefined && (
        <SecretOnce
          secret={secret}
          dismiss={() => {
            focusHeading();
            setSecret(undefined);
          }}
        />
      )}
      {hooks !== undefined && (
        <TableRegion label={t.webhooksTitle}>
          <table class="list webhooks">
            <thead>
              <tr>
                <th scope="col">{t.name}</th>
                <th scope="col">{t.url}</th>
                <th scope="col">{t.enabled}</th>
                <th scope="col">{t.failingSince}</th>
                <th scope="col">{t.actions}</th>
              </tr>
            </thead>
            <tbody>
              {hooks.length === 0 && (
                <tr>
                  <td colSpan={5}>{t.noEntries}</td>
                </tr>
              )}
              {hooks.map((hook) => (
                <tr key={hook.id} data-id={hook.id}>
                  <td>
                    <a href={href(`/webhooks/${hook.id}`)}>{hook.name}</a>
                  </td>
                  <td class="wrap">{hook.url}</td>
                  <td>
                    {t.yesNo(hook.enabled)}
                    {hook.disabled_reason !== null && ` (${hook.disabled_reason})`}
                  </td>
                  <td>{hook.failing_since ?? '—'}</td>
                  <td class="row-actions">
                    <button type="button" onClick={() => toggle(hook)}>
                      {hook.enabled ? t.disable : t.enable} <span class="visually-hidden">{hook.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      {next !== null && (
        <a class="button" href={href('/webhooks', { after: next })}>
          {t.next}
        </a>
      )}
      {!(problem instanceof Problem && problem.status === 403) && (
        <WebhookForm
          created={(value) => {
            setSecret(value);
            setReloads((count) => count + 1);
          }}
        />
      )}
    </section>
  );
}

export function WebhookPage(props: { id: number }) {
  const { t } = useConsole();
  const route = useRoute();
  const status = route.params.get('status') ?? '';
  const after = route.params.get('after') ?? '';
  const [hook, setHook] = useState<Webhook | undefined>(undefined);
  const [deliveries, setDeliveries] = useState<DeliveryPage | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  const [message, setMessage] = useState('');
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    request<{ item: Webhook }>('GET', `/webhooks/${props.id}`)
      .then((answer) => setHook(answer.body.item))
      .catch(setProblem);
    const search = new URLSearchParams({ limit: '50' });
    if (status !== '') search.set('status', status);
    if (after !== '') search.set('after', after);
    request<DeliveryPage>('GET', `/webhooks/${props.id}/deliveries?${search}`)
      .then((answer) => setDeliveries(answer.body))
      .catch(setProblem);
  }, [props.id, status, after, reloads]);

  const act = async (run: () => Promise<string>): Promise<void> => {
    setProblem(undefined);
    try {
      setMessage(await run());
      setReloads((count) => count + 1);
    } catch (error) {
      setProblem(error);
    }
  };
  const ping = (): Promise<void> =>
    act(async () => {
      const answer = await request<Record<string, unknown>>('POST', `/webhooks/${props.id}/ping`);
      const body = answer.body;
      const attempt = (body.attempts as Attempt[] | undefined)?.at(-1) ?? (body as unknown as Attempt);
      return t.pingResult(String(body.status ?? attempt.status_code ?? attempt.error ?? ''));
    });
  const redeliver = (delivery: Delivery): Promise<void> =>
    act(async () => {
      await request('POST', `/webhooks/${props.id}/deliveries/${delivery.id}/redeliver`);
      return t.redelivered;
    });
  const toggle = (): Promise<void> =>
    act(async () => {
      await request('PATCH', `/webhooks/${props.id}`, { body: { enabled: !(hook?.enabled ?? false) } });
      return t.saved;
    });
  const remove = async (): Promise<void> => {
    try {
      await request('DELETE', `/webhooks/${props.id}`);
      navigate('/webhooks');
    } catch (error) {
      setProblem(error);
    }
  };

  return (
    <section>
      <p class="breadcrumb">
        <a href={href('/webhooks')}>{t.webhooksTitle}</a>
      </p>
      <Heading>{hook === undefined ? `${t.webhooksTitle} #${props.id}` : hook.name}</Heading>
      <Status>{message}</Status>
      <AdminOnly problem={problem} />
      {hook !== undefined && (
        <>
          <dl class="facts">
            <dt>{t.url}</dt>
            <dd class="wrap">{hook.url}</dd>
            <dt>{t.enabled}</dt>
            <dd>{t.yesNo(hook.enabled)}</dd>
            <dt>{t.resources}</dt>
            <dd>{hook.resources.join(', ') || '—'}</dd>
            <dt>{t.actionsFilter}</dt>
            <dd>{hook.actions.join(', ') || '—'}</dd>
            {hook.failing_since !== null && (
              <>
                <dt>{t.failingSince}</dt>
                <dd>{hook.failing_since}</dd>
              </>
            )}
            {hook.disabled_reason !== null && (
              <>
                <dt>{t.disabledReason}</dt>
                <dd>{hook.disabled_reason}</dd>
              </>
            )}
          </dl>
          <div class="buttons">
            <button type="button" onClick={toggle}>
              {hook.enabled ? t.disable : t.enable}
            </button>
            <button type="button" onClick={ping}>
              {t.ping}
            </button>
            <DeleteButton onDelete={remove} />
          </div>
        </>
      )}
      <DeliveryList webhookId={props.id} status={status} deliveries={deliveries} redeliver={redeliver} />
    </section>
  );
}
