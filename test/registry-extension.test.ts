// The recipe for adding a resource (docs/architecture.md), followed literally inside a test: one registry
// entry and one migration that holds only its table's DDL, nothing else touched. The app
// built with them serves the resource completely: routes, validation, references and delete
// rules, uniqueness, list totals, entity tags, and the OpenAPI document.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { connectDatabase } from '../src/db/connect.js';
import type { Migration } from '../src/db/migrations/ddl.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';
import * as types from '../src/registry/field-types.js';
import { Registry } from '../src/registry/registry.js';
import type { ResourceDefinition } from '../src/registry/resource-definition.js';
import { RESOURCES } from '../src/registry/resources.js';
import { lintOpenApiDocuments, reportIsClean } from '../scripts/lint-openapi.js';
import { build } from './support/app.js';
import { checkerFor } from './support/openapi-response-checker.js';
import { BACKEND } from './support/test-database.js';

const text = (en: string) => ({ en, fr: en });

/** The registry entry a maintainer would add to src/registry/resources.ts. */
const widgets: ResourceDefinition = {
  name: 'widgets',
  schemaName: 'Widget',
  table: 'widgets',
  description: text('Dashboard widgets of a client.'),
  fields: {
    label: { type: types.text(1, 40), column: 'label', required: true, description: text('Title of the widget.') },
    id_client: { type: types.reference('clients'), column: 'id_client', required: true, description: text('Client the widget belongs to.') },
    refresh: { type: types.integer(5, 3600), column: 'refresh_seconds', default: 60, description: text('Refresh period, in seconds.') },
  },
  unique: [{ fields: ['label'] }],
  deletion: { mode: 'hard' },
  example: { label: 'Replication lag', id_client: 99, refresh: 60 },
};

/** The migration a maintainer would add to src/db/migrations/: its own DDL only. */
const createWidgets: Migration = {
  async up(db, ddl) {
    await ddl.createEntryTableWithReferences(db, 'widgets', { id_client: { table: 'clients' } }, (table) =>
      table
        .addColumn('label', 'varchar(40)', (c) => c.notNull())
        .addColumn('refresh_seconds', 'integer', (c) => c.notNull())
        .addUniqueConstraint('widgets_label_unique', ['label']),
    );
  },
};

/** A second entry, with the field types a maintainer reaches for next: dates a request sets,
 * and a reference. */
const windows: ResourceDefinition = {
  name: 'maintenance-windows',
  schemaName: 'MaintenanceWindow',
  table: 'maintenance_windows',
  description: text('Planned maintenance of a client.'),
  fields: {
    label: { type: types.text(1, 40), column: 'label', required: true, description: text('What is done.') },
    starts_at: { type: types.dateTime(), column: 'starts_at', required: true, description: text('When it starts.') },
    ends_at: { type: types.dateTimeOrNull(), column: 'ends_at', default: null, description: text('When it ends; null: open-ended.') },
    id_client: { type: types.reference('clients'), column: 'id_client', required: true, description: text('Client whose servers are maintained.') },
  },
  unique: [],
  deletion: { mode: 'hard' },
  example: { label: 'Upgrade', starts_at: '2026-03-01T22:00:00.000Z', ends_at: null, id_client: 99 },
};

