import { S3Client } from '@aws-sdk/client-s3';
import type { RecordingCredentials } from '../../contract/recording';

/**
 * The S3 client exactly as the browser builds it from a tester/recording.php answer (media-stack.md §0.4):
 * path-style, one attempt, checksums only where required, the answer's temporary credentials.
 */
export function browserS3Client(c: RecordingCredentials): S3Client {
  return new S3Client({
    region: c.region,
    endpoint: c.endpoint,
    forcePathStyle: true,
    maxAttempts: 1,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials: {
      accessKeyId: c.accessKeyId,
      secretAccessKey: c.secretAccessKey,
      sessionToken: c.sessionToken,
    },
  });
}
