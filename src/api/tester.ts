import type {
  KickOutMethod,
  KickOutResult,
  McTokenResult,
  TesterDetail as WireDetail,
  TesterStatusResult,
  TestStatusBody,
  TestStatusResult,
} from '@contract/tester';
import type { TemplateResult } from '@contract/templates';
import { camelize, type Camelize } from '../lib/case';
import { ApiError } from './api-error';
import { call, sendOnUnload } from './client';

/** Tester detail of spec §3, camelCase (startup parameters kept as sent). */
export type TesterDetail = Omit<Camelize<WireDetail>, 'startupParameters'> & {
  startupParameters: Record<string, unknown>;
};

/** GET tester/detail.php; a tester asks for its own current sitting. */
export async function getTesterDetail(testerId?: number): Promise<TesterDetail> {
  const r = await call<WireDetail>('tester/detail', {
    method: 'GET',
    params: testerId === undefined ? {} : { tester_id: testerId },
  });
  const { startup_parameters: sp, ...rest } = r;
  return { ...camelize(rest), startupParameters: sp };
}

/** POST tester/status.php: moves the tester state (spec §4, 0 none … 7 finish exam). */
export async function postTesterStatus(
  status: number,
  testerId?: number,
): Promise<Camelize<TesterStatusResult>> {
  const data: Record<string, unknown> = { status };
  if (testerId !== undefined) data.tester_id = testerId;
  return camelize(await call<TesterStatusResult>('tester/status', { data }));
}

/** Body of test/status and exam/status (spec §7), camelCase. */
export type ExamProcessArgs = Camelize<TestStatusBody>;

/**
 * POST test/status.php (the proctoring page's own exam process) or exam/status.php (the exam system's),
 * with an exam process code of spec §3 (start 0, restart 1, stop 2, suspend 3, relogin 4).
 */
export async function postExamProcess(
  which: 'test' | 'exam',
  args: ExamProcessArgs,
): Promise<Camelize<TestStatusResult>> {
  const data: Record<string, unknown> = { process: args.process };
  if (args.loginId) data.login_id = args.loginId;
  if (args.termSetCode) data.term_set_code = args.termSetCode;
  if (args.eai) data.eai = args.eai;
  if (args.testName) data.test_name = args.testName;
  if (args.region) data.region = args.region;
  return camelize(await call<TestStatusResult>(`${which}/status`, { data }));
}

/** POST get_mc_token.php: mode 1 proctor token, mode 2 MC+ start-up; the URL to open for the exam. */
export async function getMcToken(mode: 1 | 2): Promise<Camelize<McTokenResult>> {
  return camelize(await call<McTokenResult>('get_mc_token', { data: { mode } }));
}

/** POST tester/kick_out.php; an examinee uses PUT_MYSELF, PUT_MYSELF_AI or DISCONNECT. */
export async function kickOut(method: KickOutMethod, testerId?: number): Promise<Camelize<KickOutResult>> {
  const data: Record<string, unknown> = { method };
  if (testerId !== undefined) data.tester_id = testerId;
  return camelize(await call<KickOutResult>('tester/kick_out', { data }));
}

/**
 * kick_out.php DISCONNECT sent while the window closes or reloads (spec §3 kick-out methods): the checker sees at
 * once that the examinee's window went away; a page that comes back is matched again.
 */
export function disconnectOnUnload(): void {
  sendOnUnload('tester/kick_out', { method: 'DISCONNECT' });
}

/** kick_out.php PUT_MYSELF / PUT_MYSELF_AI from a page that is going away (fetch keepalive; nothing waited for). */
export function kickOutOnUnload(method: 'PUT_MYSELF' | 'PUT_MYSELF_AI'): void {
  sendOnUnload('tester/kick_out', { method });
}

/** POST tester/head_shot.php with a JPEG photo (base64); returns the stored image URL. */
export async function postHeadShot(image: string, contentType: string): Promise<{ url: string }> {
  return call<{ url: string }>('tester/head_shot', { data: { image, content_type: contentType } });
}

function templateBody(endpoint: string, r: TemplateResult | undefined): string {
  const body = (r as { template_body?: unknown } | undefined)?.template_body ?? '';
  // spec §5: notice responses must hold strings, else an error is raised (the caller shows a default).
  if (typeof body !== 'string') {
    throw new ApiError(
      endpoint,
      500,
      'The template response does not hold strings.',
      'errors:default',
      'invalid_response',
    );
  }
  return body;
}

/** POST get_examining_term.php: the exam notes shown on /examining (template body, HTML subset). */
export async function getExaminingTerm(templateId: number, lang: string): Promise<string> {
  const r = await call<TemplateResult>('get_examining_term', { data: { template_id: templateId, lang } });
  return templateBody('get_examining_term', r);
}

/** GET get_env_setting_term.php: the terms shown on /env-setting (template body, HTML subset). */
export async function getEnvSettingTerm(templateId: number, lang: string): Promise<string> {
  const r = await call<TemplateResult>('get_env_setting_term', {
    method: 'GET',
    params: { template_id: templateId, lang },
  });
  return templateBody('get_env_setting_term', r);
}
