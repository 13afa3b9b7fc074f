import { Type, type Static } from 'typebox';

export const LoginBody = Type.Object({
  // No NUL: PostgreSQL text cannot hold it, so it would otherwise surface as a server error.
  login_id: Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\u0000]*$' }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
  /**
   * The short URL the start-up came through. For a tester the server binds that URL's stored start-up
   * parameters to the sitting: parameters the browser could edit (recording, proctoring…) are never trusted.
   */
  url_key: Type.Optional(Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9_-]*$' })),
});
export type LoginBody = Static<typeof LoginBody>;

/** Login result of spec §3. `group` is the exam group's name (as everywhere), `group_code` its code. */
export const LoginResult = Type.Object({
  access_token: Type.String(),
  exam_user_name: Type.String(),
  login_id: Type.String(),
  actor: Type.Integer({ minimum: 1, maximum: 5 }),
  kicked: Type.Union([Type.Integer(), Type.Null()]),
  group_id: Type.Union([Type.Integer(), Type.Null()]),
  group: Type.Union([Type.String(), Type.Null()]),
  group_code: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type LoginResult = Static<typeof LoginResult>;

/** logout: `p=self` ends the caller's own session (spec §7); it is also the default. */
export const LogoutQuery = Type.Object({ p: Type.Optional(Type.Literal('self')) });
export type LogoutQuery = Static<typeof LogoutQuery>;
