// Decorates the app with the secret box that seals key material at rest.
import fp from 'fastify-plugin';
import type { Config } from '../../config/config.js';
import { createSecretBox, loadSecretKey, type SecretBox } from '../../secrets/secret-box.js';

declare module 'fastify' {
  interface FastifyInstance {
    secretBox: SecretBox;
  }
}

export default fp<{ config: Config }>(
  async (app, { config }) => {
    app.decorate('secretBox', createSecretBox(loadSecretKey(config.secretKey, config.secretKeyFile)));
  },
  { name: 'secret-box' },
);
