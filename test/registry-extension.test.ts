// The recipe for adding a resource (docs/architecture.md), followed literally inside a test: one registry
// entry and one migration that holds only its table's DDL, nothing else touched. The app
// built with them serves the resource completely: routes, validation, references and delete
// rules, uniqueness, list totals, entity tags, and the OpenAPI document.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Migration } from '../src/db/migrations/ddl.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';
import * as types from '../src/registry/field-types.js';
import { Registry } from '../src/registry/registry.js';
import type { ResourceDefinition } from '../src/registry/resource-definition.js';
import { RESOURCES } from '../src/registry/resources.js';
import { lintOpenApiDocuments, reportIsClean } from '../scripts/lint-openapi.js';
import { build } from './support/app.js';
import { checkerFor } from './support/openapi-response-checker.js';

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
    await ddl
      .createEntryTable(db, 'widgets', (table) =>
        table
          .addColumn('label', 'varchar(40)', (c) => c.notNull())
          .addColumn('id_client', 'integer', (c) => c.notNull().references('clients.id'))
          .addColumn('refresh_seconds', 'integer', (c) => c.notNull())
          .addUniqueConstraint('widgets_label_unique', ['label']),
      )
      .execute();
  },
};

const registry = new Registry([...RESOURCES, widgets]);
const migrations = { ...MIGRATIONS, '9000-widgets': createWidgets };

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

  test('a registry entry that names what does not exist stops the start with a clear message', () => {
    const broken: ResourceDefinition = {
      ...widgets,
      fields: { ...widgets.fields, owner: { type: types.reference('owners'), column: 'owner', description: text('x') } },
      unique: [{ fields: ['labell'] }],
    };
    assert.throws(() => new Registry([...RESOURCES, broken]), /widgets\.owner points at no resource "owners".*unique rule names no field "labell"|unique rule names no field "labell".*widgets\.owner points at no resource "owners"/);
  });

  test('links may copy only a soft-deleted owner’s flag', () => {
    const link = { table: 'widget_tags', ownerColumn: 'id_widget', targetColumn: 'id_tag', filter: 'tag', addField: 'add_tags', removeField: 'remove_tags', ownerDeletedColumn: 'owner_deleted' };
    const tagged: ResourceDefinition = { ...widgets, fields: { ...widgets.fields, tags: { type: types.referenceSet('tags', 10), column: 'tags', link, description: text('x') } } };
    assert.throws(() => new Registry([...RESOURCES, tagged]), /widgets\.tags: only the links of a soft-deleted resource copy its flag/);
  });
});
