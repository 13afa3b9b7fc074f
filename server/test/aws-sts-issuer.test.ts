import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../src/lib/api-error';
import {
  LocalCredentialIssuer,
  ServiceCredentialIssuer,
  type CredentialScope,
  type TemporaryCredentials,
} from '../src/lib/credentials';
import {
  KVS_BROWSER_ACTIONS,
  roleSessionName,
  scopeFromSessionPolicy,
  sessionPolicy,
} from '../src/lib/aws/session-policy';
import { StsCredentialIssuer, type AwsLog } from '../src/lib/aws/sts-issuer';
import { policyOf, startStsServer, type StsAnswer, type StsTestServer } from './sts-server';

const ROLE = 'arn:aws:iam::123456789012:role/proctor-browser';
const KEY = { accessKeyId: 'AKIASERVERTEST', secretAccessKey: 'server-secret-for-tests' };
const REGION = 'ap-northeast-1';

let sts: StsTestServer;
const logged: { level: 'warn' | 'error'; obj: Record<string, unknown>; msg: string }[] = [];
const log: AwsLog = {
  warn: (obj, msg) => logged.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
  error: (obj, msg) => logged.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
};

function issued(n: number): TemporaryCredentials {
  return {
    accessKeyId: `ASIATEST${n}`,
    secretAccessKey: `secret-${n}`,
    sessionToken: `token-${n}`,
    // A fixed instant per answer (whole seconds, as STS sends), so the expectation cannot cross a second.
    expiration: new Date(Date.UTC(2040, 0, 1) + n * 1000),
  };
}

let counter = 0;
const ok = (): StsAnswer => ({ credentials: issued(++counter) });

function issuer(over: Partial<ConstructorParameters<typeof StsCredentialIssuer>[0]> = {}) {
  return new StsCredentialIssuer({
    roleArn: ROLE,
    region: REGION,
    endpoint: sts.url,
    kvsRegion: REGION,
    credentials: KEY,
    maxAttempts: 1,
    log,
    ...over,
  });
}

beforeAll(async () => {
  sts = await startStsServer({
    keys: { [KEY.accessKeyId]: KEY.secretAccessKey },
    region: REGION,
    answer: ok,
  });
});
afterAll(async () => {
  await sts.close();
});
beforeEach(() => {
  sts.calls.length = 0;
  sts.refused.length = 0;
  logged.length = 0;
  sts.answer(ok);
});

