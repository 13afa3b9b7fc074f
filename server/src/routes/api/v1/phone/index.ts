import type { FastifyRequest } from 'fastify';
import { Envelope } from '../../../../../../contract/common';
import {
  PhoneEmptyBody,
  PhoneLeaveBody,
  PhoneLeaveResult,
  PhonePairBody,
  PhonePairingResult,
  PhonePairResult,
  PhonePollBody,
  PhonePollResult,
} from '../../../../../../contract/phone';
import type { App } from '../../../../lib/app-types';
import { perIpLimit } from '../../../../lib/db-rate-limit';
import { MatchingChannels } from '../../../../lib/matching-channels';
import { loadMatchingSettings } from '../../../../lib/matching-settings';
import {
  issuePairingCode,
  pairingInvalid,
  pairPhone,
  phoneLeave,
  phonePoll,
} from '../../../../lib/phone/phone-camera';

/** preValidation: a bare POST (no body, or JSON null) means "no fields". */
async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

/**
 * The examinee's phone as a second camera: the examinee's page asks for a pairing code (tester/phone_pairing),
 * the phone spends it (phone/pair, the code is the credential) and then, with the session it got, polls for its
 * signaling credentials (phone/poll) and says when it leaves (phone/leave).
 */
export default async function phoneRoutes(app: App): Promise<void> {
  const settings = loadMatchingSettings();
  const channels = new MatchingChannels(app, settings);

  app.post(
    '/tester/phone_pairing.php',
    {
      config: { access: [1] },
      schema: { body: PhoneEmptyBody, response: { 200: Envelope(PhonePairingResult) } },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const result = await issuePairingCode(app.db, request.auth!.userId);
      reply.header('Cache-Control', 'no-store');
      return reply.ok(result);
    },
  );

  app.post(
    '/phone/pair.php',
    {
      config: {
        // Opened by the phone from the QR code, without a login: the code is the credential. Limited per address,
        // so codes cannot be guessed in bulk.
        access: 'public',
        skipIpLimit: true,
      },
      onRequest: perIpLimit(app, {
        scope: 'phone_pair_ip',
        max: 30,
        windowSeconds: 60,
        message: 'Too many phone pairings from this address.',
      }),
      schema: { body: PhonePairBody, response: { 200: Envelope(PhonePairResult) } },
    },
    async (request, reply) => {
      const result = await pairPhone(app, request.body.code.trim(), request.ip, settings);
      if (!result) throw pairingInvalid();
      reply.header('Cache-Control', 'no-store');
      return reply.ok(result);
    },
  );

  app.post(
    '/phone/poll.php',
    {
      config: { access: ['phone'] },
      schema: { body: PhonePollBody, response: { 200: Envelope(PhonePollResult) } },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) =>
      reply.ok(
        await phonePoll(
          app,
          channels,
          settings,
          request.auth!,
          request.body,
          `${request.protocol}://${request.host}`,
        ),
      ),
  );

  app.post(
    '/phone/leave.php',
    {
      config: { access: ['phone'] },
      schema: { body: PhoneLeaveBody, response: { 200: Envelope(PhoneLeaveResult) } },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) =>
      reply.ok(await phoneLeave(app.db, request.auth!, (request.body as PhoneLeaveBody).run ?? null)),
  );
}
