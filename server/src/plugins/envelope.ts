import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../lib/api-error';
import type { ErrorCode } from '../../../contract/common';

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
};

/**
 * The one error handler: every error leaves as `{status, message, result: null, code}`. Client mistakes keep
 * their 4xx status and a readable message; anything else is logged in full and answered as a masked 500.
 */
export const envelopePlugin = fp(async (app: FastifyInstance) => {
  app.decorateReply('ok', function <T>(this: FastifyReply, result: T) {
    return this.code(200).send({ status: 200, message: 'OK', result });
  });

  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      return reply
        .code(err.status)
        .send({ status: err.status, message: err.message, result: null, code: err.code });
    }
    // PostgreSQL refuses NUL bytes and invalid encodings in text, and values that do not fit a column's type
    // (out of range, not a number, not a date): bad input, not a server fault. The contract bounds every
    // request integer, so these are the last line, not the first.
    const pgCode = (err as { code?: unknown }).code;
    const badText = pgCode === '22021' || pgCode === '22P05';
    if (badText || pgCode === '22003' || pgCode === '22P02' || pgCode === '22007' || pgCode === '22008') {
      return reply.code(400).send({
        status: 400,
        message: badText
          ? 'Invalid characters in the request.'
          : 'A value in the request is out of range or malformed.',
        result: null,
        code: 'bad_request',
      });
    }
    const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
    if (err.validation) {
      const message = `Invalid request: ${err.message}`.slice(0, 500);
      return reply.code(400).send({ status: 400, message, result: null, code: 'validation' });
    }
    if (status >= 400 && status < 500) {
      const code = STATUS_CODES[status] ?? 'bad_request';
      return reply.code(status).send({ status, message: err.message, result: null, code });
    }
    request.log.error({ err }, 'unhandled error');
    return reply
      .code(500)
      .send({ status: 500, message: 'Internal server error', result: null, code: 'internal' });
  });

  // Anything no route matched: an envelope for API paths and non-GET methods (the SPA's catch-all serves GETs).
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({
      status: 404,
      message: `No such endpoint: ${request.method} ${request.url.split('?')[0] ?? ''}`.slice(0, 300),
      result: null,
      code: 'not_found',
    });
  });
});
