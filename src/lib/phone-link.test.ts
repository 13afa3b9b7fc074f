import { describe, expect, it, vi } from 'vitest';
import { phoneLinkUrl, scrubPairingCode, takePairingCode } from './phone-link';

const CODE = 'AbC_-0123456789abcdefghijklmnopqrstuvwxyz12';

describe('the phone camera’s link', () => {
  it('carries the code in the fragment, and the language in the query', () => {
    expect(phoneLinkUrl('https://exam.example.org', CODE, 'en')).toBe(
      `https://exam.example.org/phone?lang=en#${CODE}`,
    );
    expect(phoneLinkUrl('https://exam.example.org', CODE, 'zn')).toBe(
      `https://exam.example.org/phone?lang=ja#${CODE}`,
    );
  });

  it('leaves the address bar at once on the phone’s page, and is taken once', () => {
    const replaceState = vi.fn();
    scrubPairingCode(
      { pathname: '/phone', hash: `#${CODE}`, href: `https://exam.example.org/phone?lang=ja#${CODE}` },
      { state: { idx: 0 }, replaceState },
    );
    expect(replaceState).toHaveBeenCalledWith({ idx: 0 }, '', 'https://exam.example.org/phone?lang=ja');
    expect(takePairingCode()).toBe(CODE);
    expect(takePairingCode()).toBeNull();
  });

  it('ignores other pages and anything that is not a code', () => {
    const replaceState = vi.fn();
    scrubPairingCode(
      { pathname: '/examining', hash: `#${CODE}`, href: `https://x/examining#${CODE}` },
      { state: null, replaceState },
    );
    expect(replaceState).not.toHaveBeenCalled();
    expect(takePairingCode()).toBeNull();
    scrubPairingCode(
      { pathname: '/phone/', hash: '#<script>', href: 'https://x/phone/#<script>' },
      {
        state: null,
        replaceState,
      },
    );
    expect(replaceState).toHaveBeenCalledTimes(1);
    expect(takePairingCode()).toBeNull();
  });
});
