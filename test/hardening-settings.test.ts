// The settings of the load and disk safeguards (HEAVY_QUERY_*, DISK_*): their defaults, and a
// wrong value stops the start with a message that names it.
// @backend-independent (runs once, not once per backend): reads settings only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config/config.js';

const SQLITE = { DATABASE_URL: 'sqlite:./data/config.db' };
const POSTGRES = { DATABASE_URL: 'postgres://config@127.0.0.1:5432/config' };

test('heavy work: one job at a time on SQLite, fewer than the pool elsewhere; a short queue', () => {
  const sqlite = loadConfig(SQLITE);
  assert.deepEqual([sqlite.heavyQueryConcurrency, sqlite.heavyQueryQueue, sqlite.heavyQueryWaitMs], [1, 64, 1000]);
  assert.equal(loadConfig(POSTGRES).heavyQueryConcurrency, 4);
  assert.equal(loadConfig({ ...POSTGRES, DATABASE_POOL_SIZE: '3' }).heavyQueryConcurrency, 2);
  assert.equal(loadConfig({ ...POSTGRES, DATABASE_POOL_SIZE: '1' }).heavyQueryConcurrency, 1);
  assert.equal(loadConfig({ ...SQLITE, HEAVY_QUERY_CONCURRENCY: '3' }).heavyQueryConcurrency, 3);
  assert.throws(() => loadConfig({ ...SQLITE, HEAVY_QUERY_CONCURRENCY: '0' }), /HEAVY_QUERY_CONCURRENCY must be between 1/);
});

test('disk thresholds: bytes with a unit or a percentage; 0 turns one off; anything else stops the start', () => {
  const defaults = loadConfig(SQLITE);
  assert.deepEqual([defaults.diskFloodStage, defaults.diskLowWatermark], [{ bytes: 64 * 1024 ** 2 }, { percent: 5 }]);
  const set = loadConfig({ ...SQLITE, DISK_FLOOD_STAGE: '2.5%', DISK_LOW_WATERMARK: '1GB' });
  assert.deepEqual([set.diskFloodStage, set.diskLowWatermark], [{ percent: 2.5 }, { bytes: 1024 ** 3 }]);
  assert.deepEqual(loadConfig({ ...SQLITE, DISK_FLOOD_STAGE: '4096' }).diskFloodStage, { bytes: 4096 });
  const off = loadConfig({ ...SQLITE, DISK_FLOOD_STAGE: '0', DISK_LOW_WATERMARK: '0%' });
  assert.deepEqual([off.diskFloodStage, off.diskLowWatermark], [undefined, undefined]);
  for (const wrong of ['100%', '-1', '5 percent', '1.5mb', 'lots']) {
    assert.throws(() => loadConfig({ ...SQLITE, DISK_FLOOD_STAGE: wrong }), (error: Error) => error instanceof ConfigError && error.message.startsWith('DISK_FLOOD_STAGE must'), wrong);
  }
});
