import type { FastifyRequest } from 'fastify';
import { ADMIN_ACTORS, Envelope, type Actor } from '../../../../../../contract/common';
import {
  CheckersMonitoringResult,
  DeleteMatchingBody,
  DeleteMatchingResult,
  KvsReconnectQuery,
  KvsReconnectResult,
  MatchingBody,
  MatchingHistoriesQuery,
  MatchingHistoriesResult,
  MatchingResult,
  MonitorActivateBody,
  MonitorActivateListResult,
  MonitorActivateResult,
} from '../../../../../../contract/matching';
import type { App } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { MatchingEngine, type PollContext } from '../../../../lib/matching-engine';
import { loadMatchingSettings } from '../../../../lib/matching-settings';
import { activationList, histories, monitoring, setActivation } from '../../../../lib/matching-views';
import { PhoneViews } from '../../../../lib/phone/phone-camera';

const TESTER_AND_CHECKER: readonly Actor[] = [1, 2];
const CHECKER_AND_ADMINS: readonly Actor[] = [2, ...ADMIN_ACTORS];

/** preValidation: a bare POST (no body, or JSON null) means "no fields", e.g. a checker's plain poll. */
async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

function pollContext(request: FastifyRequest): PollContext {
  return { endpointBase: `${request.protocol}://${request.host}` };
}

/**
 * The live channel (spec §7): matching, delete_matching, kvs_reconnect, checkers/monitoring,
 * checkers/matching_histories, tester/monitor_activate and tester/monitor_activate_list.
 */
export default async function matchingRoutes(app: App): Promise<void> {
  const engine = new MatchingEngine(app, loadMatchingSettings());
  const phones = new PhoneViews(app, engine.channels, engine.settings.sweepIntervalMs);

  app.post(
    '/matching.php',
    {
      config: { access: TESTER_AND_CHECKER },
      schema: { body: MatchingBody, response: { 200: Envelope(MatchingResult) } },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const auth = request.auth!;
      const ctx = pollContext(request);
      const result =
        auth.actor === 1
          ? await engine.testerPoll(auth, request.body, ctx)
          : await engine.checkerPoll(auth, request.body, ctx);
      // The sittings' phone cameras, beside the matchings (no query for sittings without one).
      result.matchings = await phones.attach(result.matchings, {
        side: auth.actor === 1 ? 'tester' : 'checker',
        viewerId: auth.userId,
        endpointBase: ctx.endpointBase,
      });
      // From arrival to answer: how far behind this instance is (the liveness sweep allows for it).
      engine.lag.meter.note(reply.elapsedTime);
      return reply.ok(result);
    },
  );

  app.post(
    '/delete_matching.php',
    {
      config: { access: TESTER_AND_CHECKER },
      schema: { body: DeleteMatchingBody, response: { 200: Envelope(DeleteMatchingResult) } },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const auth = request.auth!;
      const result = await engine.deleteMatching(auth, request.body);
      return reply.ok(result);
    },
  );

  app.get(
    '/kvs_reconnect.php',
    {
      config: { access: TESTER_AND_CHECKER },
      schema: { querystring: KvsReconnectQuery, response: { 200: Envelope(KvsReconnectResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const ctx = pollContext(request);
      const m = await engine.reconnect(auth, request.query, ctx);
      if (!m) return reply.ok(null);
      // The sitting's phone camera too: a checker reconnecting gets fresh credentials of the phone's channel
      // beside the camera's, so its phone view reconnects with them (README "Phone as a second camera").
      const [withPhone] = await phones.attach([m], {
        side: auth.actor === 1 ? 'tester' : 'checker',
        viewerId: auth.userId,
        endpointBase: ctx.endpointBase,
        fresh: true,
      });
      return reply.ok(withPhone!);
    },
  );

  app.post(
    '/tester/monitor_activate.php',
    {
      config: { access: CHECKER_AND_ADMINS },
      schema: { body: MonitorActivateBody, response: { 200: Envelope(MonitorActivateResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const result = await setActivation(app.db, auth, request.body);
      await audit(app.db, {
        type: 'matching.monitor_activate',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        ip: request.ip,
        target: String(result.monitor_id),
        details: result.activation ? 'on' : 'off',
      });
      return reply.ok(result);
    },
  );

  app.get(
    '/tester/monitor_activate_list.php',
    {
      config: { access: CHECKER_AND_ADMINS },
      schema: { response: { 200: Envelope(MonitorActivateListResult) } },
    },
    async (_request, reply) => reply.ok(await activationList(app.db)),
  );

  app.get(
    '/checkers/monitoring.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { response: { 200: Envelope(CheckersMonitoringResult) } },
    },
    async (_request, reply) => reply.ok(await monitoring(app.db)),
  );

  app.get(
    '/checkers/matching_histories.php',
    {
      config: { access: CHECKER_AND_ADMINS },
      schema: { querystring: MatchingHistoriesQuery, response: { 200: Envelope(MatchingHistoriesResult) } },
    },
    async (request, reply) => reply.ok(await histories(app.db, request.auth!, request.query)),
  );
}
