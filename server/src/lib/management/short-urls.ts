import { ACTOR, ALL_ACTORS } from '../../../../contract/common';
import { SENSITIVITIES } from '../../../../contract/capture';
import { ANALYSIS_TYPES, ID_CARD_TYPES, type ShortUrlParamInput } from '../../../../contract/management';
import { WIDER_VIEW_PARAMS } from '../../../../contract/constants/wider-view';
import { FieldError, MSG } from '../management-errors';
import { parseDate } from '../management-time';
import { isHttpUrl, isServerName } from './validate';

/** A short URL after validation, ready to store. */
export interface ValidShortUrl {
  urlKey: string;
  actor: number;
  target: string;
  param: Record<string, string | number>;
}

type NumericField = {
  [K in keyof ShortUrlParamInput]-?: NonNullable<ShortUrlParamInput[K]> extends number | string ? K : never;
}[keyof ShortUrlParamInput];

/** Numeric form fields (spec §5 "numeric-only fields") with their permitted range. */
const NUMERIC: Partial<Record<keyof ShortUrlParamInput, [number, number]>> = {
  is_mobile: [0, 1],
  is_mc_startup: [0, 1],
  is_proctor: [0, 1],
  is_auth: [0, 1],
  is_voice_recording: [0, 1],
  is_record: [0, 1],
  is_summary: [0, 1],
  max_rectime: [0, 1_000_000],
  matching_timeout: [0, 86_400],
  tester_retry: [0, 1000],
  checker_retry: [0, 1000],
  webrtc_timeout: [0, 86_400],
  intervaltime: [0, 100_000],
  webrtc_max_time: [0, 1_000_000],
  is_debug: [0, 1],
  is_conv: [0, 1],
  // spec §9: video levels 1–20, audio levels 1–10.
  video_recording_preference: [1, 20],
  voice_quality_preference: [1, 10],
  mode: [0, 99],
  is_ai_auth: [0, 1],
  is_ai_faild_manual: [0, 2],
  is_ai_idcard_request: [0, 1],
  ai_face_retry: [0, 1000],
  ai_idcard_retry: [0, 1000],
  ai_all_retry: [0, 1000],
  // spec §5/§9: name-match tolerance 1–100, capture interval 0–3600 s.
  ai_namematch: [1, 100],
  capture_interval: [0, 3600],
  capture_type: [0, 2],
  is_capture_show: [0, 1],
  is_screen_record: [0, 1],
  is_room_scan: [0, 1],
  is_phone_camera: [0, 1],
};

const TEXT: Partial<Record<keyof ShortUrlParamInput, number>> = {
  exam_url: 2048,
  region: 256,
  exam_name: 256,
  exam_datetime: 32,
  password_url: 2048,
  // spec §5: memo up to 500 characters, exam notes up to 30.
  memo: 500,
  term_set_code: 30,
  group: 64,
};

const TEXT_MESSAGES: Partial<Record<keyof ShortUrlParamInput, string>> = {
  memo: 'メモは500文字以内で入力してください。',
  term_set_code: '注意事項は30文字以内で入力してください。',
};

