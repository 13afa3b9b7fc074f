/*
 * Service worker (spec §2 start-up check 2). Small on purpose:
 * - navigations: network first; a successful HTML page is kept as the app shell, and the cached shell is the
 *   offline fallback (every route of the SPA is the same index.html);
 * - /assets/ (content-hashed build files): cache first, since a hashed name never changes content;
 * - everything else, and always /api/, /s3/, /kvs, /s/ (short-URL redirects) and /config.json: not touched,
 *   so the browser goes to the network as if there were no service worker.
 */
const VERSION = 'v1';
const SHELL_CACHE = `shell-${VERSION}`;
const ASSET_CACHE = `assets-${VERSION}`;
const SHELL_KEY = '/';
const NEVER = ['/api/', '/s3/', '/kvs', '/s/', '/config.json', '/demo-exam'];

/**
 * What the worker never answers does not reach it at all where the browser has static routing (Chromium 123+):
 * no worker start-up on an API call's path, and a request a page sends with keepalive as it goes away (logout,
 * kick_out DISCONNECT, phone/leave) is not lost: dispatched to a worker that was still starting, Chromium
 * dropped such requests once the page was gone. Elsewhere the fetch handler below lets them through as before.
 */
function bypassRoutes(event) {
  if (typeof event.addRoutes !== 'function') return Promise.resolve();
  return Promise.resolve()
    .then(() =>
      event.addRoutes(NEVER.map((p) => ({ condition: { urlPattern: `${p}*` }, source: 'network' }))),
    )
    .catch(() => undefined);
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    bypassRoutes(event)
      .then(() => caches.open(SHELL_CACHE))
      .then((cache) => cache.add(SHELL_KEY))
      // The shell is also cached on the first navigation; an install must not fail because of it.
      .catch(() => undefined)
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(keys.filter((k) => k !== SHELL_CACHE && k !== ASSET_CACHE).map((k) => caches.delete(k))),
      )
      .then(() => self.clients.claim()),
  );
});

function isCacheableHtml(res) {
  const type = res.headers.get('Content-Type') || '';
  return res.ok && res.type === 'basic' && !res.redirected && type.includes('text/html');
}

async function networkFirstNavigation(request) {
  try {
    const res = await fetch(request);
    if (isCacheableHtml(res)) {
      const cache = await caches.open(SHELL_CACHE);
      await cache.put(SHELL_KEY, res.clone());
    }
    return res;
  } catch (err) {
    const cached = await caches.match(SHELL_KEY, { cacheName: SHELL_CACHE });
    if (cached) return cached;
    throw err;
  }
}

async function cacheFirstAsset(request) {
  const cache = await caches.open(ASSET_CACHE);
  const cached = await cache.match(request);
  if (cached) return cached;
  const res = await fetch(request);
  if (res.ok && res.type === 'basic') await cache.put(request, res.clone());
  return res;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (NEVER.some((p) => url.pathname.startsWith(p))) return;
  if (request.mode === 'navigate') {
    event.respondWith(networkFirstNavigation(request));
  } else if (url.pathname.startsWith('/assets/')) {
    event.respondWith(cacheFirstAsset(request));
  }
});
