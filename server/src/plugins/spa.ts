import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stat } from 'node:fs/promises';
import path from 'node:path';

declare module 'fastify' {
  interface FastifyReply {
    sendSpaIndex(): Promise<FastifyReply>;
  }
}

/** Cache-Control of the content-hashed build output: a file under a name never changes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves the built SPA from `staticDir` through @fastify/static: `/assets/*` (content-hashed names) cached for
 * a year as immutable, every other file and index.html `no-cache` (revalidated through their ETag), and
 * index.html for every other GET (history-mode fallback). Where the build left `.br`/`.gz` copies
 * (vite-plugin-compression2), the one the browser accepts is sent, with `Vary: Accept-Encoding`.
 * /config.json is the SPA's runtime configuration.
 */
export const spaPlugin = fp(async (app: FastifyInstance) => {
  const root = app.config.staticDir;
  const assets = path.join(root, 'assets');

  await app.register(fastifyStatic, {
    root: assets,
    prefix: '/assets/',
    preCompressed: true,
    etag: true,
    lastModified: true,
    cacheControl: false,
    // A missing asset is a 404 (the envelope's not-found handler), never index.html.
    setHeaders: (reply, file) =>
      reply.header('Cache-Control', file.startsWith(assets + path.sep) ? IMMUTABLE : 'no-cache'),
    // The build tree may be absent (tests that never serve it; `npm run build` not yet run).
    suppressWarning: true,
  });

  /** Sends a file of the build's top level with `no-cache`; false when there is no such file. */
  async function sendTopLevel(reply: FastifyReply, rel: string): Promise<boolean> {
    const st = await stat(path.join(root, rel)).catch(() => null);
    if (!st?.isFile()) return false;
    await reply.sendFile(rel, root, { cacheControl: false, immutable: false, maxAge: 0 });
    return true;
  }

  app.decorateReply('sendSpaIndex', async function (this: FastifyReply) {
    if (!(await sendTopLevel(this, 'index.html'))) {
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
        if (!rel.includes(path.sep) && (await sendTopLevel(reply, rel))) return reply;
        return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
      }
      return reply.sendSpaIndex();
    },
  });
});
