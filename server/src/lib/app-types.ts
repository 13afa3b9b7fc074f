import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Actor } from '../../../contract/common';
import type { ServerConfig } from '../config';
import type { Db } from '../db/db';
import type { AuthCache, SessionToucher } from './auth-cache';

/** The Fastify instance type every route module receives. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Who is asking: set by the auth plugin from the bearer token. */
export interface AuthContext {
  userId: number;
  sessionId: number;
  actor: Actor;
  loginId: string;
  name: string;
  groupId: number | null;
  /**
   * Set for a phone session (the examinee's phone as a second camera): the one sitting it belongs to. Such a
   * session may call only routes whose access names 'phone'.
   */
  phoneTestId?: number | null;
}

/** Who may call a route besides an actor: 'phone', the paired phone of a sitting (its session does nothing else). */
export type AccessRole = Actor | 'phone';

/**
 * Route access: 'public' (no login), or the actors (and 'phone') allowed to call it. Every /api route must
 * declare it.
 */
export type RouteAccess = 'public' | readonly AccessRole[];

declare module 'fastify' {
  interface FastifyInstance {
    config: ServerConfig;
    db: Db;
    /** Sessions and IP access limits kept between requests (plugins/auth.ts). */
    authCache: AuthCache;
    /** Writes sessions' last activity in batches (plugins/auth.ts). */
    sessionToucher: SessionToucher;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
    /** Skip the IP access-limit check (only for routes that must answer anyone, e.g. login reports its own error). */
    skipIpLimit?: boolean;
  }
  interface FastifyReply {
    /** Sends the success envelope `{status: 200, message: 'OK', result}`. */
    ok<T>(result: T): FastifyReply;
  }
}
