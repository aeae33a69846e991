// The ordered list of migrations. Listed explicitly (not read from a folder) so that the
// compiled service and the TypeScript sources run the very same set.
import * as initialSchema from './0001-initial-schema.js';
import * as listCountsAndIndexes from './0002-list-counts-and-indexes.js';
import * as fleetModel from './0003-fleet-model.js';
import * as apiTokens from './0004-api-tokens.js';
import * as fleetScaleLists from './0005-fleet-scale-lists.js';
import * as changeLog from './0006-change-log.js';
import * as countingIndexes from './0007-counting-indexes.js';
import * as tagLiveFlag from './0008-tag-live-flag.js';
import * as trimmedSearchIndex from './0009-trimmed-search-index.js';
import * as webhooks from './0010-webhooks.js';
import * as changeSequencer from './0011-change-sequencer.js';
import * as countShards from './0012-count-shards.js';
import * as webhookDueOrder from './0013-webhook-due-order.js';
import * as queuedSearchWrites from './0014-queued-search-writes.js';
import * as webhookDuePerWebhook from './0015-webhook-due-per-webhook.js';
import type { Migration } from './ddl.js';

export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial-schema': initialSchema,
  '0002-list-counts-and-indexes': listCountsAndIndexes,
  '0003-fleet-model': fleetModel,
  '0004-api-tokens': apiTokens,
  '0005-fleet-scale-lists': fleetScaleLists,
  '0006-change-log': changeLog,
  '0007-counting-indexes': countingIndexes,
  '0008-tag-live-flag': tagLiveFlag,
  '0009-trimmed-search-index': trimmedSearchIndex,
  '0010-webhooks': webhooks,
  '0011-change-sequencer': changeSequencer,
  '0012-count-shards': countShards,
  '0013-webhook-due-order': webhookDueOrder,
  '0014-queued-search-writes': queuedSearchWrites,
  '0015-webhook-due-per-webhook': webhookDuePerWebhook,
};
