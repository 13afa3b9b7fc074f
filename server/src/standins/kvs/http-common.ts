import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { KvsError, invalidArgument } from './errors';

const EXPOSED = 'x-amzn-requestid, x-amzn-errortype';

const rawBodies = new WeakMap<FastifyRequest, string>();

/** The request body as received (for recomputing a SigV4 signature); '' when there was none. */
export function rawBodyOf(request: FastifyRequest): string {
  return rawBodies.get(request) ?? '';
}

/** Sends a KvsError as the restJson1 APIs do: status, `x-amzn-errortype`, `{"Message": ...}`. */
export function sendKvsError(reply: FastifyReply, err: KvsError): FastifyReply {
  return reply
    .code(err.status)
    .header('x-amzn-errortype', err.type)
    .type('application/json')
    .send({ Message: err.message });
}

/**
 * Scope-wide plumbing for the stand-in's routes (call inside an encapsulated child): a body parser that takes
 * JSON under any content type or none, AWS-shaped errors instead of the /api envelope, a request id and CORS
 * (media-stack.md §2: reflect the requested headers, expose x-amzn-requestid and x-amzn-errortype).
 */
export function useAwsConventions(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    rawBodies.set(request, text);
    if (text.trim() === '') return done(null, {});
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return done(invalidArgument('The request body must be a JSON object.'), undefined);
      }
      done(null, parsed);
    } catch {
      done(invalidArgument('The request body is not valid JSON.'), undefined);
    }
  });

  scope.setErrorHandler((err: FastifyError | KvsError, request, reply) => {
    if (err instanceof KvsError) return sendKvsError(reply, err);
    const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
    if (status < 500) {
      return reply
        .code(status)
        .header('x-amzn-errortype', 'InvalidArgumentException')
        .send({ Message: err.message });
    }
    request.log.error({ err }, 'kvs stand-in error');
    return reply
      .code(500)
      .header('x-amzn-errortype', 'InternalFailure')
      .send({ Message: 'Internal failure.' });
  });

  scope.addHook('onRequest', async (request, reply) => {
    reply.header('x-amzn-RequestId', randomUUID());
    const origin = request.headers.origin;
    if (origin) {
      reply
        .header('Access-Control-Allow-Origin', origin)
        .header('Vary', 'Origin')
        .header('Access-Control-Expose-Headers', EXPOSED);
    }
  });
}

/** Answers CORS preflights under `prefix` (SigV4 travels in headers, so no cookies and no credentials mode). */
export function addPreflight(scope: FastifyInstance, prefix: string): void {
  scope.options(`${prefix}/*`, async (request, reply) => {
    const requested = request.headers['access-control-request-headers'];
    reply
      .code(204)
      .header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS')
      .header('Access-Control-Max-Age', '600')
      .header('Vary', 'Origin, Access-Control-Request-Headers');
    if (!request.headers.origin) reply.header('Access-Control-Allow-Origin', '*');
    if (typeof requested === 'string' && requested !== '')
      reply.header('Access-Control-Allow-Headers', requested);
    return reply.send();
  });
}
