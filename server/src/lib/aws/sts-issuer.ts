import { AssumeRoleCommand, STSClient, type STSClientConfig } from '@aws-sdk/client-sts';
import { ApiError } from '../api-error';
import type { CredentialIssuer, CredentialScope, TemporaryCredentials } from '../credentials';
import {
  clampDuration,
  parseRoleArn,
  roleSessionName,
  sessionPolicy,
  type RoleTarget,
} from './session-policy';

/** The part of a pino/Fastify logger the AWS helpers use. */
export interface AwsLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface StsIssuerOptions {
  /** The role the browser credentials are assumed from (AWS_ROLE_ARN). */
  roleArn: string;
  /** STS region (STS_REGION, default KVS_REGION): the regional endpoint is used. */
  region: string;
  /** STS endpoint override (STS_ENDPOINT), e.g. a VPC endpoint or a test server. */
  endpoint?: string | undefined;
  /** The region the KVS channels live in, for the channel ARN of the session policy. */
  kvsRegion: string;
  /** The server's own credentials; default the SDK's provider chain (env, profile, web identity, ECS, EC2). */
  credentials?: STSClientConfig['credentials'];
  /** Attempts per AssumeRole, the SDK's standard retry with backoff (default 3). */
  maxAttempts?: number | undefined;
  log: AwsLog;
}

/** STS error codes that mean the server's configuration is wrong (retrying will not help). */
const CONFIGURATION_ERRORS = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'MalformedPolicyDocument',
  'MalformedPolicyDocumentException',
  'PackedPolicyTooLarge',
  'PackedPolicyTooLargeException',
  'RegionDisabledException',
  'ValidationError',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'ExpiredTokenException',
  'CredentialsProviderError',
]);

/**
 * Production credentials: STS AssumeRole of the configured role for every issue, with an inline session
 * policy that allows only the browser's actions on only the scope's one channel or object key
 * (`session-policy.ts`), DurationSeconds clamped to 900…43,200 and a RoleSessionName naming the purpose.
 * The issued expiry is STS's (at least 15 minutes even for a shorter request).
 *
 * A failure is logged with the AWS error and answered as a 503 ApiError that names no AWS detail; the
 * browser retries on its next poll or request.
 */
export class StsCredentialIssuer implements CredentialIssuer {
  private readonly client: STSClient;
  private readonly target: RoleTarget;

  constructor(private readonly opts: StsIssuerOptions) {
    const target = parseRoleArn(opts.roleArn);
    if (!target) throw new Error(`AWS_ROLE_ARN is not an IAM role ARN: ${opts.roleArn}`);
    this.target = target;
    this.client = new STSClient({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      maxAttempts: opts.maxAttempts ?? 3,
      requestHandler: { connectionTimeout: 3000, requestTimeout: 5000, throwOnRequestTimeout: true },
    });
  }

  async issue(scope: CredentialScope, ttlSeconds: number): Promise<TemporaryCredentials> {
    const input = {
      RoleArn: this.opts.roleArn,
      RoleSessionName: roleSessionName(scope),
      DurationSeconds: clampDuration(ttlSeconds),
      Policy: sessionPolicy(scope, this.opts.kvsRegion, this.target),
    };
    let out;
    try {
      out = await this.client.send(new AssumeRoleCommand(input));
    } catch (err) {
      throw this.failure(scope, input.RoleSessionName, err);
    }
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !(c.Expiration instanceof Date)) {
      throw this.failure(scope, input.RoleSessionName, new Error('AssumeRole returned no credentials'));
    }
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      sessionToken: c.SessionToken,
      expiration: c.Expiration,
    };
  }

  /** Closes the SDK client's sockets. */
  destroy(): void {
    this.client.destroy();
  }

  private failure(scope: CredentialScope, sessionName: string, err: unknown): ApiError {
    const e = err as {
      name?: unknown;
      message?: unknown;
      $metadata?: { httpStatusCode?: number; requestId?: string };
    };
    const code = typeof e.name === 'string' ? e.name : 'Error';
    const detail = {
      stsError: code,
      stsMessage: typeof e.message === 'string' ? e.message : String(err),
      httpStatus: e.$metadata?.httpStatusCode,
      requestId: e.$metadata?.requestId,
      roleArn: this.opts.roleArn,
      roleSessionName: sessionName,
    };
    if (CONFIGURATION_ERRORS.has(code))
      this.opts.log.error(
        detail,
        'STS AssumeRole refused: check AWS_ROLE_ARN, its trust policy and the server principal',
      );
    else this.opts.log.warn(detail, 'STS AssumeRole failed');
    const what = scope.kind === 'kvs' ? 'Signaling' : 'Recording upload';
    return new ApiError(503, 'internal', `${what} credentials could not be issued; retry later.`, {
      'Retry-After': '5',
    });
  }
}
