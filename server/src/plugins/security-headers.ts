import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { remoteStorageSettings } from '../lib/object-storage';

/** The origin of an http(s) URL, or null. */
function originOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * Security headers on every response, including a strict Content-Security-Policy: scripts only from this
 * origin (the Vite build has no inline script), no plugins, no framing by other sites, no base-uri tricks.
 * Extra origins for production AWS endpoints come from CSP_CONNECT_EXTRA / CSP_MEDIA_EXTRA; the public
 * endpoints of a KVS or S3 elsewhere (KVS_PUBLIC_ENDPOINT, S3_PUBLIC_ENDPOINT) are added by themselves.
 */
export const securityHeadersPlugin = fp(async (app: FastifyInstance) => {
  // Browsers reach a KVS or S3 that is not on this origin and not AWS's own (the stand-ins service) at the
  // public endpoints the configuration names: those origins are allowed without listing them again.
  const kvsPublic = originOf(app.config.aws.kvsPublicEndpoint);
  const s3Public = originOf(remoteStorageSettings().publicEndpoint);
  const connectExtra = [
    process.env.CSP_CONNECT_EXTRA ?? '',
    kvsPublic ?? '',
    kvsPublic ? kvsPublic.replace(/^http/, 'ws') : '',
    s3Public ?? '',
  ]
    .map((x) => x.trim())
    .filter(Boolean)
    .join(' ');
  const mediaExtra = [process.env.CSP_MEDIA_EXTRA ?? '', s3Public ?? '']
    .map((x) => x.trim())
    .filter(Boolean)
    .join(' ');
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:" + (mediaExtra ? ' ' + mediaExtra : ''),
    "media-src 'self' blob:" + (mediaExtra ? ' ' + mediaExtra : ''),
    "connect-src 'self'" + (connectExtra ? ' ' + connectExtra : ''),
    "font-src 'self' data:",
    "worker-src 'self'",
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('Content-Security-Policy', csp);
    reply.header('X-Content-Type-Options', 'nosniff');
    // No page of the app sends its address anywhere: a start-up URL may carry a password (spec §3 JT start-up).
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Frame-Options', 'SAMEORIGIN');
    reply.header('Cross-Origin-Opener-Policy', 'same-origin-allow-popups');
    reply.header('Permissions-Policy', 'camera=(self), microphone=(self), geolocation=(), payment=()');
    if (request.protocol === 'https')
      reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    if (request.url.startsWith('/api/')) reply.header('Cache-Control', 'no-store');
    // Stored objects (recordings) on the app's origin: never a document that could act as the app.
    if (request.url.startsWith('/s3/'))
      reply.header('Content-Security-Policy', "default-src 'none'; sandbox");
    return payload;
  });
});
