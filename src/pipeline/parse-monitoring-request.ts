// Parse step of the monitoring integrations (contract section 17): the live, monitored
// servers the query string narrows down, for Prometheus service discovery or the Ansible
// inventory. Read with a `read` token, like every GET.
import type { Registry } from '../registry/registry.js';
import type { ListQuery } from '../store/list-query.js';
import { parseTargetQuery } from './monitoring-query.js';
import type { HttpInput } from './parse-request.js';
import type { RequestTarget } from './request-target.js';

export interface MonitoringRequest {
  readonly action: 'monitoring-targets';
  readonly kind: 'prometheusTargets' | 'ansibleInventory';
  readonly list: ListQuery;
  readonly ifNoneMatch: string | undefined;
  /** HEAD: the headers a GET would have, without reading a server. */
  readonly headersOnly: boolean;
}

export const MONITORING_ENDPOINTS: ReadonlySet<string> = new Set(['prometheusTargets', 'ansibleInventory']);

export function parseMonitoringRequest(registry: Registry, target: RequestTarget, input: HttpInput): MonitoringRequest {
  // The servers are there: the start checked it (monitoringResources, app.ts).
  const servers = registry.find('servers')!;
  return {
    action: 'monitoring-targets',
    kind: target.endpoint as MonitoringRequest['kind'],
    list: parseTargetQuery(servers, input.query),
    ifNoneMatch: input.ifNoneMatch,
    headersOnly: input.method === 'HEAD',
  };
}
