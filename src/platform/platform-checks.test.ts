import { isPC } from './device';
import { checkPopupAllowed } from './popup-check';
import { STORAGE_CHECK_CHARS, STORAGE_CHECK_KEY, canStore, checkStorageCapacity } from './storage-check';
import { registerServiceWorker } from './service-worker';
import { CHILD_WINDOW_NAME, isChildWindow, openChildWindow } from './child-window';

const WIN_CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const MAC_SAFARI =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Safari/605.1.15';
const ANDROID_PHONE =
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36';
const ANDROID_TABLET =
  'Mozilla/5.0 (Linux; Android 10; SM-T510) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 14_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.0.2 Mobile/15E148 Safari/604.1';
const LINUX_HEADLESS =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.33 Safari/537.36';

describe('isPC', () => {
  it.each([
    ['Windows Chrome', WIN_CHROME, 0, true],
    ['Windows Chrome on a touch laptop', WIN_CHROME, 10, true],
    ['Mac Safari', MAC_SAFARI, 0, true],
    ['iPad in desktop mode (Mac Safari with touch)', MAC_SAFARI, 5, false],
    ['Android phone', ANDROID_PHONE, 5, false],
    ['Android tablet', ANDROID_TABLET, 5, false],
    ['iPhone', IPHONE, 5, false],
    ['Linux headless Chrome', LINUX_HEADLESS, 0, true],
  ])('%s → %s', (_name, ua, touch, pc) => {
    expect(isPC(ua, touch)).toBe(pc);
  });
});

describe('checkPopupAllowed', () => {
  it('opens a 100×100 popup and closes it', () => {
    const popup = { closed: false, close: vi.fn() };
    const open = vi.fn(() => popup as unknown as Window);
    expect(checkPopupAllowed({ open })).toBe(true);
    expect(open).toHaveBeenCalledWith('about:blank', '_blank', 'width=100,height=100');
    expect(popup.close).toHaveBeenCalled();
  });

  it('is false when the browser blocks it', () => {
    expect(checkPopupAllowed({ open: () => null })).toBe(false);
    expect(checkPopupAllowed({ open: () => ({ closed: true, close() {} }) as unknown as Window })).toBe(
      false,
    );
    expect(
      checkPopupAllowed({
        open: () => {
          throw new Error('blocked');
        },
      }),
    ).toBe(false);
  });
});

/** A Storage with a character quota, like a browser's. */
function quotaStorage(quota: number): Storage {
  const map = new Map<string, string>();
  const used = () => [...map].reduce((n, [k, v]) => n + k.length + v.length, 0);
  return {
    get length() {
      return map.size;
    },
    key: (i) => [...map.keys()][i] ?? null,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => {
      if (used() - (map.get(k)?.length ?? 0) + v.length + k.length > quota)
        throw new DOMException('full', 'QuotaExceededError');
      map.set(k, v);
    },
    removeItem: (k) => void map.delete(k),
    clear: () => map.clear(),
  };
}

describe('storage check', () => {
  it('passes with jsdom storages and removes the test item', () => {
    expect(checkStorageCapacity()).toBe(true);
    expect(localStorage.getItem(STORAGE_CHECK_KEY)).toBeNull();
    expect(sessionStorage.getItem(STORAGE_CHECK_KEY)).toBeNull();
  });

  it('fails when either storage cannot hold 2,097,152 characters', () => {
    const big = quotaStorage(STORAGE_CHECK_CHARS * 2);
    const small = quotaStorage(STORAGE_CHECK_CHARS - 1);
    expect(canStore(big)).toBe(true);
    expect(big.length).toBe(0);
    expect(canStore(small)).toBe(false);
    expect(checkStorageCapacity([big, small])).toBe(false);
    expect(checkStorageCapacity([big, null])).toBe(false);
    expect(checkStorageCapacity([big, quotaStorage(STORAGE_CHECK_CHARS * 3)])).toBe(true);
  });
});

describe('registerServiceWorker', () => {
  it('registers /sw.js', async () => {
    const register = vi.fn(() => Promise.resolve({} as ServiceWorkerRegistration));
    const nav = { serviceWorker: { register } } as unknown as Navigator;
    await expect(registerServiceWorker(nav)).resolves.toBe(true);
    expect(register).toHaveBeenCalledWith('/sw.js', { scope: '/' });
  });

  it('only logs a failure', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const nav = {
      serviceWorker: { register: () => Promise.reject(new Error('no')) },
    } as unknown as Navigator;
    await expect(registerServiceWorker(nav)).resolves.toBe(false);
    expect(spy).toHaveBeenCalled();
    spy.mockRestore();
  });

  it('is false where service workers do not exist', async () => {
    await expect(registerServiceWorker({} as Navigator)).resolves.toBe(false);
  });
});

describe('child window', () => {
  const screen = { availWidth: 1280, availHeight: 800 } as Screen;

  it('opens the URL at the full available size and closes the current window', () => {
    const open = vi.fn(() => ({}) as Window);
    const close = vi.fn();
    expect(openChildWindow('/env-setting', { open, close, screen })).toBe(true);
    expect(open).toHaveBeenCalledWith(
      '/env-setting',
      CHILD_WINDOW_NAME,
      'left=0,top=0,width=1280,height=800',
    );
    expect(close).toHaveBeenCalled();
  });

  it('is false and keeps the window when blocked', () => {
    const close = vi.fn();
    expect(openChildWindow('/login', { open: () => null, close, screen })).toBe(false);
    expect(close).not.toHaveBeenCalled();
  });

  it('recognises the child by its window name', () => {
    expect(isChildWindow({ name: CHILD_WINDOW_NAME })).toBe(true);
    expect(isChildWindow({ name: '' })).toBe(false);
  });
});