const createWindows: Migration = {
  async up(db, ddl) {
    await ddl.createEntryTableWithReferences(db, 'maintenance_windows', { id_client: { table: 'clients' } }, (table) =>
      table
        .addColumn('label', 'varchar(40)', (c) => c.notNull())
        .addColumn('starts_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('ends_at', 'varchar(32)'),
    );
  },
};

const registry = new Registry([...RESOURCES, widgets, windows]);
const migrations = { ...MIGRATIONS, '9000-widgets': createWidgets, '9001-maintenance-windows': createWindows };

/** The indexes of `table` that lead with `column`, by name, as the database lists them. */
async function indexesLeadingWith(url: string, table: string, column: string): Promise<string[]> {
  const handle = connectDatabase(url, { sqliteSynchronous: 'NORMAL', poolSize: 1, connectTimeoutMs: 3000, queryTimeoutMs: 10_000, readOnly: false });
  try {
    if (BACKEND === 'sqlite') {
      const indexes = (await sql<{ name: string }>`select name from pragma_index_list(${table})`.execute(handle.db)).rows;
      const leading = [];
      for (const { name } of indexes) {
        const first = (await sql<{ name: string }>`select name from pragma_index_info(${name}) where seqno = 0`.execute(handle.db)).rows[0];
        if (first?.name === column) leading.push(name);
      }
      return leading;
    }
    if (BACKEND === 'postgres') {
      const rows = (await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes where tablename = ${table}`.execute(handle.db)).rows;
      return rows.filter((row) => row.indexdef.includes(`(${column})`) || row.indexdef.includes(`(${column},`)).map((row) => row.indexname);
    }
    const rows = (await sql<{ Key_name: string; Column_name: string; Seq_in_index: number }>`show index from ${sql.table(table)}`.execute(handle.db)).rows;
    return rows.filter((row) => Number(row.Seq_in_index) === 1 && row.Column_name === column).map((row) => row.Key_name);
  } finally {
    await handle.db.destroy();
  }
}

/** The stored text of `columns` of one row, as the database holds it. */
async function storedColumns(url: string, table: string, id: number, columns: string[]): Promise<Record<string, unknown>> {
  const handle = connectDatabase(url, { sqliteSynchronous: 'NORMAL', poolSize: 1, connectTimeoutMs: 3000, queryTimeoutMs: 10_000, readOnly: false });
  try {
    const row = (await sql<Record<string, unknown>>`select ${sql.join(columns.map((column) => sql.ref(column)))} from ${sql.table(table)} where id = ${id}`.execute(handle.db)).rows[0];
    return { ...row };
  } finally {
    await handle.db.destroy();
  }
}

/** How SQLite runs the delete check's query (store-transaction.ts, idsReferencing). */
async function sqlitePlanOfReferencing(url: string, table: string, column: string): Promise<string> {
  const handle = connectDatabase(url, { sqliteSynchronous: 'NORMAL', poolSize: 1, connectTimeoutMs: 3000, queryTimeoutMs: 10_000, readOnly: false });
  try {
    const rows = (await sql<{ detail: string }>`explain query plan select id from ${sql.table(table)} where ${sql.ref(column)} = 1 order by id limit 10`.execute(handle.db)).rows;
    return rows.map((row) => row.detail).join('; ');
  } finally {
    await handle.db.destroy();
  }
}

describe('an eighth resource: one registry entry and one migration', () => {
  test('is served completely, and every answer is the one its document declares', async (t) => {
    const { app } = await build(t, { registry, migrations });
    const document = await app.inject({ method: 'GET', url: '/en/api/openApi' });
    const checker = checkerFor(document.body);
    const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
      const reply = await app.inject({ method: method as 'GET', url, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
      checker.check(method, url, { status: reply.statusCode, headers: new Headers(reply.headers as Record<string, string>), text: reply.body });
      return { status: reply.statusCode, headers: reply.headers, body: reply.body === '' ? undefined : reply.json() };
    };
    const WIDGETS = '/en/api/config/widgets';

    // An empty list has a total: the count row was made at start-up, not by the migration.
    assert.deepEqual((await call('GET', WIDGETS)).body, { items: [], total: 0, total_exact: true, limit: 100, offset: 0, next: null });

    const client = await call('POST', '/en/api/config/clients', { libelle: 'ACME' });
    assert.equal(client.status, 201);
    const created = await call('POST', WIDGETS, { label: ' Lag ', id_client: client.body.id });
    assert.equal(created.status, 201);
    assert.equal(created.headers.location, `/en/api/config/widgets/${created.body.id}`);
    assert.deepEqual(Object.keys(created.body.item), ['id', 'label', 'id_client', 'refresh', 'created_at', 'updated_at']);
    assert.equal(created.body.item.label, 'Lag');
    assert.equal(created.body.item.refresh, 60);

    const listed = await call('GET', `${WIDGETS}?id_client=${client.body.id}&sort=label&q=lag`);
    assert.equal(listed.body.total, 1);
    assert.equal((await call('GET', WIDGETS)).body.total, 1);

    // Validation, references and uniqueness come from the entry.
    const invalid = await call('POST', WIDGETS, { label: '', id_client: 123456, refresh: 1, colour: 'x' });
    assert.equal(invalid.status, 422);
    assert.deepEqual(invalid.body.errors.map((e: { field: string }) => e.field).sort(), ['colour', 'label', 'refresh']);
    const missing = await call('POST', WIDGETS, { label: 'Other', id_client: 123456 });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.errors[0].field, 'id_client');
    const taken = await call('POST', WIDGETS, { label: 'Lag', id_client: client.body.id });
    assert.equal(taken.status, 409);
    assert.deepEqual(taken.body.errors.map((e: { field: string }) => e.field), ['label']);

    // Entity tags, conditional requests, PATCH and PUT.
    const url = `${WIDGETS}/${created.body.id}`;
    const read = await call('GET', url);
    assert.equal((await call('GET', url, undefined, { 'if-none-match': String(read.headers.etag) })).status, 304);
    const patched = await call('PATCH', url, { refresh: 30 }, { 'if-match': String(read.headers.etag) });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.item.refresh, 30);
    assert.equal((await call('PATCH', url, { refresh: 40 }, { 'if-match': String(read.headers.etag) })).status, 412);
    const replaced = await call('PUT', url, { label: 'Lag', id_client: client.body.id });
    assert.equal(replaced.body.item.refresh, 60, 'PUT restores the default');

    // The delete rule of the resource it points at now knows it.
    const refused = await call('DELETE', `/en/api/config/clients/${client.body.id}`);
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body.referenced_by, [{ resource: 'widgets', ids: [created.body.id] }]);
    assert.deepEqual((await call('DELETE', url)).body, { id: created.body.id, deleted: true, mode: 'hard' });
    assert.equal((await call('DELETE', `/en/api/config/clients/${client.body.id}`)).status, 200);
    assert.equal((await call('GET', WIDGETS)).body.total, 0);
    assert.equal((await call('GET', url)).status, 404);
  });

  test('is in the OpenAPI document, which stays lint-clean', async (t) => {
    const { app } = await build(t, { registry, migrations });
    const en = (await app.inject({ method: 'GET', url: '/en/api/openApi' })).json();
    const fr = (await app.inject({ method: 'GET', url: '/fr/api/openApi' })).json();
    assert.ok(en.paths['/{lang}/api/config/widgets'].post);
    assert.ok(en.paths['/{lang}/api/config/widgets/{id}'].patch);
    for (const schema of ['Widget', 'WidgetCreate', 'WidgetReplace', 'WidgetPatch', 'WidgetList']) assert.ok(en.components.schemas[schema], schema);
    assert.match(en.info.description, /widgets/);
    assert.match(en.paths['/{lang}/api/config/clients/{id}'].delete.description, /widgets/);
    const reports = await lintOpenApiDocuments({ en, fr });
    for (const report of reports) assert.ok(reportIsClean(report), JSON.stringify(report));
  });

  test('dates a request sets are checked, stored as UTC to the millisecond, filtered and sorted; the reference is indexed', async (t) => {
    const { app, database } = await build(t, { registry, migrations });
    const call = async (method: string, url: string, body?: unknown) => {
      const reply = await app.inject({ method: method as 'GET', url, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) }) });
      return { status: reply.statusCode, body: reply.body === '' ? undefined : reply.json() };
    };
    const WINDOWS = '/en/api/config/maintenance-windows';
    const client = (await call('POST', '/en/api/config/clients', { libelle: 'ACME' })).body.id as number;

    for (const bad of ['banana', '2026-02-30T10:00:00Z', '2026-03-01T10:00:00', '2026-03-01', '2026-12-31T23:59:60Z', 12]) {
      const refused = await call('POST', WINDOWS, { label: 'Upgrade', starts_at: bad, id_client: client });
      assert.equal(refused.status, 422, String(bad));
      assert.equal(refused.body.code, 'VALIDATION_FAILED', String(bad));
      assert.deepEqual(refused.body.errors.map((e: { field: string }) => e.field), ['starts_at'], String(bad));
      assert.match(refused.body.errors[0].message, /ISO 8601/);
    }
    assert.deepEqual((await call('POST', WINDOWS, { label: 'Upgrade', starts_at: '2026-03-01T10:00:00Z', ends_at: 'soon', id_client: client })).body.errors.map((e: { field: string }) => e.field), ['ends_at']);
    // A value whose UTC form leaves years 0000 to 9999 would not sort as text with the others.
    assert.equal((await call('POST', WINDOWS, { label: 'Late', starts_at: '9999-12-31T23:30:00-01:00', id_client: client })).status, 422);

    const first = await call('POST', WINDOWS, { label: 'Upgrade', starts_at: '2026-03-01T23:30:00+02:00', ends_at: '2026-03-02t01:00:00.5z', id_client: client });
    assert.equal(first.status, 201);
    assert.equal(first.body.item.starts_at, '2026-03-01T21:30:00.000Z');
    assert.equal(first.body.item.ends_at, '2026-03-02T01:00:00.500Z');
    const second = await call('POST', WINDOWS, { label: 'Reboot', starts_at: '2026-02-28T08:00:00.123456Z', id_client: client });
    assert.equal(second.body.item.starts_at, '2026-02-28T08:00:00.123Z');
    assert.equal(second.body.item.ends_at, null);
    assert.deepEqual((await call('GET', `${WINDOWS}/${first.body.id}`)).body.item.starts_at, '2026-03-01T21:30:00.000Z');
    // Shown, and stored, as the service's own timestamps are.
    const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    assert.match(first.body.item.created_at, TIMESTAMP);
    const stored = await storedColumns(database.url, 'maintenance_windows', first.body.id, ['starts_at', 'ends_at', 'created_at']);
    assert.deepEqual(stored, { starts_at: '2026-03-01T21:30:00.000Z', ends_at: '2026-03-02T01:00:00.500Z', created_at: first.body.item.created_at });
    const patched = await call('PATCH', `${WINDOWS}/${second.body.id}`, { ends_at: '2026-02-28T09:00:00+00:00' });
    assert.equal(patched.body.item.ends_at, '2026-02-28T09:00:00.000Z');

    // Filters compare the instant, however the query spells it; sorts follow time.
    const filtered = await call('GET', `${WINDOWS}?starts_at=${encodeURIComponent('2026-03-01T22:30:00+01:00')}`);
    assert.deepEqual(filtered.body.items.map((item: { id: number }) => item.id), [first.body.id]);
    assert.equal((await call('GET', `${WINDOWS}?ends_at=${encodeURIComponent('2026-03-02T01:00:00.5Z')}`)).body.total, 1);
    assert.equal((await call('GET', `${WINDOWS}?starts_at=banana`)).status, 400);
    const sorted = await call('GET', `${WINDOWS}?sort=starts_at`);
    assert.deepEqual(sorted.body.items.map((item: { id: number }) => item.id), [second.body.id, first.body.id]);
    const reversed = await call('GET', `${WINDOWS}?sort=-starts_at&id_client=${client}`);
    assert.deepEqual(reversed.body.items.map((item: { id: number }) => item.id), [first.body.id, second.body.id]);

    // The document declares the dates writable, as date-times.
    const document = (await call('GET', '/en/api/openApi')).body;
    for (const schema of ['MaintenanceWindowCreate', 'MaintenanceWindow']) {
      const startsAt = document.components.schemas[schema].properties.starts_at;
      assert.equal(startsAt.format, 'date-time', schema);
      assert.equal(startsAt.readOnly, undefined, schema);
    }

    // The referenced client cannot go while windows point at it, and finding them uses an index.
    const refused = await call('DELETE', `/en/api/config/clients/${client}`);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'REFERENCED');
    assert.deepEqual(refused.body.referenced_by, [{ resource: 'maintenance-windows', ids: [first.body.id, second.body.id].sort((a, b) => a - b) }]);
    const indexes = await indexesLeadingWith(database.url, 'maintenance_windows', 'id_client');
    assert.equal(indexes.length, 1, `one index on id_client, not ${JSON.stringify(indexes)}`);
    if (BACKEND === 'sqlite') assert.match(await sqlitePlanOfReferencing(database.url, 'maintenance_windows', 'id_client'), /USING (COVERING )?INDEX/);
  });

  test('a registry entry that names what does not exist stops the start with a clear message', () => {
    const broken: ResourceDefinition = {
      ...widgets,
      fields: { ...widgets.fields, owner: { type: types.reference('owners'), column: 'owner', description: text('x') } },
      unique: [{ fields: ['labell'] }],
    };
    assert.throws(() => new Registry([...RESOURCES, broken]), /widgets\.owner points at no resource "owners".*unique rule names no field "labell"|unique rule names no field "labell".*widgets\.owner points at no resource "owners"/);
  });

  test('a field of a type that responses alone show, declared writable, stops the start with a clear message', () => {
    const writableStamp: ResourceDefinition = { ...windows, fields: { ...windows.fields, checked_at: { type: types.timestamp(), column: 'checked_at', description: text('x') } } };
    assert.throws(() => new Registry([...RESOURCES, writableStamp]), /maintenance-windows\.checked_at: its type is only ever written by the service; declare the field readOnly, or use a type a request may set \(types\.dateTime\(\) for a date\)/);
    const readOnlyStamp: ResourceDefinition = { ...windows, fields: { ...windows.fields, checked_at: { ...writableStamp.fields.checked_at!, readOnly: true } } };
    assert.doesNotThrow(() => new Registry([...RESOURCES, readOnlyStamp]));
  });

  test('links may copy only a soft-deleted owner’s flag', () => {
    const link = { table: 'widget_tags', ownerColumn: 'id_widget', targetColumn: 'id_tag', filter: 'tag', addField: 'add_tags', removeField: 'remove_tags', ownerDeletedColumn: 'owner_deleted' };
    const tagged: ResourceDefinition = { ...widgets, fields: { ...widgets.fields, tags: { type: types.referenceSet('tags', 10), column: 'tags', link, description: text('x') } } };
    assert.throws(() => new Registry([...RESOURCES, tagged]), /widgets\.tags: only the links of a soft-deleted resource copy its flag/);
  });
});
