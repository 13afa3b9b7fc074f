import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CredentialScope, TemporaryCredentials } from '../src/lib/credentials';
import { scopeFromSessionPolicy } from '../src/lib/aws/session-policy';
import { parseSigV4Authorization, sigV4SignatureMatches } from '../src/lib/aws/sigv4-verify';

/**
 * A test server speaking the STS Query wire protocol the real `@aws-sdk/client-sts` uses: form-encoded
 * `POST /` with `Action=AssumeRole&Version=2011-06-15&…`, SigV4 Authorization header (service `sts`), and an
 * XML `AssumeRoleResponse` or `ErrorResponse`. It checks the signature against the key pairs it knows and
 * records every AssumeRole it accepts.
 */

/** One accepted AssumeRole: its form parameters and who signed it. */
export interface AssumeRoleCall {
  params: Record<string, string>;
  accessKeyId: string;
  region: string;
}

/** What an AssumeRole answers: credentials, or an STS error. */
export type StsAnswer =
  | { credentials: TemporaryCredentials }
  | { error: { status: number; code: string; message: string; type?: 'Sender' | 'Receiver' } }
  | { raw: { status: number; body: string } };

export interface StsTestServer {
  /** http://127.0.0.1:PORT */
  url: string;
  calls: AssumeRoleCall[];
  /** Requests refused before AssumeRole ran (bad signature, unknown key, wrong action), by error code. */
  refused: string[];
  /** Replaces the answer for the following calls. */
  answer(fn: (call: AssumeRoleCall) => Promise<StsAnswer> | StsAnswer): void;
  close(): Promise<void>;
}

const XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';

function xml(s: string): string {
  return s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function errorXml(code: string, message: string, type: 'Sender' | 'Receiver'): string {
  return (
    `<ErrorResponse xmlns="${XMLNS}"><Error><Type>${type}</Type><Code>${xml(code)}</Code>` +
    `<Message>${xml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`
  );
}

function successXml(params: Record<string, string>, c: TemporaryCredentials): string {
  const session = params.RoleSessionName ?? '';
  const role = (params.RoleArn ?? '').replace(
    /^arn:([^:]+):iam::(\d+):role\//,
    'arn:$1:sts::$2:assumed-role/',
  );
  return (
    `<AssumeRoleResponse xmlns="${XMLNS}"><AssumeRoleResult>` +
    `<Credentials><AccessKeyId>${xml(c.accessKeyId)}</AccessKeyId><SecretAccessKey>${xml(c.secretAccessKey)}</SecretAccessKey>` +
    `<SessionToken>${xml(c.sessionToken)}</SessionToken><Expiration>${c.expiration.toISOString()}</Expiration></Credentials>` +
    `<AssumedRoleUser><AssumedRoleId>AROATEST:${xml(session)}</AssumedRoleId><Arn>${xml(role)}/${xml(session)}</Arn></AssumedRoleUser>` +
    `<PackedPolicySize>7</PackedPolicySize></AssumeRoleResult>` +
    `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></AssumeRoleResponse>`
  );
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Starts the server on 127.0.0.1 (a free port). `keys` maps access key ids to secrets the server accepts;
 * `region` is the region requests must be signed for.
 */
export async function startStsServer(opts: {
  keys: Record<string, string>;
  region: string;
  answer: (call: AssumeRoleCall) => Promise<StsAnswer> | StsAnswer;
}): Promise<StsTestServer> {
  let answer = opts.answer;
  const calls: AssumeRoleCall[] = [];
  const refused: string[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const send = (status: number, body: string) => {
        res.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() });
        res.end(body);
      };
      const refuse = (status: number, code: string, message: string) => {
        refused.push(code);
        send(status, errorXml(code, message, 'Sender'));
      };
      const body = await readBody(req);
      const auth = parseSigV4Authorization(req.headers);
      if (!auth) return refuse(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
      const secret = opts.keys[auth.accessKeyId];
      if (secret === undefined) return refuse(403, 'InvalidClientTokenId', 'The security token is invalid.');
      if (auth.service !== 'sts' || auth.region !== opts.region) {
        return refuse(403, 'SignatureDoesNotMatch', `Credential should be scoped to ${opts.region}/sts.`);
      }
      const signed = { method: req.method ?? '', url: req.url ?? '/', headers: req.headers, body };
      if (!(await sigV4SignatureMatches(signed, auth, secret))) {
        return refuse(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match.');
      }
      const params = Object.fromEntries(new URLSearchParams(body));
      if (req.method !== 'POST' || params.Action !== 'AssumeRole' || params.Version !== '2011-06-15') {
        return refuse(400, 'InvalidAction', 'Only AssumeRole 2011-06-15 is served here.');
      }
      const call: AssumeRoleCall = { params, accessKeyId: auth.accessKeyId, region: auth.region };
      calls.push(call);
      const a = await answer(call);
      if ('raw' in a) return send(a.raw.status, a.raw.body);
      if ('error' in a)
        return send(a.error.status, errorXml(a.error.code, a.error.message, a.error.type ?? 'Sender'));
      return send(200, successXml(params, a.credentials));
    })().catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    refused,
    answer(fn) {
      answer = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The policy document of a call, parsed. */
export interface PolicyDocument {
  Version: string;
  Statement: { Effect: string; Action: string[]; Resource: string }[];
}

export function policyOf(call: AssumeRoleCall): PolicyDocument {
  return JSON.parse(call.params.Policy ?? 'null') as PolicyDocument;
}

/**
 * The credential scope an STS session policy of the issuer describes (read back by the same code the STS
 * stand-in uses). Throws for anything else.
 */
export function scopeFromPolicy(doc: PolicyDocument): CredentialScope {
  const scope = scopeFromSessionPolicy(JSON.stringify(doc));
  if (!scope) throw new Error(`not a session policy of the issuer: ${JSON.stringify(doc)}`);
  return scope;
}
