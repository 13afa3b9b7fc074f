import type { ErrorCode } from '../../../contract/common';
import type { App } from './app-types';
import { ApiError } from './api-error';

/** A spec §5 rule's stable code and its Japanese text. */
export interface RuleMessage {
  code: ErrorCode;
  message: string;
}

/**
 * A validation failure of one form field. Answered as HTTP 400 `{status: 400, message, result: {field},
 * code}`: `code` is the spec §5 rule's own code (MSG) or 'validation', `message` the spec's Japanese text
 * where it gives one, `field` the snake_case request field, so the SPA can show its own text for the code
 * and highlight the field.
 */
export class FieldError extends ApiError {
  constructor(
    readonly field: string,
    message: string | RuleMessage,
  ) {
    super(
      400,
      typeof message === 'string' ? 'validation' : message.code,
      typeof message === 'string' ? message : message.message,
    );
    this.name = 'FieldError';
  }
}

/** Spec §5 messages used by several management endpoints, each with its error code. */
export const MSG = {
  ipv4: { code: 'invalid_ipv4', message: 'IPアドレスはIPv4の形式でなければなりません。' },
  ipOrDomain: {
    code: 'ip_or_domain_required',
    message: 'IPアドレスとドメインのいずれかを入力してください。',
  },
  selectOne: { code: 'select_one', message: '一つ以上の要素を選択してください。' },
  groupOrCode: { code: 'group_or_code', message: '試験団体と試験団体コードのいずれかを入力してください。' },
  dateCombination: {
    code: 'date_combination',
    message: '試験日時の指定で、指定できない組み合わせがあります。',
  },
  examUrl: { code: 'invalid_exam_url', message: '起動URLはhttps://example.comの形式でなければなりません。' },
  /** spec §5 "date: the year must not exceed 9999". */
  date: (label: string): RuleMessage => ({
    code: 'invalid_date',
    message: `入力された${label}は設定できません。`,
  }),
  /** spec §5 "url: must be http(s)". */
  url: (label: string): RuleMessage => ({
    code: 'invalid_url',
    message: `${label}はhttps://example.comの形式でなければなりません。`,
  }),
} as const satisfies Record<string, RuleMessage | ((label: string) => RuleMessage)>;

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
        .send({ status: 400, message: err.message, result: { field: err.field }, code: err.code });
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
