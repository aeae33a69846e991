// Plan step of the webhook endpoints (contract section 16): a create's and a PATCH's body
// checked against the webhooks' definition, as any entry's; everything else is planned as
// parsed. The URL's address is checked at execution (it takes a DNS lookup).
import { WEBHOOKS } from '../store/webhook-definition.js';
import type { WebhookRequest } from './parse-webhook-request.js';
import { validateBody } from './validate-body.js';

type Values = Readonly<Record<string, unknown>>;

export type WebhookPlan =
  | Exclude<WebhookRequest, { readonly action: 'create-webhook' | 'patch-webhook' }>
  | (Omit<Extract<WebhookRequest, { readonly action: 'create-webhook' }>, 'body'> & { readonly values: Values })
  | (Omit<Extract<WebhookRequest, { readonly action: 'patch-webhook' }>, 'body'> & { readonly values: Values });

export function planWebhookRequest(request: WebhookRequest): WebhookPlan {
  switch (request.action) {
    case 'create-webhook': {
      const { body, ...rest } = request;
      return { ...rest, values: validateBody(WEBHOOKS, body, 'create').values };
    }
    case 'patch-webhook': {
      const { body, ...rest } = request;
      return { ...rest, values: validateBody(WEBHOOKS, body, 'patch', rest.id).values };
    }
    default:
      return request;
  }
}
