// Platformatic DB for `npm run bench` (scripts/support/bench-peers.ts), run from the cache
// folder it was installed into: `node platformatic-server.mjs INSTALL_DIR CONFIG PORT`.
// Its own `start` command listens on 0.0.0.0 whenever it believes it runs in a container
// (/.dockerenv); the bench keeps every server on loopback, so it builds the server and
// listens itself.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [installDir, configFile, port] = process.argv.slice(2);
const require = createRequire(join(installDir, 'package.json'));
const { buildServer } = require('@platformatic/db');
const app = await buildServer(configFile);
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