describe('StsCredentialIssuer against the STS wire protocol', () => {
  it('assumes the role for a KVS master with a policy for exactly that channel and the master’s actions', async () => {
    const creds = await issuer().issue(
      { kind: 'kvs', channelName: 'exam-7-0123456789ab', role: 'master' },
      3600,
    );
    expect(creds).toEqual(issued(counter));
    expect(creds.expiration).toBeInstanceOf(Date);
    expect(sts.calls).toHaveLength(1);
    const call = sts.calls[0]!;
    // Signed with the server's own key for STS in the configured region (the server checked the signature).
    expect(call).toMatchObject({ accessKeyId: KEY.accessKeyId, region: REGION });
    expect(call.params).toMatchObject({
      Action: 'AssumeRole',
      Version: '2011-06-15',
      RoleArn: ROLE,
      RoleSessionName: 'kvs-master-exam-7-0123456789ab',
      DurationSeconds: '3600',
    });
    expect(policyOf(call)).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: [
            'kinesisvideo:DescribeSignalingChannel',
            'kinesisvideo:GetSignalingChannelEndpoint',
            'kinesisvideo:GetIceServerConfig',
            'kinesisvideo:ConnectAsMaster',
          ],
          Resource: 'arn:aws:kinesisvideo:ap-northeast-1:123456789012:channel/exam-7-0123456789ab/*',
        },
      ],
    });
  });

  it('gives a viewer ConnectAsViewer and never ConnectAsMaster', async () => {
    await issuer().issue({ kind: 'kvs', channelName: 'exam-7-0123456789ab', role: 'viewer' }, 3600);
    const call = sts.calls[0]!;
    expect(call.params.RoleSessionName).toBe('kvs-viewer-exam-7-0123456789ab');
    const [st] = policyOf(call).Statement;
    expect(st?.Action).toEqual([
      'kinesisvideo:DescribeSignalingChannel',
      'kinesisvideo:GetSignalingChannelEndpoint',
      'kinesisvideo:GetIceServerConfig',
      'kinesisvideo:ConnectAsViewer',
    ]);
  });

  it('gives a recording upload s3:PutObject on the one object key only', async () => {
    await issuer().issue({ kind: 's3', bucket: 'recordings', key: 'recordings/12/34-1.webm' }, 3600);
    const call = sts.calls[0]!;
    expect(call.params.RoleSessionName).toBe('s3-put-recordings-recordings-12-34-1.webm');
    expect(policyOf(call).Statement).toEqual([
      {
        Effect: 'Allow',
        Action: ['s3:PutObject'],
        Resource: 'arn:aws:s3:::recordings/recordings/12/34-1.webm',
      },
    ]);
  });

  it('writes IAM wildcard characters of a key literally, so the policy cannot widen', async () => {
    await issuer().issue({ kind: 's3', bucket: 'rec', key: 'a*b?c$d' }, 3600);
    expect(policyOf(sts.calls[0]!).Statement[0]?.Resource).toBe('arn:aws:s3:::rec/a${*}b${?}c${$}d');
  });

  it('clamps DurationSeconds to 900…43200', async () => {
    const i = issuer();
    const scope: CredentialScope = { kind: 'kvs', channelName: 'exam-1-aaaaaaaaaaaa', role: 'master' };
    for (const ttl of [60, 899.6, 1234.4, 100_000]) await i.issue(scope, ttl);
    expect(sts.calls.map((c) => c.params.DurationSeconds)).toEqual(['900', '900', '1234', '43200']);
  });

  it('keeps session names within 64 allowed characters, distinct for long keys that share a start', async () => {
    const long = (n: number) => ({
      kind: 's3' as const,
      bucket: 'recordings',
      key: `${'x/'.repeat(40)}${n}.webm`,
    });
    const a = roleSessionName(long(1));
    const b = roleSessionName(long(2));
    for (const n of [a, b]) {
      expect(n.length).toBeLessThanOrEqual(64);
      expect(n).toMatch(/^[\w+=,.@-]{2,64}$/);
    }
    expect(a).not.toBe(b);
    await issuer().issue(long(1), 3600);
    expect(sts.calls[0]?.params.RoleSessionName).toBe(a);
  });

  it('takes partition and account for the resource from the role ARN', async () => {
    await issuer({ roleArn: 'arn:aws-cn:iam::210987654321:role/x', kvsRegion: 'cn-north-1' }).issue(
      { kind: 'kvs', channelName: 'exam-2-bbbbbbbbbbbb', role: 'viewer' },
      3600,
    );
    expect(policyOf(sts.calls[0]!).Statement[0]?.Resource).toBe(
      'arn:aws-cn:kinesisvideo:cn-north-1:210987654321:channel/exam-2-bbbbbbbbbbbb/*',
    );
    expect(() => issuer({ roleArn: 'arn:aws:iam::123:user/someone' })).toThrow(/AWS_ROLE_ARN/);
  });
});

describe('STS failures', () => {
  const scope: CredentialScope = { kind: 'kvs', channelName: 'exam-3-cccccccccccc', role: 'master' };

  async function failure(i: StsCredentialIssuer, s: CredentialScope = scope): Promise<ApiError> {
    const err = await i.issue(s, 3600).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }

  it('answers a refused AssumeRole with a 503 that names no AWS detail, and logs the AWS error', async () => {
    sts.answer(() => ({
      error: {
        status: 403,
        code: 'AccessDenied',
        message: 'User arn:aws:iam::123456789012:user/srv is not authorized',
      },
    }));
    const err = await failure(issuer());
    expect(err).toMatchObject({ status: 503, code: 'internal', headers: { 'Retry-After': '5' } });
    expect(err.message).toBe('Signaling credentials could not be issued; retry later.');
    expect(err.message).not.toMatch(/arn:|AccessDenied|not authorized/);
    expect(logged).toEqual([
      {
        level: 'error',
        msg: expect.stringContaining('AWS_ROLE_ARN'),
        obj: expect.objectContaining({
          stsError: 'AccessDenied',
          stsMessage: expect.stringContaining('not authorized'),
          httpStatus: 403,
          roleSessionName: 'kvs-master-exam-3-cccccccccccc',
        }),
      },
    ]);
    const s3 = await failure(issuer(), { kind: 's3', bucket: 'b', key: 'k' });
    expect(s3.message).toBe('Recording upload credentials could not be issued; retry later.');
  });

  it('retries throttling and server errors up to maxAttempts, then gives up with a warning', async () => {
    sts.answer(() => ({ error: { status: 400, code: 'Throttling', message: 'Rate exceeded' } }));
    expect((await failure(issuer({ maxAttempts: 3 }))).status).toBe(503);
    expect(sts.calls).toHaveLength(3);
    expect(logged).toMatchObject([{ level: 'warn', obj: { stsError: 'Throttling' } }]);

    sts.calls.length = 0;
    let n = 0;
    sts.answer(() =>
      ++n < 2
        ? { error: { status: 500, code: 'InternalFailure', message: 'boom', type: 'Receiver' } }
        : { credentials: issued(++counter) },
    );
    const creds = await issuer({ maxAttempts: 3 }).issue(scope, 3600);
    expect(creds).toEqual(issued(counter));
    expect(sts.calls).toHaveLength(2);
  });

  it('fails cleanly on a wrong server key (signature checked), a malformed answer and an unreachable STS', async () => {
    const wrong = await failure(issuer({ credentials: { ...KEY, secretAccessKey: 'wrong' } }));
    expect(wrong.status).toBe(503);
    expect(sts.refused).toEqual(['SignatureDoesNotMatch']);
    expect(sts.calls).toEqual([]);
    expect(logged[0]).toMatchObject({ level: 'error', obj: { stsError: 'SignatureDoesNotMatch' } });

    logged.length = 0;
    sts.answer(() => ({
      raw: {
        status: 200,
        body: '<AssumeRoleResponse><AssumeRoleResult></AssumeRoleResult></AssumeRoleResponse>',
      },
    }));
    expect((await failure(issuer())).status).toBe(503);
    expect(logged[0]).toMatchObject({
      level: 'warn',
      obj: { stsMessage: 'AssumeRole returned no credentials' },
    });

    const gone = await startStsServer({ keys: {}, region: REGION, answer: ok });
    await gone.close();
    expect((await failure(issuer({ endpoint: gone.url }))).status).toBe(503);
  });
});

