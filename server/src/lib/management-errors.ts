import type { App } from './app-types';
import { ApiError } from './api-error';

/**
 * A validation failure of one form field. Answered as HTTP 400
 * `{status: 400, message, result: {field}, code: 'validation'}`: `message` is the spec §5 Japanese text
 * where the spec gives one, `field` the snake_case request field, so the SPA can localise by `code` and
 * highlight the field.
 */
export class FieldError extends ApiError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(400, 'validation', message);
    this.name = 'FieldError';
  }
}

/** Spec §5 messages used by several management endpoints. */
export const MSG = {
  ipv4: 'IPアドレスはIPv4の形式でなければなりません。',
  ipOrDomain: 'IPアドレスとドメインのいずれかを入力してください。',
  selectOne: '一つ以上の要素を選択してください。',
  groupOrCode: '試験団体と試験団体コードのいずれかを入力してください。',
  dateCombination: '試験日時の指定で、指定できない組み合わせがあります。',
  examUrl: '起動URLはhttps://example.comの形式でなければなりません。',
  /** spec §5 "date: the year must not exceed 9999". */
  date: (label: string) => `入力された${label}は設定できません。`,
  /** spec §5 "url: must be http(s)". */
  url: (label: string) => `${label}はhttps://example.comの形式でなければなりません。`,
} as const;

/**
 * Installs, in the calling route module's encapsulated scope only, an error handler that answers a
 * FieldError with its `field` and hands every other error to the application's handler.
 */
export function installFieldErrorHandler(app: App): void {
  const parent = app.errorHandler;
  app.setErrorHandler(function (err, request, reply) {
    if (err instanceof FieldError) {
      return reply
        .code(400)
        .send({ status: 400, message: err.message, result: { field: err.field }, code: 'validation' });
    }
    return parent.call(this, err, request, reply);
  });
}

/** Parses a positive integer id from a number or digit string; throws a FieldError otherwise. */
export function toId(value: unknown, field: string): number {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^[0-9]{1,15}$/.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new FieldError(field, `${field} must be a positive integer.`);
  return n;
}
