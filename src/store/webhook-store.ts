// Storage of the webhooks (contract section 16). A webhook is an entry of WEBHOOKS, written,
// read, listed and removed by the registry-driven store like any entry (unique name, list
// totals, a change record of resource `webhooks`); what is the webhooks' own lives here: the
// signing secret (and the one before the last rotation, signed with too for a day) and the
// extra headers' values, sealed with SECRET_KEY in columns beside the fields, never in an
// entry, an answer or a change record.
import { randomUUID } from 'node:crypto';
import type { DatabaseHandle } from '../db/connect.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Author } from './change-log.js';
import { rolledBackIf } from './dry-run.js';
import type { Entry } from './entry-rows.js';
import type { ResourceStore } from './resource-store.js';
import type { StoreTransaction } from './store-transaction.js';
import { refuseUnlessIfMatchHolds } from './entity-tag.js';
import { WEBHOOKS } from './webhook-definition.js';

/** How long the secret before a rotation still signs deliveries. */
export const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;
const SECRET_CONTEXT = 'webhooks.secret';
const PREVIOUS_CONTEXT = 'webhooks.previous_secret';
const HEADERS_CONTEXT = 'webhooks.header_values';
/** The actor of the changes the service makes on its own (an auto-disable), in the change log. */
export const SERVICE_ACTOR = 'service:webhooks';

/** What an attempt needs of its webhook. */
export interface WebhookTarget {
  readonly id: number;
  readonly url: string;
  readonly enabled: boolean;
  /** The secrets to sign with: the current one, then the previous one for a day. */
  readonly secrets: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
}

export class WebhookStore {
  /** Enabled webhooks as last counted (countEnabled); undefined before the first count or
   * after a count failed. */
  private enabled: number | undefined;
  /** Counts asked and applied: a count that ends after a later one is not applied. */
  private countsAsked = 0;
  private countApplied = 0;

  constructor(
    private readonly handle: DatabaseHandle,
    readonly entries: ResourceStore,
    private readonly box: SecretBox,
  ) {}

  /** Runs a write's transaction; a dry run (contract section 12) makes every check and write of
   * it, then rolls it all back, change record included, and resolves to what it would have. */
  private async write<T>(work: (tx: StoreTransaction) => Promise<T>, author: Author, dryRun: boolean): Promise<T> {
    const result = await rolledBackIf(dryRun, (run) => this.entries.transaction(run, author), work);
    // Counted again before the answer: a change written after it sees the webhook.
    if (!dryRun) await this.countEnabled();
    return result;
  }

  /** False only while no webhook is enabled, as counted after this process's last webhook
   * write or at the dispatcher's last poll (which learns of other instances' writes): then a
   * commit's changes need no look at the change log from this process. Unknown counts as true. */
  get mayDeliver(): boolean {
    return this.enabled !== 0;
  }

  /** Counts the enabled webhooks again; a failed count leaves the number unknown. */
  async countEnabled(): Promise<void> {
    const asked = ++this.countsAsked;
    let counted: number | undefined;
    try {
      const row = await this.handle.db.selectFrom('webhooks').select((eb) => eb.fn.countAll().as('count')).where('enabled', '=', 1).executeTakeFirstOrThrow();
      counted = Number(row.count);
    } catch {
      counted = undefined;
    }
    if (asked < this.countApplied) return;
    this.countApplied = asked;
    this.enabled = counted;
  }

