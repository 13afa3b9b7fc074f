import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { loadConfig } from './config';
import { openDb } from './db/db';
import { migrate } from './db/migrate';
import { seedDemo, hasDemoData } from './db/seed-demo';
import { buildApp } from './app';
import { startRetentionScheduler } from './lib/retention-job';
import { appObjectStorage } from './lib/object-storage';
import { appImageStore, moveLocalImages } from './lib/images';
import { ensureEmbeddedSecrets } from './lib/secrets';
import { startAi } from './lib/ai';
import { loadEnvFile } from './env-file';
import { lockDataDir } from './db/data-dir-lock';
import { productionProblems } from './production-checks';

/** `npm start`: migrate, seed the demo on first run (or with --reset-demo), serve, print the start-up URLs. */
async function main() {
  const envFile = loadEnvFile();
  const config = loadConfig();
  const { errors, warnings } = productionProblems(config, process.env);
  if (errors.length) {
    for (const e of errors) console.error(`Refusing to start: ${e}`);
    process.exit(1);
  }
  for (const w of warnings) console.warn(`Warning: ${w}`);
  if (envFile) console.log(`Read ${envFile}`);
  const resetDemo = process.argv.includes('--reset-demo');
  if (!config.databaseUrl) {
    await mkdir(config.dataDir, { recursive: true });
    lockDataDir(config.dataDir);
  }
  // The embedded stand-ins' signing keys survive restarts: from the environment, else DATA_DIR/secrets.json.
  const secretsFile = ensureEmbeddedSecrets(config.dataDir);
  if (secretsFile) console.log(`Stand-in signing keys: ${secretsFile}`);
  if (config.databaseUrl && (!config.aws.kvsEndpoint || !config.aws.s3Endpoint)) {
    console.warn(
      'Warning: DATABASE_URL is set but this instance runs its own KVS/S3 stand-ins (KVS_ENDPOINT/S3_ENDPOINT ' +
        'unset): run one instance only, or point every instance at `npm run standins` or AWS ' +
        '(README "Running several instances").',
    );
  }
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: path.join(config.dataDir, 'pglite') });
  // The demo seed runs under the migration lock: instances starting together seed it once.
  let seeded = false;
  const applied = await migrate(db, async () => {
    if (config.demo && (resetDemo || !(await hasDemoData(db)))) {
      await seedDemo(db, { reset: resetDemo });
      seeded = true;
    }
  });
  if (applied.length) console.log(`Applied migrations: ${applied.join(', ')}`);
  if (seeded) console.log(resetDemo ? 'Demo data re-created.' : 'Demo data created.');
  const app = await buildApp({ config, db });
  const storage = appObjectStorage(app);
  const images = appImageStore(app);
  // Retention is enforced, not only shown: a daily job deletes what the delete plan lists.
  const retention = startRetentionScheduler(app, {
    deleteObject: (ref) => storage.deleteObject(ref),
    deleteImage: (key) => images.delete(key),
  });
  app.addHook('onClose', async () => retention.stop());
  // The offline AI: worker pool (models load in the background), identity provider, analysis queue.
  const ai = await startAi(app, { storage: () => storage });
  app.addHook('onClose', async () => ai.close());
  const close = async () => {
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', close);
  process.on('SIGTERM', close);
  await app.listen({ host: config.host, port: config.port });
  // Images an earlier version kept under DATA_DIR/images go to object storage (once; after listen, so the
  // local S3 stand-in answers).
  const moved = await moveLocalImages(config.dataDir, images, storage, app.log);
  if (moved)
    console.log(
      `Moved ${moved} stored images from ${path.join(config.dataDir, 'images')} to object storage.`,
    );
  const o = config.publicOrigin;
  console.log(`\nProctored exam server on ${o}`);
  if (config.demo) {
    console.log('Start-up URLs (every demo password is demo-pass):');
    console.log(`  examinee (monitor identity check): ${o}/s/demo-tester     login tester01 … tester12`);
    console.log(`  examinee (AI identity check):      ${o}/s/demo-tester-ai  login tester01 … tester12`);
    console.log(`  checker:                           ${o}/s/demo-checker    login checker01 … checker03`);
    console.log(`  test manager:                      ${o}/s/demo-manager    login manager01`);
    console.log(
      `  system manager / supervisor:       ${o}/s/demo-admin      login sysadmin01 / supervisor01`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
