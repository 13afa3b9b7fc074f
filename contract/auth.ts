import { Type, type Static } from 'typebox';

export const LoginBody = Type.Object({
  login_id: Type.String({ minLength: 1, maxLength: 128 }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
});
export type LoginBody = Static<typeof LoginBody>;

/** Login result of spec §3. */
export const LoginResult = Type.Object({
  access_token: Type.String(),
  exam_user_name: Type.String(),
  login_id: Type.String(),
  actor: Type.Integer({ minimum: 1, maximum: 5 }),
  kicked: Type.Union([Type.Integer(), Type.Null()]),
  group_id: Type.Union([Type.Integer(), Type.Null()]),
  group: Type.Union([Type.String(), Type.Null()]),
});
export type LoginResult = Static<typeof LoginResult>;

export const LogoutQuery = Type.Object({ p: Type.Optional(Type.String({ maxLength: 16 })) });