  /** Which of the webhooks `ids` exist and are enabled (the others' holds are forgotten). */
  async enabledAmong(ids: readonly number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.handle.db.selectFrom('webhooks').select('id').where('id', 'in', ids).where('enabled', '=', 1).execute();
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** The stored header values of webhook `id`, as headersText gives them. */
  private async storedHeadersText(tx: StoreTransaction, id: number): Promise<string> {
    const row = await tx.tx.selectFrom('webhooks').select('header_values').where('id', '=', id).executeTakeFirst();
    return headersText(this.openHeaders(row?.header_values ?? null));
  }

  /** The header values as stored (sealHeaders' inverse). */
  private openHeaders(sealed: string | null): Record<string, string> {
    return sealed === null ? {} : (JSON.parse(this.box.open(sealed, HEADERS_CONTEXT)) as Record<string, string>);
  }

  private sealHeaders(headers: Record<string, string>): string | null {
    return Object.keys(headers).length === 0 ? null : this.box.seal(JSON.stringify(headers), HEADERS_CONTEXT);
  }

  /** Stores a new webhook and its change record; throws UniqueConflict when the name is taken. */
  async create(values: Record<string, unknown>, secret: string, author: Author, dryRun = false): Promise<Entry> {
    return this.write(async (tx) => {
      const last = await tx.tx.selectFrom('change_log_state').select('last_id').where('id', '=', 1).executeTakeFirstOrThrow();
      const now = new Date().toISOString();
      const headers = values.headers as Record<string, string>;
      const entry = await tx.insert(WEBHOOKS, { ...values, failing_since: null, disabled_reason: null }, now, {
        secret: this.box.seal(secret, SECRET_CONTEXT),
        header_values: this.sealHeaders(headers),
        since_change_id: Number(last.last_id),
      });
      tx.recordChange({ action: 'create', resource: WEBHOOKS, entryId: entry.id, before: null, after: entry, secretsChanged: ['secret', ...(Object.keys(headers).length > 0 ? ['headers'] : [])] });
      return entry;
    }, author, dryRun);
  }

  /** Changes a webhook (a PATCH); undefined if there is none. Enabling it again clears why it
   * was disabled and since when it failed: deliveries resume. A PATCH that changes nothing
   * writes nothing and records no change (contract section 12). */
  async update(id: number, values: Record<string, unknown>, author: Author, ifMatch?: string, dryRun = false): Promise<Entry | undefined> {
    return this.write(async (tx) => {
      const existing = await tx.lockForWrite(WEBHOOKS, id);
      if (existing === undefined) return undefined;
      refuseUnlessIfMatchHolds(ifMatch, existing);
      const now = new Date().toISOString();
      const changed = { ...values };
      if (values.enabled === true && existing.enabled !== true) Object.assign(changed, { failing_since: null, disabled_reason: null });
      // Header values are write-only: the stored ones are opened to tell whether the ones sent
      // differ, so that sending the same again is a no-op like any other (contract section 12).
      let headers = values.headers as Record<string, string> | undefined;
      if (headers !== undefined && (await this.storedHeadersText(tx, id)) === headersText(headers)) {
        headers = undefined;
        delete changed.headers;
      }
      if (headers === undefined && Object.entries(changed).every(([name, value]) => JSON.stringify(value) === JSON.stringify(existing[name]))) return existing;
      const entry = await tx.update(WEBHOOKS, existing, changed, now);
      if (headers !== undefined) await tx.tx.updateTable('webhooks').set({ header_values: this.sealHeaders(headers) }).where('id', '=', id).execute();
      tx.recordChange({ action: 'update', resource: WEBHOOKS, entryId: id, before: existing, after: entry, secretsChanged: headers === undefined ? [] : ['headers'] });
      return entry;
    }, author, dryRun);
  }

  /** Removes a webhook for good, with its deliveries; false if there is none. */
  async remove(id: number, author: Author, ifMatch?: string, dryRun = false): Promise<boolean> {
    return this.write(async (tx) => {
      const entry = await tx.lockForWrite(WEBHOOKS, id);
      if (entry === undefined) return false;
      refuseUnlessIfMatchHolds(ifMatch, entry);
      await tx.remove(WEBHOOKS, id);
      await tx.tx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
      tx.recordChange({ action: 'delete', resource: WEBHOOKS, entryId: id, before: entry, after: null, secretsChanged: [] });
      return true;
    }, author, dryRun);
  }

  /** A new signing secret; the one it replaces still signs for PREVIOUS_SECRET_MS. */
  async rotate(id: number, secret: string, author: Author, dryRun = false): Promise<boolean> {
    return this.write(async (tx) => {
      const entry = await tx.lockForWrite(WEBHOOKS, id);
      if (entry === undefined) return false;
      const row = await tx.tx.selectFrom('webhooks').select('secret').where('id', '=', id).executeTakeFirstOrThrow();
      const previous = this.box.open(row.secret, SECRET_CONTEXT);
      const now = Date.now();
      await tx.tx
        .updateTable('webhooks')
        .set({
          secret: this.box.seal(secret, SECRET_CONTEXT),
          previous_secret: this.box.seal(previous, PREVIOUS_CONTEXT),
          previous_secret_until: new Date(now + PREVIOUS_SECRET_MS).toISOString(),
        })
        .where('id', '=', id)
        .execute();
      tx.recordChange({ action: 'update', resource: WEBHOOKS, entryId: id, before: entry, after: entry, secretsChanged: ['secret'] });
      return true;
    }, author, dryRun);
  }

  /** What an attempt needs of webhook `id`, secrets and header values opened; undefined if gone. */
  async target(id: number): Promise<WebhookTarget | undefined> {
    return (await this.targets([id])).get(id);
  }

  /** What attempts need of the webhooks `ids`, read at once for a claimed batch; a webhook
   * deleted meanwhile is absent. */
  async targets(ids: readonly number[]): Promise<Map<number, WebhookTarget>> {
    const found = new Map<number, WebhookTarget>();
    if (ids.length === 0) return found;
    const rows = await this.handle.db
      .selectFrom('webhooks')
      .select(['id', 'url', 'enabled', 'secret', 'previous_secret', 'previous_secret_until', 'header_values'])
      .where('id', 'in', ids)
      .execute();
    const now = new Date().toISOString();
    for (const row of rows) {
      const secrets = [this.box.open(row.secret, SECRET_CONTEXT)];
      if (row.previous_secret !== null && row.previous_secret_until !== null && row.previous_secret_until > now) {
        secrets.push(this.box.open(row.previous_secret, PREVIOUS_CONTEXT));
      }
      const headers = this.openHeaders(row.header_values);
      found.set(Number(row.id), { id: Number(row.id), url: row.url, enabled: Number(row.enabled) === 1, secrets, headers });
    }
    return found;
  }

  /** After attempts of their deliveries, by webhook (`true`: the last attempt succeeded): a
   * success clears `failing_since`, a failure sets it if unset. Resolves to the webhooks that
   * failed long enough to be disabled (see disableFailing). */
  async recordHealth(outcomes: ReadonlyMap<number, boolean>, disableAfterMs: number): Promise<number[]> {
    const now = new Date();
    const db = this.handle.db;
    const healthy = [...outcomes].filter(([, succeeded]) => succeeded).map(([id]) => id);
    const failing = [...outcomes].filter(([, succeeded]) => !succeeded).map(([id]) => id);
    if (healthy.length > 0) await db.updateTable('webhooks').set({ failing_since: null }).where('id', 'in', healthy).where('failing_since', 'is not', null).execute();
    if (failing.length === 0) return [];
    await db.updateTable('webhooks').set({ failing_since: now.toISOString() }).where('id', 'in', failing).where('failing_since', 'is', null).execute();
    const due = await db
      .selectFrom('webhooks')
      .select('id')
      .where('id', 'in', failing)
      .where('enabled', '=', 1)
      .where('failing_since', '<=', new Date(now.getTime() - disableAfterMs).toISOString())
      .execute();
    return due.map((row) => Number(row.id));
  }

  /** Disables webhook `id` if it is still enabled and failing since `disableAfterMs` ago, as any
   * change is made: `updated_at` and the ETag move and a change record of resource `webhooks`
   * says so, made by SERVICE_ACTOR. Resolves to the disabled entry, or undefined. */
  async disableFailing(id: number, disableAfterMs: number): Promise<Entry | undefined> {
    const disabled = await this.entries.transaction(async (tx) => {
      const existing = await tx.lockForWrite(WEBHOOKS, id);
      const since = existing?.failing_since;
      if (existing === undefined || existing.enabled !== true || typeof since !== 'string') return undefined;
      const now = new Date();
      if (Date.parse(since) > now.getTime() - disableAfterMs) return undefined;
      const hours = Math.round((disableAfterMs / 3_600_000) * 1000) / 1000;
      const entry = await tx.update(WEBHOOKS, existing, { enabled: false, disabled_reason: `every delivery failed for ${hours} h (WEBHOOK_DISABLE_AFTER_HOURS)` }, now.toISOString());
      tx.recordChange({ action: 'update', resource: WEBHOOKS, entryId: id, before: existing, after: entry, secretsChanged: [] });
      return entry;
    }, { actor: SERVICE_ACTOR, requestId: randomUUID() });
    if (disabled !== undefined) await this.countEnabled();
    return disabled;
  }
}

/** A set of headers as one text, whatever the order of its names: two sets are the same when
 * their texts are. */
function headersText(headers: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
