import { expect, type Browser, type BrowserContext, type Locator, type Page } from '@playwright/test';
import jsQR from 'jsqr';
import sharp from 'sharp';

/**
 * Reads the QR code on screen as a phone's camera would: a screenshot of the code, decoded with jsQR (nothing of
 * the page's own text or state is used). Returns the text it encodes.
 */
export async function decodeQr(code: Locator): Promise<string> {
  await expect(code).toHaveAttribute('data-ready', 'true');
  const png = await code.screenshot();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const found = jsQR(
    new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength),
    info.width,
    info.height,
  );
  if (!found) throw new Error('no QR code could be read from the screenshot');
  return found.data;
}

/** A phone's browser: a mobile viewport with touch, the camera allowed, in a context of its own. */
export class PhoneCamera {
  context!: BrowserContext;
  page!: Page;

  /** Opens the link read from the QR code, as the phone's camera app hands it to the browser. */
  async open(browser: Browser, url: string, init?: (ctx: BrowserContext) => Promise<unknown>): Promise<void> {
    this.context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      permissions: ['camera'],
    });
    if (init) await init(this.context);
    this.page = await this.context.newPage();
    await this.page.goto(url);
  }

  root(): Locator {
    return this.page.getByTestId('phone-page');
  }

  /** Waits until the page is paired and asks for a camera, then taps `which`. */
  async choose(which: 'rear' | 'front'): Promise<void> {
    await expect(this.root()).toHaveAttribute('data-step', 'choose', { timeout: 15_000 });
    await this.page.getByTestId(which === 'rear' ? 'phone-rear' : 'phone-front').tap();
    await expect(this.root()).toHaveAttribute('data-step', 'running', { timeout: 15_000 });
  }

  connection(): Locator {
    return this.page.getByTestId('phone-connection');
  }

  /** Frames the phone's own preview has shown (it plays the camera it publishes). */
  previewFrames(): Promise<number> {
    return this.page
      .getByTestId('phone-preview')
      .evaluate((v) => (v as HTMLVideoElement).getVideoPlaybackQuality().totalVideoFrames);
  }

  async close(): Promise<void> {
    await this.context?.close().catch(() => undefined);
  }
}
