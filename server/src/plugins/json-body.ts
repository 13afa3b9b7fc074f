import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../lib/api-error';

/** Deepest nesting of arrays and objects a JSON body may have (the contract's deepest is a few levels). */
export const MAX_JSON_DEPTH = 32;

/**
 * The nesting depth of a JSON text, counted without parsing it (brackets inside strings do not count), and
 * stopping as soon as it passes `limit`.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * Request values a route never expects are refused with 400 before its handler runs. JSON bodies: Fastify's own parser (prototype-poisoning checks included), but a body nested deeper than
 * MAX_JSON_DEPTH is refused with 400 before it is parsed, so no route ever walks (stringifies, validates,
 * stores) an arbitrarily deep value. Size is bounded by the app's bodyLimit (413).
 */
export const jsonBodyPlugin = fp(async (app: FastifyInstance) => {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      done(
        new ApiError(400, 'bad_request', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`),
        undefined,
      );
      return;
    }
    parse(request, text, done);
  });

  // Ajv coerces a query or form value like "1e309" to Infinity and then lets it through every bound (its
  // coercion skips the keywords after it), so non-finite numbers are refused after validation.
  app.addHook('preHandler', async (request) => {
    if (hasNonFinite(request.query) || hasNonFinite(request.body)) {
      throw new ApiError(400, 'validation', 'Invalid request: a number in the request is not finite.');
    }
  });
});

/** Whether a parsed request value holds a number that is not finite (within a few levels). */
function hasNonFinite(v: unknown, depth = 0): boolean {
  if (typeof v === 'number') return !Number.isFinite(v);
  if (v === null || typeof v !== 'object' || depth > 4) return false;
  return Object.values(v as Record<string, unknown>).some((x) => hasNonFinite(x, depth + 1));
}
