// What the webhook benches share (bench-webhooks.ts, webhook-dead-receiver-bench.ts): the admin
// token their services are started with, requests to a service's API and metrics, waits, and a
// loopback port where nothing listens.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import type { ServiceProcess } from './service-process.js';

export const TOKEN = randomBytes(24).toString('hex');
export const AUTH = { authorization: `Bearer ${TOKEN}` };

export async function api(service: ServiceProcess, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${service.url}${path}`, { method, headers: { ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

export async function metric(service: ServiceProcess, name: string): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`, { headers: AUTH })).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A loopback port where nothing listens (connections refused). */
export async function closedPort(): Promise<number> {
  const probe = createNetServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}
