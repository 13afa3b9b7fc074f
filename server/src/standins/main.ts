import { loadEnvFile } from '../env-file';
import { buildStandinsApp, loadStandinsSettings } from './service';

/** `npm run standins`: the KVS, S3 and STS stand-ins as one process app instances share. */
async function main() {
  const envFile = loadEnvFile();
  const settings = loadStandinsSettings();
  const app = await buildStandinsApp(settings);
  const close = async () => {
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', close);
  process.on('SIGTERM', close);
  await app.listen({ host: settings.host, port: settings.port });
  const o = settings.publicOrigin;
  if (envFile) console.log(`Read ${envFile}`);
  console.log(`\nCloud stand-ins (KVS signaling, S3, STS) on ${o}`);
  console.log('Point every app instance at them (README "Running several instances"):');
  console.log(`  KVS_ENDPOINT=${o}/kvs  KVS_PUBLIC_ENDPOINT=${o}/kvs  KVS_REGION=${settings.kvsRegion}`);
  console.log(`  S3_ENDPOINT=${o}/s3  S3_PUBLIC_ENDPOINT=${o}/s3  S3_FORCE_PATH_STYLE=1`);
  console.log(`  STS_ENDPOINT=${o}/sts  STS_REGION=${settings.stsRegion}  AWS_ROLE_ARN=${settings.roleArn}`);
  console.log(
    `  AWS_ACCESS_KEY_ID=${settings.server.accessKeyId}  AWS_SECRET_ACCESS_KEY=<STANDINS_SECRET_ACCESS_KEY${
      settings.secretsFile ? `, in ${settings.secretsFile}` : ''
    }>`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
