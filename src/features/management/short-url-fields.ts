import type { FieldErrors, FieldMessage } from './management-validation';
import { dateError, isHttpUrl, serverError } from './management-validation';
import { PARAM_FIELDS } from '../../lib/startup-param-fields';
import { WIDER_VIEW_PARAMS } from '@contract/constants/wider-view';
import { runtimeKey } from '../../lib/translation-key';

export { PARAM_FIELDS, type FieldKind } from '../../lib/startup-param-fields';

/** The form: url key, login category, auth server, and every parameter as text (multi as string[]). */
export interface ShortUrlForm {
  urlKey: string;
  actor: string;
  target: string;
  param: Record<string, string | string[]>;
}

export function emptyShortUrlForm(): ShortUrlForm {
  const param: Record<string, string | string[]> = {};
  for (const [name, f] of PARAM_FIELDS) param[name] = f.kind === 'multi' ? [] : '';
  param.lang = 'ja';
  return { urlKey: '', actor: '1', target: '', param };
}

/** A form filled from a stored row (`param` by start-up names; lists stored as 'a,b'). */
export function shortUrlFormOf(row: {
  urlKey: string;
  actor: number;
  target: string;
  param: Record<string, unknown>;
}): ShortUrlForm {
  const form = emptyShortUrlForm();
  form.urlKey = row.urlKey;
  form.actor = String(row.actor);
  form.target = row.target;
  for (const [name, f] of PARAM_FIELDS) {
    const v = row.param[name];
    if (v === undefined || v === null) continue;
    form.param[name] = f.kind === 'multi' ? String(v).split(',').filter(Boolean) : String(v);
  }
  return form;
}

const label = (name: string) => runtimeKey(`management:shortUrl.fields.${name}`);

/**
 * spec §5 short-URL rules: numeric-only fields and their ranges (tolerance 1–100, capture interval
 * 0–3600), memo ≤ 500, notes ≤ 30, at least one public ID type (tester URL with AI auth), external launch
 * URL only when MC use is off and http(s), mode only when the login category is not tester, auth server
 * an FQDN without trailing slash. As the server: the wider view's flags only on a tester URL, and no screen
 * sharing for a mobile sitting.
 */
export function validateShortUrl(f: ShortUrlForm): FieldErrors {
  const e: FieldErrors = {};
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(f.urlKey.trim())) e.urlKey = { key: 'validation:urlKey' };
  if (!['1', '2', '3', '4', '5'].includes(f.actor)) e.actor = { key: 'validation:actor' };
  const target = serverError(f.target);
  if (target) e.target = target;
  const p = f.param;
  const str = (n: string) => (typeof p[n] === 'string' ? (p[n] as string).trim() : '');
  for (const [name, kind] of PARAM_FIELDS) {
    if (kind.kind !== 'number') continue;
    const v = str(name);
    if (v === '') continue;
    if (!/^\d{1,9}$/.test(v)) e[name] = { key: 'validation:numeric', values: { fieldKey: label(name) } };
    else if (Number(v) < kind.min || Number(v) > kind.max)
      e[name] = { key: 'validation:range', values: { fieldKey: label(name), min: kind.min, max: kind.max } };
  }
  if ([...((p.memo as string) ?? '')].length > 500) e.memo = { key: 'validation:memo' };
  if ([...str('term_set_code')].length > 30) e.term_set_code = { key: 'validation:notes' };
  if (str('exam_url') !== '') {
    if (str('is_mc_startup') === '1') e.exam_url = { key: 'validation:examUrlMcOnly' };
    else if (!isHttpUrl(str('exam_url'))) e.exam_url = { key: 'validation:examUrl' };
  }
  if (str('password_url') !== '' && !isHttpUrl(str('password_url')))
    e.password_url = { key: 'validation:url', values: { fieldKey: label('password_url') } };
  if (str('exam_datetime') !== '') {
    const d: FieldMessage | undefined = dateError(str('exam_datetime'), label('exam_datetime'));
    if (d) e.exam_datetime = d;
  }
  if (str('mode') !== '' && f.actor === '1' && !e.mode) e.mode = { key: 'validation:modeNotTester' };
  for (const name of Object.values(WIDER_VIEW_PARAMS)) {
    if (str(name) === '1' && f.actor !== '1') e[name] = { key: 'validation:widerViewTesterOnly' };
  }
  if (str('is_screen_record') === '1' && str('is_mobile') === '1' && !e.is_screen_record)
    e.is_screen_record = { key: 'validation:screenNotMobile' };
  const idTypes = Array.isArray(p.ai_idcard_type) ? p.ai_idcard_type : [];
  if (f.actor === '1' && str('is_ai_auth') === '1' && idTypes.length === 0)
    e.ai_idcard_type = { key: 'validation:selectOne' };
  return e;
}

/** The payload: empty fields left out, numbers as numbers, lists as arrays. */
export function shortUrlPayload(f: ShortUrlForm): {
  urlKey: string;
  actor: number;
  target: string;
  param: Record<string, string | number | string[]>;
} {
  const param: Record<string, string | number | string[]> = {};
  for (const [name, kind] of PARAM_FIELDS) {
    const v = f.param[name];
    if (Array.isArray(v)) {
      if (v.length) param[name] = v;
      continue;
    }
    const s = name === 'memo' ? (v ?? '') : (v ?? '').trim();
    if (s === '') continue;
    param[name] =
      kind.kind === 'number' ||
      kind.kind === 'flag' ||
      (kind.kind === 'select' && typeof kind.options[0] === 'number')
        ? Number(s)
        : s;
  }
  return { urlKey: f.urlKey.trim(), actor: Number(f.actor), target: f.target.trim(), param };
}
