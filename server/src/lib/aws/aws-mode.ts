import type { ServerConfig } from '../../config';
import type { App } from '../app-types';
import path from 'node:path';
import {
  LocalCredentialIssuer,
  ServiceCredentialIssuer,
  type CredentialIssuer,
  type LocalIssuerOptions,
} from '../credentials';
import { parseKey32 } from '../secrets';
import { loadChannelSweepSettings, startChannelSweeper, type ChannelSweepReport } from './channel-sweep';
import { KvsControl } from './kvs-control';
import { parseRoleArn } from './session-policy';
import { StsCredentialIssuer } from './sts-issuer';

declare module 'fastify' {
  interface FastifyInstance {
    /** AWS-mode signaling-channel management; null when the KVS stand-in serves signaling. */
    kvsControl: KvsControl | null;
    /** The sweep deleting channels no sitting needs (AWS mode only). */
    kvsChannelSweeper: { runNow(): Promise<ChannelSweepReport | null>; stop(): void } | null;
  }
}

/**
 * The embedded stand-ins' issuer settings: its key (LOCAL_CREDENTIALS_KEY, which `npm start` keeps in
 * DATA_DIR/secrets.json) and its revocations file (in LOCAL_STANDINS_STATE_DIR), so that credentials handed
 * out before a restart are honoured after it, and revoked ones stay refused. Neither: a key of this process.
 */
export function localIssuerOptions(env: NodeJS.ProcessEnv): LocalIssuerOptions {
  return {
    ...(env.LOCAL_CREDENTIALS_KEY
      ? { key: parseKey32('LOCAL_CREDENTIALS_KEY', env.LOCAL_CREDENTIALS_KEY) }
      : {}),
    ...(env.LOCAL_STANDINS_STATE_DIR
      ? { revocationsFile: path.join(env.LOCAL_STANDINS_STATE_DIR, 'revoked-credentials') }
      : {}),
  };
}

/**
 * Decorates how the server reaches KVS and S3 for the browsers (call before routes and stand-ins):
 * - neither KVS_ENDPOINT nor S3_ENDPOINT: the local issuer for both stand-ins (`localCredentials`);
 * - either set (AWS mode): STS AssumeRole of AWS_ROLE_ARN for the service on AWS, the local issuer for a
 *   service still on its stand-in; with KVS on AWS also `kvsControl` and the channel sweep.
 * Throws, so the server refuses to start, when AWS mode lacks a valid AWS_ROLE_ARN.
 */
export function decorateCloudAccess(
  app: App,
  config: ServerConfig,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const aws = config.aws;
  const kvsOnAws = Boolean(aws.kvsEndpoint);
  const s3OnAws = Boolean(aws.s3Endpoint);
  const local = kvsOnAws && s3OnAws ? null : new LocalCredentialIssuer(localIssuerOptions(env));
  let sts: StsCredentialIssuer | null = null;
  let control: KvsControl | null = null;
  let sweeper: ReturnType<typeof startChannelSweeper> | null = null;

  if (kvsOnAws || s3OnAws) {
    if (!aws.roleArn) {
      throw new Error(
        'AWS mode (KVS_ENDPOINT or S3_ENDPOINT is set) needs AWS_ROLE_ARN: the IAM role whose temporary, ' +
          'per-channel and per-recording credentials the browsers get (README "Pointing at AWS").',
      );
    }
    if (!parseRoleArn(aws.roleArn)) {
      throw new Error(
        `AWS_ROLE_ARN must be an IAM role ARN like arn:aws:iam::123456789012:role/proctor-browser, not: ${aws.roleArn}`,
      );
    }
    const issuer = new StsCredentialIssuer({
      roleArn: aws.roleArn,
      region: aws.stsRegion,
      endpoint: aws.stsEndpoint,
      kvsRegion: aws.kvsRegion,
      log: app.log,
    });
    app.addHook('onClose', async () => issuer.destroy());
    sts = issuer;
  }
  if (kvsOnAws) {
    const kvs = new KvsControl({ region: aws.kvsRegion, endpoint: aws.kvsEndpoint, log: app.log });
    control = kvs;
    sweeper = startChannelSweeper(app, kvs, loadChannelSweepSettings());
    app.addHook('onClose', async () => kvs.destroy());
  }
  let issuer: CredentialIssuer;
  if (sts && local) {
    issuer = new ServiceCredentialIssuer({ kvs: kvsOnAws ? sts : local, s3: s3OnAws ? sts : local });
  } else {
    const only = sts ?? local;
    if (!only) throw new Error('no credential issuer'); // unreachable: local exists unless both are on AWS
    issuer = only;
  }
  app.decorate('localCredentials', local);
  app.decorate('credentialIssuer', issuer);
  app.decorate('kvsControl', control);
  app.decorate('kvsChannelSweeper', sweeper);
}
