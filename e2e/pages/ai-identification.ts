import { expect, type Page } from '@playwright/test';

/** The `result` of ai_auth/face and ai_auth/id_card (contract/ai-auth.ts, restated: e2e builds apart). */
export interface AiAttemptResult {
  ok: boolean;
  error: { code: string; message: string; remaining: number; limit: number } | null;
  status: number;
  process: number;
  tester_status: number;
  url: string | null;
}

/** Page object for /identification-ai (PRE00003, AI identity check: face photo, then ID photo). */
export class AiIdentificationPage {
  constructor(private readonly page: Page) {}

  /** The phase the page shows (face, faceConfirm, sending, idCard, passed, fallback, …). */
  get state() {
    return this.page.getByTestId('ai-state');
  }

  async expectPhase(phase: string | RegExp, timeout?: number): Promise<void> {
    await expect(this.state).toHaveAttribute('data-phase', phase, timeout ? { timeout } : undefined);
  }

  /**
   * Takes a photo from the camera, registers it and waits for the server's answer to ai_auth/face
   * (`timeout` covers the AI worker's cold start on the first check). Returns the answer's `result`.
   */
  async takeAndRegister(timeout: number): Promise<AiAttemptResult> {
    await this.expectPhase(/^(face|idCard)$/);
    await this.page.getByTestId('ai-take').click();
    await this.expectPhase(/Confirm$/);
    const answered = this.page.waitForResponse((r) => /\/ai_auth\/(face|id_card)/.test(r.url()), {
      timeout,
    });
    await this.page.getByTestId('ai-register').click();
    const res = await answered;
    expect(res.status()).toBe(200);
    return ((await res.json()) as { result: AiAttemptResult }).result;
  }
}
