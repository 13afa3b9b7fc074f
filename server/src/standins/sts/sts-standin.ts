import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { LocalCredentialIssuer } from '../../lib/credentials';
import {
  STS_MAX_DURATION_SECONDS,
  STS_MIN_DURATION_SECONDS,
  parseRoleArn,
  scopeFromSessionPolicy,
} from '../../lib/aws/session-policy';
import { parseAmzDate, parseSigV4Authorization, sigV4SignatureMatches } from '../../lib/aws/sigv4-verify';

/** What the STS stand-in needs: who may call it, which role it plays, and the registry it issues into. */
export interface StsStandinOptions {
  /** The app servers' own key pair (their IAM principal), the only caller AssumeRole accepts. */
  server: { accessKeyId: string; secretAccessKey: string };
  /** The one role browsers' credentials are assumed from (the app's AWS_ROLE_ARN). */
  roleArn: string;
  /** The region requests must be signed for (the app's STS_REGION). */
  region: string;
  /** The credential registry the KVS and S3 stand-ins check requests against. */
  issuer: LocalCredentialIssuer;
}

const XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';
/** SigV4 allows 15 minutes of clock skew. */
const MAX_SKEW_MS = 15 * 60_000;

function xml(s: string): string {
  return s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply
    .code(status)
    .type('text/xml')
    .send(
      `<ErrorResponse xmlns="${XMLNS}"><Error><Type>Sender</Type><Code>${xml(code)}</Code>` +
        `<Message>${xml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
    );
}

/**
 * A local STS for the stand-ins service (`npm run standins`): `POST /sts` speaks the STS Query protocol
 * `@aws-sdk/client-sts` sends (form-encoded `Action=AssumeRole&Version=2011-06-15&…`, SigV4 header auth,
 * XML answer), so app instances issue every browser credential through the same `StsCredentialIssuer` as
 * against AWS, with STS_ENDPOINT pointing here. It accepts only the server key pair's signature (checked
 * like the KVS and S3 stand-ins check theirs), only `roleArn`, and only a session policy of the app's shape
 * (`session-policy.ts`): the credentials it issues into the shared registry allow exactly that one channel
 * end or object key, as the policy would on AWS. Like STS's, they cannot be revoked: they expire.
 */
async function stsStandin(app: FastifyInstance, opts: StsStandinOptions): Promise<void> {
  const target = parseRoleArn(opts.roleArn);
  if (!target) throw new Error(`Not an IAM role ARN: ${opts.roleArn}`);
  await app.register(async (scope) => {
    // The body stays text: the signature covers its exact bytes.
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) =>
      done(null, body),
    );
    for (const url of ['/sts', '/sts/']) {
      scope.post(url, async (request, reply) => {
        const body = typeof request.body === 'string' ? request.body : '';
        const auth = parseSigV4Authorization(request.headers);
        if (!auth)
          return sendError(
            reply,
            403,
            'MissingAuthenticationToken',
            'Request is missing Authentication Token',
          );
        if (auth.accessKeyId !== opts.server.accessKeyId)
          return sendError(
            reply,
            403,
            'InvalidClientTokenId',
            'The security token included in the request is invalid.',
          );
        if (auth.service !== 'sts' || auth.region !== opts.region) {
          return sendError(
            reply,
            403,
            'SignatureDoesNotMatch',
            `Credential should be scoped to a valid region (${opts.region}) and service sts.`,
          );
        }
        const at = parseAmzDate(auth.amzDate);
        if (!at || Math.abs(at.getTime() - Date.now()) > MAX_SKEW_MS)
          return sendError(reply, 403, 'SignatureDoesNotMatch', 'Signature expired or not yet current.');
        const signed = { method: request.method, url: request.url, headers: request.headers, body };
        if (!(await sigV4SignatureMatches(signed, auth, opts.server.secretAccessKey)))
          return sendError(
            reply,
            403,
            'SignatureDoesNotMatch',
            'The request signature we calculated does not match.',
          );
        const p = Object.fromEntries(new URLSearchParams(body));
        if (p.Action !== 'AssumeRole' || p.Version !== '2011-06-15')
          return sendError(reply, 400, 'InvalidAction', 'Only AssumeRole (2011-06-15) is served here.');
        if (p.RoleArn !== opts.roleArn)
          return sendError(
            reply,
            403,
            'AccessDenied',
            `Not authorized to perform sts:AssumeRole on ${p.RoleArn ?? ''}`,
          );
        const session = p.RoleSessionName ?? '';
        if (!/^[\w+=,.@-]{2,64}$/.test(session))
          return sendError(
            reply,
            400,
            'ValidationError',
            'RoleSessionName must be 2–64 characters of [\\w+=,.@-].',
          );
        const duration = p.DurationSeconds === undefined ? 3600 : Number(p.DurationSeconds);
        if (
          !Number.isInteger(duration) ||
          duration < STS_MIN_DURATION_SECONDS ||
          duration > STS_MAX_DURATION_SECONDS
        )
          return sendError(reply, 400, 'ValidationError', 'DurationSeconds must be 900–43200.');
        const scopeOf = p.Policy ? scopeFromSessionPolicy(p.Policy) : null;
        if (!scopeOf) {
          return sendError(
            reply,
            400,
            'MalformedPolicyDocument',
            'This stand-in issues only credentials scoped to one signaling channel end or one object key.',
          );
        }
        const c = await opts.issuer.issue(scopeOf, duration);
        const assumed = `arn:${target.partition}:sts::${target.account}:assumed-role/${opts.roleArn.split('/').pop()}/${session}`;
        request.log.info({ roleSessionName: session, kind: scopeOf.kind, duration }, 'sts AssumeRole');
        return reply
          .type('text/xml')
          .header('x-amzn-RequestId', randomUUID())
          .send(
            `<AssumeRoleResponse xmlns="${XMLNS}"><AssumeRoleResult>` +
              `<Credentials><AccessKeyId>${xml(c.accessKeyId)}</AccessKeyId>` +
              `<SecretAccessKey>${xml(c.secretAccessKey)}</SecretAccessKey>` +
              `<SessionToken>${xml(c.sessionToken)}</SessionToken>` +
              `<Expiration>${c.expiration.toISOString()}</Expiration></Credentials>` +
              `<AssumedRoleUser><AssumedRoleId>AROALOCALSTANDIN:${xml(session)}</AssumedRoleId>` +
              `<Arn>${xml(assumed)}</Arn></AssumedRoleUser>` +
              `</AssumeRoleResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId>` +
              `</ResponseMetadata></AssumeRoleResponse>`,
          );
      });
    }
  });
}

export default fp(stsStandin, { name: 'sts-standin', fastify: '5.x' });
