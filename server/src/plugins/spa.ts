import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
};

declare module 'fastify' {
  interface FastifyReply {
    sendSpaIndex(): Promise<FastifyReply>;
  }
}

/**
 * Serves the built SPA from `staticDir`: files as they are (hashed /assets/ cached for a year), and
 * index.html for every other GET that accepts HTML (history-mode fallback). /config.json is the SPA's
 * runtime configuration.
 */
export const spaPlugin = fp(async (app: FastifyInstance) => {
  const root = app.config.staticDir;

  async function sendFile(reply: FastifyReply, file: string, cache: string) {
    const st = await stat(file).catch(() => null);
    if (!st?.isFile()) return false;
    const ext = path.extname(file).toLowerCase();
    reply
      .header('Content-Type', TYPES[ext] ?? 'application/octet-stream')
      .header('Content-Length', st.size)
      .header('Cache-Control', cache);
    await reply.send(createReadStream(file));
    return true;
  }

  app.decorateReply('sendSpaIndex', async function (this: FastifyReply) {
    const ok = await sendFile(this, path.join(root, 'index.html'), 'no-cache');
    if (!ok) {
      this.code(503)
        .type('text/plain; charset=utf-8')
        .send('The SPA is not built. Run `npm run build` (npm start does this for you).');
    }
    return this;
  });

  app.get('/config.json', { config: { access: 'public' } }, async (_req, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return app.config.spa;
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/*',
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const urlPath = decodeURIComponent(request.url.split('?')[0] ?? '/');
      if (urlPath.startsWith('/api/')) {
        return reply
          .code(404)
          .send({ status: 404, message: 'No such endpoint.', result: null, code: 'not_found' });
      }
      const rel = path.normalize(urlPath).replace(/^([/\\])+/, '');
      const file = path.join(root, rel);
      if (rel && file.startsWith(root + path.sep) && path.extname(rel)) {
        const cache = rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
        if (await sendFile(reply, file, cache)) return reply;
        return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
      }
      return reply.sendSpaIndex();
    },
  });
});
