import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

// The server zones of eslint.config.js ("server zones"): routes parse, authorise and answer, the queries live in
// server/src/lib/, and lib never imports routes or plugins. Each fixture is linted as if it were a file at the given path, so nothing here is a real
// route; a rule that stopped firing fails the test.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root });

const ROUTE = 'server/src/routes/api/v1/fixture/index.ts';
const LIB = 'server/src/lib/fixture/fixture.ts';
const MATCHING_ROUTE = 'server/src/routes/api/v1/matching/fixture.ts';

/** The rule ids and messages ESLint reports for `code` placed at `file`. */
async function problems(code: string, file: string): Promise<{ rule: string | null; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  // A fixture that does not parse would report nothing of the zone; it must parse.
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages.map((m) => ({ rule: m.ruleId, message: m.message }));
}

const zoneRules = (list: { rule: string | null; message: string }[]) =>
  list.filter((p) => p.rule === 'no-restricted-imports' || p.rule === 'no-restricted-syntax');

const QUERY_CALL = `import type { App } from '../../../../lib/app-types';
export async function f(app: App, id: number): Promise<unknown> {
  return app.db.query('SELECT 1 FROM users WHERE id = $1', [id]);
}
`;

describe('ESLint server zones: no SQL in server/src/routes, lib below routes', () => {
  it('refuses a query call and its SQL text in a route', async () => {
    const found = zoneRules(await problems(QUERY_CALL, ROUTE));
    expect(found).toEqual([
      { rule: 'no-restricted-syntax', message: expect.stringMatching(/^Database call in a route/) },
      { rule: 'no-restricted-syntax', message: expect.stringMatching(/^SQL text in a route/) },
    ]);
  });

  it('refuses a transaction and an exec', async () => {
    const code = `import type { App } from '../../../../lib/app-types';
export async function f(app: App): Promise<void> {
  await app.db.transaction(async (tx) => tx.exec('VACUUM'));
}
`;
    const found = zoneRules(await problems(code, ROUTE)).map((p) => p.message);
    expect(found).toHaveLength(2);
    for (const m of found) expect(m).toMatch(/^Database call in a route/);
  });

  it('refuses SQL written as a template literal (a fragment handed to a lib function)', async () => {
    const code = `export const where = (col: string) => \`UPDATE tests SET \${col} = 1\`;
export const del = \`DELETE FROM sessions\`;
`;
    const found = zoneRules(await problems(code, ROUTE));
    expect(found.map((p) => p.message)).toEqual([
      expect.stringMatching(/^SQL text in a route/),
      expect.stringMatching(/^SQL text in a route/),
    ]);
  });

  it('refuses a value import of the database module or a driver, and allows a type import of Db', async () => {
    const code = `import { openDb } from '../../../../db/db';
import type { Db } from '../../../../db/db';
import pg from 'pg';
export const x: [unknown, unknown, Db | null] = [openDb, pg, null];
`;
    const found = zoneRules(await problems(code, ROUTE));
    expect(found).toEqual([
      { rule: 'no-restricted-imports', message: expect.stringContaining('db/db') },
      { rule: 'no-restricted-imports', message: expect.stringContaining("'pg'") },
    ]);
  });

  it('leaves words that only look like SQL alone (an HTTP method, a sentence)', async () => {
    const code = `export const methods = ['DELETE', 'PUT'];
export const text = 'Select one row to delete from the list.';
`;
    expect(zoneRules(await problems(code, ROUTE))).toEqual([]);
  });

  it('allows the same code in a lib domain module', async () => {
    const code = QUERY_CALL.replace("'../../../../lib/app-types'", "'../app-types'");
    expect(zoneRules(await problems(code, LIB))).toEqual([]);
  });

  it('refuses an import of a route or a plugin from lib (lib is below them)', async () => {
    const code = `import { DEMO_EXAM_PATH } from '../../routes/demo-exam';
import { authPlugin } from '../../plugins/auth';
export const x = [DEMO_EXAM_PATH, authPlugin];
`;
    const found = (await problems(code, LIB)).filter((p) => p.rule === 'import-x/no-restricted-paths');
    expect(found.map((p) => p.message)).toEqual([
      expect.stringContaining('never imports them'),
      expect.stringContaining('never imports them'),
    ]);
  });

  it('exempts the matching routes until they are moved (the explicit exception)', async () => {
    expect(zoneRules(await problems(QUERY_CALL, MATCHING_ROUTE))).toEqual([]);
  });
});
