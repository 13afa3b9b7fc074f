import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { loadConfig } from './config';
import { openDb } from './db/db';
import { migrate } from './db/migrate';
import { seedDemo, hasDemoData } from './db/seed-demo';
import { buildApp } from './app';
import { startRetentionScheduler } from './lib/retention-job';
import { createObjectStorage } from './lib/object-storage';
import { recordingSettings } from './lib/recording-settings';
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
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: path.join(config.dataDir, 'pglite') });
  const applied = await migrate(db);
  if (applied.length) console.log(`Applied migrations: ${applied.join(', ')}`);
  if (config.demo && (resetDemo || !(await hasDemoData(db)))) {
    await seedDemo(db, { reset: resetDemo });
    console.log(resetDemo ? 'Demo data re-created.' : 'Demo data created.');
  }
  const app = await buildApp({ config, db });
  // Retention is enforced, not only shown (issue #7): a daily job deletes what the plan lists.
  const storage = createObjectStorage({
    bucket: recordingSettings().bucket,
    local: () => (app.hasDecorator('s3local') ? app.s3local : null),
  });
  const retention = startRetentionScheduler(app, { deleteObject: (ref) => storage.deleteObject(ref) });
  app.addHook('onClose', async () => retention.stop());
  // Issue #6: AI worker pool (models load in the background), identity provider, analysis queue.
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
