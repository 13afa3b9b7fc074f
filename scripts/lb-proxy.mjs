// A tiny load balancer for the scale layer (scripts/scale.mjs) and the benchmark (bench/matching-scale.mjs):
// round-robin over its backends, or sticky to the backend a `scale_backend=<name>` cookie names (what an
// ALB's or nginx's sticky sessions do), failing over to the next live backend when the chosen one refuses
// the connection. Like nginx's proxy_next_upstream default, a request that already reached a backend is
// retried elsewhere only when it is a GET or HEAD; otherwise the browser gets 502. Every answer says which
// backend served it (X-Served-By), so tests can see where an examinee's calls went.
import http from 'node:http';

/**
 * Starts the proxy on host:port (port 0: a free one). `backends` maps names to `http://host:port` origins.
 * Resolves to { url, port, served, close() }; `served` counts answers per backend name.
 */
export async function startProxy({ host = '127.0.0.1', port = 0, backends }) {
  const names = Object.keys(backends);
  const agents = Object.fromEntries(
    names.map((n) => [n, new http.Agent({ keepAlive: true, maxSockets: 256 })]),
  );
  const served = Object.fromEntries(names.map((n) => [n, 0]));
  let next = 0;

  const order = (req) => {
    const sticky = /(?:^|;\s*)scale_backend=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const first = sticky && names.includes(sticky) ? sticky : names[next++ % names.length];
    return [first, ...names.filter((n) => n !== first)];
  };

  const forward = (req, body, res, candidates) => {
    const name = candidates[0];
    if (!name) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('no backend answered');
      return;
    }
    const target = new URL(backends[name]);
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
        agent: agents[name],
      },
      (up) => {
        served[name] += 1;
        res.writeHead(up.statusCode ?? 502, { ...up.headers, 'x-served-by': name });
        up.pipe(res);
        up.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (err) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const retry =
        err.code === 'ECONNREFUSED' ||
        err.code === 'EHOSTUNREACH' ||
        req.method === 'GET' ||
        req.method === 'HEAD';
      if (retry) forward(req, body, res, candidates.slice(1));
      else {
        res.writeHead(502, { 'content-type': 'text/plain', 'x-served-by': name });
        res.end(`backend ${name} failed: ${err.code ?? err.message}`);
      }
    });
    upstream.end(body);
  };

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => forward(req, Buffer.concat(chunks), res, order(req)));
    req.on('error', () => res.destroy());
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const actual = server.address().port;
  return {
    url: `http://${host}:${actual}`,
    port: actual,
    served,
    close: () =>
      new Promise((resolve) => {
        for (const a of Object.values(agents)) a.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
