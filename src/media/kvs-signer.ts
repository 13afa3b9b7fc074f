import {
  SigV4RequestSigner,
  type QueryParams,
  type RequestSigner,
} from 'amazon-kinesis-video-streams-webrtc';

/** Temporary credentials for KVS signaling (from the app server's credential endpoint). */
export interface KvsSigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * Returns the credentials to sign with. Called before every signing, i.e. on every `SignalingClient.open()`,
 * so a reconnect after the service's idle/max-duration close signs with fresh credentials (media-stack.md §8.3).
 */
export type KvsCredentialsProvider = () => Promise<KvsSigningCredentials>;

const WS = 'ws://';
const WSS = 'wss://';

/**
 * A `requestSigner` for the SDK's `SignalingClient` that signs with the SDK's own `SigV4RequestSigner`.
 * That signer refuses anything but `wss://`; for the local stand-in's `ws://` endpoint this signs the
 * `wss://` form and turns the scheme back to `ws://`. The signature covers host, path and query, not the
 * scheme, so it stays valid (media-stack.md §1.3). `wss://` endpoints (AWS) are signed unchanged.
 */
export function createKvsRequestSigner(
  region: string,
  getCredentials: KvsCredentialsProvider,
): RequestSigner {
  return {
    async getSignedURL(endpoint: string, queryParams: QueryParams, date?: Date): Promise<string> {
      const creds = await getCredentials();
      const signer = new SigV4RequestSigner(region, {
        accessKeyId: creds.accessKeyId,
        secretAccessKey: creds.secretAccessKey,
        sessionToken: creds.sessionToken,
      });
      if (!endpoint.startsWith(WS)) return signer.getSignedURL(endpoint, queryParams, date);
      const signed = await signer.getSignedURL(WSS + endpoint.slice(WS.length), queryParams, date);
      return WS + signed.slice(WSS.length);
    },
  };
}
