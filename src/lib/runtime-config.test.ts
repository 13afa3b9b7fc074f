import { afterEach, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
// Tests may use the shared MSW server: the layer rule that keeps tests/ out of src/ is meant for app code.
import { server } from '../../tests/msw/server';
import { DEFAULT_RUNTIME_CONFIG, loadRuntimeConfig } from './runtime-config';

const LINUX = { os: 'Linux', browser: 'Chromium', minOs: 0, minBrowser: 80 };

describe('loadRuntimeConfig', () => {
  afterEach(() => vi.restoreAllMocks());
  const quiet = () => vi.spyOn(console, 'error').mockImplementation(() => undefined);

  it("reads the deployment's configuration", async () => {
    server.use(http.get('*/config.json', () => HttpResponse.json({ extraAllowedEnvironments: [LINUX] })));
    expect((await loadRuntimeConfig())?.extraAllowedEnvironments).toEqual([LINUX]);
  });

  it('is null, not the defaults, when the server cannot be reached (offline, or the server down)', async () => {
    quiet();
    server.use(http.get('*/config.json', () => HttpResponse.error()));
    expect(await loadRuntimeConfig()).toBeNull();
    server.use(http.get('*/config.json', () => new HttpResponse('Bad Gateway', { status: 502 })));
    expect(await loadRuntimeConfig()).toBeNull();
    server.use(http.get('*/config.json', () => new HttpResponse('', { status: 503 })));
    expect(await loadRuntimeConfig()).toBeNull();
  });

  it('gives the defaults when the server answers without one (no config.json, or a page instead)', async () => {
    quiet();
    server.use(http.get('*/config.json', () => new HttpResponse('Not Found', { status: 404 })));
    expect(await loadRuntimeConfig()).toEqual(DEFAULT_RUNTIME_CONFIG);
    server.use(http.get('*/config.json', () => HttpResponse.html('<!doctype html><div id="root"></div>')));
    expect(await loadRuntimeConfig()).toEqual(DEFAULT_RUNTIME_CONFIG);
  });
});