describe('ServiceCredentialIssuer', () => {
  it('sends KVS scopes to one issuer and S3 scopes to the other', async () => {
    const local = new LocalCredentialIssuer();
    const both = new ServiceCredentialIssuer({ kvs: issuer(), s3: local });
    const k = await both.issue({ kind: 'kvs', channelName: 'exam-4-dddddddddddd', role: 'viewer' }, 900);
    expect(sts.calls).toHaveLength(1);
    expect(local.lookup(k.accessKeyId)).toBeNull();
    const s = await both.issue({ kind: 's3', bucket: 'b', key: 'k' }, 900);
    expect(sts.calls).toHaveLength(1);
    expect(local.lookup(s.accessKeyId, s.sessionToken)?.scope).toEqual({ kind: 's3', bucket: 'b', key: 'k' });
  });
});

describe('scopeFromSessionPolicy (what the STS stand-in issues)', () => {
  const target = { partition: 'aws', account: '123456789012' };
  it('reads back exactly the scope a session policy was made for, escapes included', () => {
    const scopes: CredentialScope[] = [
      { kind: 'kvs', channelName: 'exam-12-0123456789ab', role: 'master' },
      { kind: 'kvs', channelName: 'exam-12-0123456789ab', role: 'viewer' },
      { kind: 's3', bucket: 'recordings', key: 'recordings/12/3-1.webm' },
      { kind: 's3', bucket: 'recordings', key: 'odd/k*e?y$.webm' },
    ];
    for (const scope of scopes)
      expect(scopeFromSessionPolicy(sessionPolicy(scope, 'ap-northeast-1', target))).toEqual(scope);
  });

  it('refuses anything broader or different: it never issues more than one resource', () => {
    const doc = (statement: object | object[]) =>
      JSON.stringify({ Version: '2012-10-17', Statement: statement });
    const put = { Effect: 'Allow', Action: ['s3:PutObject'] };
    for (const p of [
      'not json',
      doc([]),
      doc({ ...put, Resource: 'arn:aws:s3:::recordings/*' }),
      doc({ ...put, Resource: 'arn:aws:s3:::*/k' }),
      doc({ ...put, Effect: 'Deny', Resource: 'arn:aws:s3:::b/k' }),
      doc({ Effect: 'Allow', Action: ['s3:*'], Resource: 'arn:aws:s3:::b/k' }),
      doc([
        { ...put, Resource: 'arn:aws:s3:::b/k' },
        { ...put, Resource: 'arn:aws:s3:::b/l' },
      ]),
      doc({
        Effect: 'Allow',
        Action: ['kinesisvideo:ConnectAsMaster', 'kinesisvideo:ConnectAsViewer'],
        Resource: 'arn:aws:kinesisvideo:ap-northeast-1:123456789012:channel/exam-1/*',
      }),
      doc({
        Effect: 'Allow',
        Action: [...KVS_BROWSER_ACTIONS.viewer],
        Resource: 'arn:aws:kinesisvideo:ap-northeast-1:123456789012:channel/*/*',
      }),
    ])
      expect(scopeFromSessionPolicy(p), p).toBeNull();
  });
});
