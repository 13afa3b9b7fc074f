import {
  AccountImportBody,
  AccountImportResult,
  AccountListQuery,
  AccountListResult,
  AccountLoginIdBody,
  AccountSetDisabledBody,
  GroupCreateBody,
  GroupListResult,
  GroupRow,
  PasswordResetResult,
} from '../../../../../../contract/accounts';
import { ACTOR, type Actor, Envelope } from '../../../../../../contract/common';
import {
  AccountError,
  createGroup,
  importAccounts,
  listAccounts,
  listGroups,
  resetPassword,
  setDisabled,
} from '../../../../lib/accounts';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { Type } from 'typebox';

/** Only system managers manage accounts (supervisors see the other management pages, not this one). */
const ACCOUNT_ADMINS: readonly Actor[] = [ACTOR.systemManager];

function toApiError(e: unknown): unknown {
  if (!(e instanceof AccountError)) return e;
  if (e.kind === 'not_found') return new ApiError(404, 'not_found', e.message);
  if (e.kind === 'conflict') return new ApiError(409, 'conflict', e.message);
  return new ApiError(400, 'validation', e.message);
}

/** The Accounts page's calls (system managers only): list, groups, CSV import, disable/enable, reset. */
export default async function accountRoutes(app: App): Promise<void> {
  const config = { access: ACCOUNT_ADMINS };
  const who = (req: { auth: { userId: number; actor: number; loginId: string } | null; ip: string }) => ({
    userId: req.auth?.userId,
    actor: req.auth?.actor,
    loginId: req.auth?.loginId,
    ip: req.ip,
  });

  app.get(
    '/accounts/list.php',
    { config, schema: { querystring: AccountListQuery, response: { 200: Envelope(AccountListResult) } } },
    async (request, reply) => {
      const q = request.query;
      const actor = q.actor === undefined || q.actor === '' ? undefined : (Number(q.actor) as Actor);
      return reply.ok(
        await listAccounts(app.db, {
          actor,
          groupCode: q.group_code || undefined,
          q: q.q?.trim() || undefined,
          status: q.status,
          page: q.page,
        }),
      );
    },
  );

  app.get(
    '/accounts/groups.php',
    { config, schema: { response: { 200: Envelope(GroupListResult) } } },
    async (_request, reply) => reply.ok({ list: await listGroups(app.db) }),
  );

  app.post(
    '/accounts/create_group.php',
    { config, schema: { body: GroupCreateBody, response: { 200: Envelope(GroupRow) } } },
    async (request, reply) => {
      const g = await createGroup(app.db, request.body.code, request.body.name).catch((e: unknown) => {
        throw toApiError(e);
      });
      await audit(app.db, { type: 'account.group_created', target: g.code, ...who(request) });
      return reply.ok(g);
    },
  );

  app.post(
    '/accounts/import.php',
    {
      config,
      // A term's CSV can be large (Japanese names are 3 bytes each); the rest of the API keeps 1 MB.
      bodyLimit: 4 * 1024 * 1024,
      schema: { body: AccountImportBody, response: { 200: Envelope(AccountImportResult) } },
    },
    async (request, reply) => {
      const { csv, dry_run: dryRun = false, skip_invalid: skipInvalid = false } = request.body;
      try {
        // The text came as a JSON string, so it is Unicode already; the parser drops a leading BOM.
        const r = await importAccounts(app.db, csv, { dryRun, skipInvalid });
        if (!dryRun && !r.applied) {
          const lines = new Set(r.errors.map((e) => e.line)).size;
          throw new ApiError(400, 'validation', `${lines} invalid rows: nothing was imported.`);
        }
        if (r.applied) {
          await audit(app.db, {
            type: 'account.imported',
            details: JSON.stringify({ created: r.created, updated: r.updated, skipped: r.skipped }),
            ...who(request),
          });
        }
        return reply.ok(r);
      } catch (e) {
        throw toApiError(e);
      }
    },
  );

  app.post(
    '/accounts/set_disabled.php',
    { config, schema: { body: AccountSetDisabledBody, response: { 200: Envelope(Type.Null()) } } },
    async (request, reply) => {
      const { login_id: loginId, disabled } = request.body;
      if (disabled && loginId.trim() === request.auth!.loginId)
        throw new ApiError(409, 'conflict', 'You cannot disable your own account.');
      await setDisabled(app.db, loginId, disabled).catch((e: unknown) => {
        throw toApiError(e);
      });
      await audit(app.db, {
        type: disabled ? 'account.disabled' : 'account.enabled',
        target: loginId.trim(),
        ...who(request),
      });
      return reply.ok(null);
    },
  );

  app.post(
    '/accounts/reset_password.php',
    { config, schema: { body: AccountLoginIdBody, response: { 200: Envelope(PasswordResetResult) } } },
    async (request, reply) => {
      const loginId = request.body.login_id.trim();
      const r = await resetPassword(app.db, loginId).catch((e: unknown) => {
        throw toApiError(e);
      });
      await audit(app.db, { type: 'account.password_reset', target: loginId, ...who(request) });
      return reply.ok({ login_id: loginId, password: r.generatedPassword! });
    },
  );
}
