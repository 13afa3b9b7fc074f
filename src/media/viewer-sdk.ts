/**
 * The SDK modules the viewer needs, in one chunk loaded on demand (the checker's page only; other pages never
 * download the KVS and AWS SDKs). Import this module only with `import()`.
 */
export { Role, SignalingClient } from 'amazon-kinesis-video-streams-webrtc';
export {
  KinesisVideoClient,
  DescribeSignalingChannelCommand,
  GetSignalingChannelEndpointCommand,
} from '@aws-sdk/client-kinesis-video';
export {
  KinesisVideoSignalingClient,
  GetIceServerConfigCommand,
} from '@aws-sdk/client-kinesis-video-signaling';
export { createKvsRequestSigner } from './kvs-signer';
