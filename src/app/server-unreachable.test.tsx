import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRoot, type Root } from 'react-dom/client';
import { i18next } from '../i18n';
import { DEFAULT_RUNTIME_CONFIG, type RuntimeConfig } from '../lib/runtime-config';
import { CONFIG_RETRY_MS, untilConfigLoads } from './server-unreachable';

const CONFIG: RuntimeConfig = {
  ...DEFAULT_RUNTIME_CONFIG,
  extraAllowedEnvironments: [{ os: 'Linux', browser: 'Chromium', minOs: 0, minBrowser: 80 }],
};
const opened = (search: string) => ({ search, href: `http://localhost/examining${search}` });

let root: Root;
let el: HTMLDivElement;
beforeEach(() => {
  sessionStorage.clear();
  el = document.body.appendChild(document.createElement('div'));
  root = createRoot(el);
});
afterEach(async () => {
  act(() => root.unmount());
  el.remove();
  sessionStorage.clear();
  vi.useRealTimers();
  await i18next.changeLanguage('ja');
});

/** A loader that fails until `reachable` is set, counting its calls. */
function server() {
  const s = { calls: 0, reachable: false, load: async () => null as RuntimeConfig | null };
  s.load = async () => {
    s.calls += 1;
    return s.reachable ? CONFIG : null;
  };
  return s;
}

describe('untilConfigLoads (the start-up while /config.json cannot be reached)', () => {
  it('says the server cannot be reached and resolves with the configuration once a retry reaches it', async () => {
    sessionStorage.setItem(
      'session',
      JSON.stringify({ accessToken: 'tok', examUserName: 'A', loginId: 'tester01', actor: 1 }),
    );
    const s = server();
    const p = untilConfigLoads(root, opened(''), s.load);
    expect(await screen.findByRole('heading', { name: 'サーバーに接続できません' })).toBeVisible();
    expect(screen.getByText('ログインしたままです。')).toBeVisible();
    // No verdict on the browser meanwhile.
    expect(screen.queryByText(/対応していません/)).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'もう一度読み込む' }));
    expect(s.calls).toBe(1);
    expect(await screen.findByRole('heading', { name: 'サーバーに接続できません' })).toBeVisible();
    s.reachable = true;
    await userEvent.click(screen.getByRole('button', { name: 'もう一度読み込む' }));
    await expect(p).resolves.toEqual(CONFIG);
  });

  it('asks again by itself, every few seconds and when the browser is back online', async () => {
    vi.useFakeTimers();
    const s = server();
    const p = untilConfigLoads(root, opened(''), s.load);
    await act(async () => vi.advanceTimersByTimeAsync(0));
    expect(screen.getByRole('heading', { name: 'サーバーに接続できません' })).toBeVisible();
    // Not logged in: nothing said about a login.
    expect(screen.queryByText('ログインしたままです。')).toBeNull();
    await act(async () => vi.advanceTimersByTimeAsync(CONFIG_RETRY_MS));
    expect(s.calls).toBe(1);
    s.reachable = true;
    await act(async () => {
      window.dispatchEvent(new Event('online'));
      await vi.advanceTimersByTimeAsync(0);
    });
    await expect(p).resolves.toEqual(CONFIG);
    const calls = s.calls;
    await act(async () => vi.advanceTimersByTimeAsync(3 * CONFIG_RETRY_MS));
    expect(s.calls).toBe(calls);
  });

  it('speaks the start-up language', async () => {
    const s = server();
    void untilConfigLoads(root, opened('?actor=1&lang=en'), s.load);
    expect(await screen.findByRole('heading', { name: 'Cannot reach the server' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeVisible();
  });
});
