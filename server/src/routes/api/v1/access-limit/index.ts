import { ACTOR, ADMIN_ACTORS, Envelope, MANAGER_ACTORS } from '../../../../../../contract/common';
import {
  AccessLimitDeleteBody,
  AccessLimitInsertBody,
  AccessLimitListResult,
  AccessLimitRow,
  DeletedResult,
} from '../../../../../../contract/management';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import {
  accessLimitRulesOf,
  deleteAccessLimits,
  insertAccessLimit,
  listAccessLimits,
  rulesAdmit,
  type AccessLimitRule,
} from '../../../../lib/management/access-limit-rules';
import { FieldError, MSG, toId, installFieldErrorHandler } from '../../../../lib/management-errors';
import { isDomain, isIpv4Rule, isServerName } from '../../../../lib/management/validate';

/** spec §3: the actors an access limit can name (examinees are never limited). */
const LIMITABLE_ACTORS: readonly number[] = [ACTOR.checker, ...MANAGER_ACTORS];

const SELF_LOCKOUT =
  'この設定を反映すると、操作中のあなた自身がこのアクセス元から利用できなくなるため、実行できません。自分のIPアドレスまたはドメインを許可する設定を先に登録してください。';

/** access_limit/select_access_limit, insert_access_limit, delete_access_limit (spec §3, §5, §7). */
export default async function accessLimitRoutes(app: App): Promise<void> {
  installFieldErrorHandler(app);

  app.get(
    '/access_limit/select_access_limit.php',
    { config: { access: ADMIN_ACTORS }, schema: { response: { 200: Envelope(AccessLimitListResult) } } },
    async (_request, reply) =>
      reply.ok({ list: await listAccessLimits(app.db) } satisfies AccessLimitListResult),
  );

  app.post(
    '/access_limit/insert_access_limit.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { body: AccessLimitInsertBody, response: { 200: Envelope(AccessLimitRow) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const b = request.body;
      const server = (b.server ?? '').trim();
      const ip = (b.ip ?? '').trim();
      const domain = (b.domain ?? '').trim().toLowerCase();
      const actor = Number(b.actor);
      if (!LIMITABLE_ACTORS.includes(actor)) {
        // spec §3: only actors 2 to 5 can be targets of access limits.
        throw new FieldError('actor', '対象アクターは2〜5のいずれかを指定してください。');
      }
      if ((ip === '') === (domain === '')) throw new FieldError(ip === '' ? 'ip' : 'domain', MSG.ipOrDomain);
      if (ip !== '' && !isIpv4Rule(ip)) throw new FieldError('ip', MSG.ipv4);
      if (domain !== '' && !isDomain(domain))
        throw new FieldError('domain', 'ドメインはexample.comの形式でなければなりません。');
      if (server !== '' && !isServerName(server)) {
        throw new FieldError(
          'server',
          '認証サーバーはFQDNの形式で、末尾のスラッシュなしで入力してください。',
        );
      }
      const candidate: AccessLimitRule = { id: 0, server, ip: ip || null, domain: domain || null, actor };
      if (actor === auth.actor) {
        const after = [...(await accessLimitRulesOf(app.db, actor)), candidate];
        if (!(await rulesAdmit(after, auth.actor, request.ip, request.hostname)))
          throw new ApiError(409, 'access_limit_self_lockout', SELF_LOCKOUT);
      }
      const row = await insertAccessLimit(app.db, candidate);
      await audit(app.db, {
        type: 'settings.access_limit.insert',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        ip: request.ip,
        target: `access_limit:${row.id}`,
        details: JSON.stringify({ server, ip: candidate.ip, domain: candidate.domain, actor }),
      });
      return reply.ok(row);
    },
  );

  app.post(
    '/access_limit/delete_access_limit.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { body: AccessLimitDeleteBody, response: { 200: Envelope(DeletedResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const ids = [...new Set((request.body.ids ?? []).map((v) => toId(v, 'ids')))];
      if (ids.length === 0) throw new FieldError('ids', MSG.selectOne);
      const remaining = (await accessLimitRulesOf(app.db, auth.actor)).filter((r) => !ids.includes(r.id));
      if (!(await rulesAdmit(remaining, auth.actor, request.ip, request.hostname)))
        throw new ApiError(409, 'access_limit_self_lockout', SELF_LOCKOUT);
      const rowCount = await deleteAccessLimits(app.db, ids);
      await audit(app.db, {
        type: 'settings.access_limit.delete',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        ip: request.ip,
        target: `access_limit:${ids.join(',')}`.slice(0, 256),
        details: JSON.stringify({ ids, deleted: rowCount }),
      });
      return reply.ok({ deleted: rowCount } satisfies DeletedResult);
    },
  );
}
