import type { ServerConfig } from './config';

/**
 * What `NODE_ENV=production` refuses to start with (errors) or starts with but reports (warnings): defaults
 * that are right for a demo on one machine and wrong for an organisation's exams.
 */
export function productionProblems(
  config: ServerConfig,
  env: NodeJS.ProcessEnv,
): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (env.NODE_ENV !== 'production') return { errors, warnings };
  if (config.demo && config.databaseUrl && env.DEMO_FORCE !== '1') {
    errors.push(
      'DEMO is on (the default) with a PostgreSQL DATABASE_URL: the server would add demo accounts with the ' +
        'published password demo-pass to that database. Set DEMO=0 (or DEMO_FORCE=1 for a demo on PostgreSQL).',
    );
  }
  if (config.testHooks) errors.push('TEST_HOOKS=1 opens test-only endpoints; never set it in production.');
  if (config.demo && !config.databaseUrl)
    warnings.push('DEMO is on: demo accounts with the password demo-pass exist. Set DEMO=0 for real exams.');
  if (
    !/^https:\/\//.test(config.publicOrigin) &&
    !/^http:\/\/(127\.0\.0\.1|localhost)(:|$)/.test(config.publicOrigin)
  )
    warnings.push(
      `PUBLIC_ORIGIN is ${config.publicOrigin}: browsers give camera and microphone only to https:// origins ` +
        '(README "HTTPS and the camera").',
    );
  if (config.databaseUrl && !config.credentialsCacheKey)
    warnings.push(
      'CREDENTIALS_CACHE_KEY is not set: each instance can reuse only the signaling credentials it issued itself, ' +
        'so reconnects call STS more often. Give every instance the same 32-byte key (README "Running several instances").',
    );
  if (!env.METRICS_TOKEN)
    warnings.push('METRICS_TOKEN is not set: /metrics answers anyone who can reach the server.');
  return { errors, warnings };
}