function list(v: string | readonly (string | number)[] | undefined): string[] {
  if (v === undefined) return [];
  const items = typeof v === 'string' ? v.split(',') : v.map(String);
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * Validates a short-URL form (spec §3 "Short-URL form fields", §5 "Short-URL form") and returns the
 * normalised row. Throws a FieldError naming the first field at fault.
 *
 * Rules beyond the spec's wording: `target` '' means this server; public ID types are required for a
 * tester URL with AI identity check (is_ai_auth 1), the only case that asks for an ID photo; the wider view's
 * flags (screen, room scan, phone) are an examinee's and are refused on another login category, and the screen
 * cannot be asked of a mobile sitting (is_mobile 1: mobile browsers cannot share a screen).
 */
export function validateShortUrl(input: {
  url_key: string;
  actor: number | string;
  target?: string | undefined;
  param?: ShortUrlParamInput | undefined;
}): ValidShortUrl {
  const urlKey = input.url_key.trim();
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(urlKey)) {
    throw new FieldError(
      'url_key',
      'URLキーは半角英数字・ハイフン・アンダースコアの1〜64文字で入力してください。',
    );
  }
  const actor = typeof input.actor === 'number' ? input.actor : Number(input.actor);
  if (!(ALL_ACTORS as readonly number[]).includes(actor))
    throw new FieldError('actor', 'ログイン区分を選択してください。');
  const target = (input.target ?? '').trim();
  if (target.endsWith('/'))
    throw new FieldError('target', '認証サーバーの末尾にスラッシュは付けないでください。');
  if (target !== '' && !isServerName(target))
    throw new FieldError('target', '認証サーバーはFQDNの形式で入力してください。');

  const p = input.param ?? {};
  const out: Record<string, string | number> = { actor };
  for (const [field, [min, max]] of Object.entries(NUMERIC) as [NumericField, [number, number]][]) {
    const raw = p[field];
    if (raw === undefined || raw === '') continue;
    const text = String(raw).trim();
    if (!/^[0-9]{1,9}$/.test(text)) throw new FieldError(field, `${field}は半角数字で入力してください。`);
    const n = Number(text);
    if (n < min || n > max) throw new FieldError(field, `${field}は${min}〜${max}の範囲で入力してください。`);
    out[field] = n;
  }
  for (const [field, max] of Object.entries(TEXT) as [keyof typeof TEXT, number][]) {
    const raw = p[field];
    if (typeof raw !== 'string' || raw.trim() === '') continue;
    const value = field === 'memo' ? raw : raw.trim();
    if ([...value].length > max)
      throw new FieldError(field, TEXT_MESSAGES[field] ?? `${field}は${max}文字以内で入力してください。`);
    out[field] = value;
  }
  if (p.lang !== undefined && p.lang !== '') {
    if (!['ja', 'en', 'zn'].includes(p.lang)) throw new FieldError('lang', '言語を選択してください。');
    out.lang = p.lang;
  }
  if (p.ai_sensitivity !== undefined && p.ai_sensitivity !== '') {
    if (!(SENSITIVITIES as readonly string[]).includes(p.ai_sensitivity))
      throw new FieldError('ai_sensitivity', `AI感度は${SENSITIVITIES.join(', ')}から選択してください。`);
    out.ai_sensitivity = p.ai_sensitivity;
  }
  if (typeof out.exam_datetime === 'string' && parseDate(out.exam_datetime.slice(0, 10)) === null) {
    throw new FieldError('exam_datetime', MSG.date('試験日時'));
  }
  if (typeof out.exam_url === 'string') {
    // spec §5: external launch URL only when MC use is off.
    if (out.is_mc_startup === 1)
      throw new FieldError('exam_url', '起動URLはMC+利用がオフの場合のみ指定できます。');
    if (!isHttpUrl(out.exam_url)) throw new FieldError('exam_url', MSG.examUrl);
  }
  if (typeof out.password_url === 'string' && !isHttpUrl(out.password_url)) {
    throw new FieldError('password_url', MSG.url('パスワード再発行URL'));
  }
  // spec §5: mode only when the login category is not tester.
  if (out.mode !== undefined && actor === ACTOR.tester)
    throw new FieldError('mode', 'モードはテスター以外のログイン区分でのみ指定できます。');
  for (const field of Object.values(WIDER_VIEW_PARAMS)) {
    if (out[field] === 1 && actor !== ACTOR.tester)
      throw new FieldError(field, `${field}は受験者のログイン区分でのみ指定できます。`);
  }
  if (out.is_screen_record === 1 && out.is_mobile === 1)
    throw new FieldError(
      'is_screen_record',
      '画面の共有はモバイル利用では指定できません（モバイルのブラウザは画面を共有できません）。',
    );

  const analysis = list(p.selected_analysis_types);
  if (analysis.some((a) => !(ANALYSIS_TYPES as readonly string[]).includes(a))) {
    throw new FieldError(
      'selected_analysis_types',
      `分析種別は${ANALYSIS_TYPES.join(', ')}から選択してください。`,
    );
  }
  if (analysis.length) out.selected_analysis_types = [...new Set(analysis)].join(',');

  const idTypes = list(p.ai_idcard_type);
  if (idTypes.some((t) => !(ID_CARD_TYPES as readonly number[]).includes(Number(t)) || !/^[0-9]$/.test(t))) {
    throw new FieldError('ai_idcard_type', '公的身分証の種類が正しくありません。');
  }
  if (idTypes.length) out.ai_idcard_type = [...new Set(idTypes.map(Number))].sort().join(',');
  // spec §5: at least one public ID type.
  if (actor === ACTOR.tester && out.is_ai_auth === 1 && idTypes.length === 0)
    throw new FieldError('ai_idcard_type', MSG.selectOne);

  return { urlKey, actor, target, param: out };
}
