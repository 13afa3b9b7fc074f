// Part of bench/matching-scale.mjs (TypeScript, run through tsx so it can use the server's modules): fills a
// database with the people of a large sitting, as logins would have left them, without paying an Argon2 login
// each: EXAMINEES examinees (copies of tester01: same group, password and short URL parameters) each with an open
// sitting and a live session, and CHECKERS checkers (copies of checker01) each with a session. Tokens are random
// and only their SHA-256 is stored, as at login. Writes { examinees: [{id, token}], checkers: [...] } as JSON to
// the file named by OUT.
//
// DATABASE_URL (a PostgreSQL server the instances have migrated and seeded) or DATA_DIR (a server's data
// directory no server has open: its PGlite database, DATA_DIR/pglite as the server opens it, is migrated and
// seeded here first).
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDb } from '../server/src/db/db';
import { migrate } from '../server/src/db/migrate';
import { hasDemoData, seedDemo } from '../server/src/db/seed-demo';
import { hashToken } from '../server/src/lib/tokens';

const EXAMINEES = Number(process.env.EXAMINEES ?? 1000);
const CHECKERS = Number(process.env.CHECKERS ?? 200);
const OUT = process.env.OUT;
if (!OUT) throw new Error('OUT names the file for the tokens');

if (!process.env.DATABASE_URL) mkdirSync(process.env.DATA_DIR!, { recursive: true });
const db = await openDb(
  process.env.DATABASE_URL
    ? { databaseUrl: process.env.DATABASE_URL }
    : { dataDir: path.join(process.env.DATA_DIR!, 'pglite') },
);
if (!process.env.DATABASE_URL) {
  await migrate(db);
  if (!(await hasDemoData(db))) await seedDemo(db);
}

async function people(template: string, prefix: string, n: number): Promise<{ id: number; token: string }[]> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO users (login_id, password_hash, actor, name, group_id)
     SELECT $2 || lpad(i::text, 6, '0'), u.password_hash, u.actor, $2 || ' ' || i, u.group_id
       FROM users u, generate_series(1, $3::int) i WHERE u.login_id = $1
     RETURNING id`,
    [template, prefix, n],
  );
  const out = rows.map((r) => ({ id: Number(r.id), token: randomBytes(32).toString('base64url') }));
  for (let i = 0; i < out.length; i += 1000) {
    const part = out.slice(i, i + 1000);
    await db.query(
      `INSERT INTO sessions (user_id, token_hash, ip, expires_at)
       SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::text[], $4::timestamptz[])`,
      [
        part.map((p) => p.id),
        part.map((p) => hashToken(p.token)),
        part.map(() => '127.0.0.1'),
        part.map(() => new Date(Date.now() + 8 * 3600_000)),
      ],
    );
  }
  return out;
}

const examinees = await people('tester01', 'bench-examinee-', EXAMINEES);
const checkers = await people('checker01', 'bench-checker-', CHECKERS);
// Each examinee's sitting as a login through /s/demo-tester opens it (status 1, the short URL's parameters).
await db.query(
  `INSERT INTO tests (user_id, group_id, login_id, exam_name, status, test_at, login_at, startup_parameters, url_key)
   SELECT u.id, u.group_id, u.login_id, u.name, 1, now(), now(), s.param, s.url_key
     FROM users u, short_urls s
    WHERE u.login_id LIKE 'bench-examinee-%' AND s.url_key = 'demo-tester'`,
);
writeFileSync(OUT, JSON.stringify({ examinees, checkers }));
await db.close();
