import { Type, type Static, type TSchema } from 'typebox';
import { MAX_ID, INT32_MIN, INT32_MAX } from './constants/common';
export * from './constants/common';

/** Every response: `{status, message, result}`; success is HTTP 200 with body status 200 (spec §5). */
export const Envelope = <T extends TSchema>(result: T) =>
  Type.Object({
    status: Type.Integer(),
    message: Type.String(),
    result,
    code: Type.Optional(Type.String()),
  });

export const ErrorEnvelope = Type.Object({
  status: Type.Integer(),
  message: Type.String(),
  /** null, or `{field}` naming the request field a validation error is about. */
  result: Type.Union([Type.Null(), Type.Object({ field: Type.String() })]),
  /** Machine-readable reason; the SPA maps it to a message in the user's language. */
  code: Type.Optional(Type.String()),
});
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

export interface ApiEnvelope<T> {
  status: number;
  message: string;
  result: T;
  code?: string;
}

/** An id as a JSON number: 1 … MAX_ID. */
export const IdInteger = Type.Integer({ minimum: 1, maximum: MAX_ID });
/** A request integer stored in an int4 column. */
export const Int32 = Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX });

/** Integer-ish value from a PHP-style form or query: accept "3" as well as 3. */
export const IntLike = Type.Union([Int32, Type.String({ pattern: '^-?[0-9]{1,9}$' })]);
export const Id = Type.Union([IdInteger, Type.String({ pattern: '^[1-9][0-9]{0,17}$' })]);
