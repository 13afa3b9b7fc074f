import {
  DESKTOP_APP_SOURCE,
  desktopAppSetupRedirect,
  isDesktopAppEnvelope,
  onDesktopAppMessage,
  postToDesktopApp,
  type DesktopAppMessage,
} from './desktop-app';

const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const CONFIG = { userAgentToken: 'ProctorDesktop/', setupUrl: 'https://example.com/setup' };

describe('desktop application (spec §1)', () => {
  it('sends a tester without the token to the setup page', () => {
    expect(desktopAppSetupRedirect(UA, CONFIG)).toBe('https://example.com/setup');
    expect(desktopAppSetupRedirect(`${UA} ProctorDesktop/1.2.0`, CONFIG)).toBeNull();
    expect(desktopAppSetupRedirect(UA, null)).toBeNull();
  });

  it('posts an envelope to its own origin', () => {
    const postMessage = vi.fn();
    const win = {
      postMessage,
      addEventListener: vi.fn(),
      removeEventListener: vi.fn(),
      location: { origin: 'https://exam.test' },
    };
    postToDesktopApp({ type: 'lockdownRequest', enabled: true }, win);
    expect(postMessage).toHaveBeenCalledWith(
      { source: DESKTOP_APP_SOURCE, direction: 'toApp', message: { type: 'lockdownRequest', enabled: true } },
      'https://exam.test',
    );
  });

  it('hands on only well-formed messages from the application and the right origin', () => {
    const got: DesktopAppMessage[] = [];
    const stop = onDesktopAppMessage((m) => got.push(m));
    const origin = window.location.origin;
    const fromApp = {
      source: DESKTOP_APP_SOURCE,
      direction: 'fromApp',
      message: { type: 'status', status: 'ready' },
    };
    window.dispatchEvent(new MessageEvent('message', { data: fromApp, origin }));
    window.dispatchEvent(new MessageEvent('message', { data: fromApp, origin: 'https://evil.test' }));
    window.dispatchEvent(new MessageEvent('message', { data: { ...fromApp, direction: 'toApp' }, origin }));
    window.dispatchEvent(new MessageEvent('message', { data: { ...fromApp, source: 'other' }, origin }));
    window.dispatchEvent(
      new MessageEvent('message', { data: { ...fromApp, message: { type: 'nope' } }, origin }),
    );
    window.dispatchEvent(new MessageEvent('message', { data: 'text', origin }));
    stop();
    window.dispatchEvent(new MessageEvent('message', { data: fromApp, origin }));
    expect(got).toEqual([{ type: 'status', status: 'ready' }]);
  });

  it('validates envelopes', () => {
    expect(
      isDesktopAppEnvelope({
        source: DESKTOP_APP_SOURCE,
        direction: 'toApp',
        message: { type: 'closing' },
      }),
    ).toBe(true);
    expect(
      isDesktopAppEnvelope({
        source: DESKTOP_APP_SOURCE,
        direction: 'sideways',
        message: { type: 'closing' },
      }),
    ).toBe(false);
    expect(isDesktopAppEnvelope(null)).toBe(false);
  });
});
