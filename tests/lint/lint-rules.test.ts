import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The import rules of eslint.config.js, proven on deliberate violations: each fixture is linted as if it were
 * the file named by `at` (it is never written there), with the repository's own configuration. A rule that
 * stopped firing, or fired on allowed code, fails here before a real violation slips through.
 */
interface Fixture {
  name: string;
  /** Where the code pretends to live, relative to the repository root. */
  at: string;
  code: string;
  /** The rule that must fire, or null when the code must pass. */
  fires: string | null;
}

const FIXTURES: Fixture[] = [
  {
    name: 'a value from a contract schema module',
    at: 'src/features/tester/probe.ts',
    code: "import { TESTER_STATUS } from '../../../contract/tester';\nexport const s = TESTER_STATUS.examing;\n",
    fires: 'no-restricted-imports',
  },
  {
    name: 'a value from a contract schema module, mixed with a type',
    at: 'src/api/probe.ts',
    code: "import { ERROR_CODES, type ErrorCode } from '../../contract/common';\nexport const c: ErrorCode[] = [...ERROR_CODES];\n",
    fires: 'no-restricted-imports',
  },
  {
    name: 'a type from a contract schema module',
    at: 'src/api/probe.ts',
    code: "import type { TesterDetail } from '../../contract/tester';\nexport type T = TesterDetail;\n",
    fires: null,
  },
  {
    name: 'a value from contract/constants',
    at: 'src/features/tester/probe.ts',
    code: "import { TESTER_STATUS } from '../../../contract/constants/tester';\nexport const s = TESTER_STATUS.examing;\n",
    fires: null,
  },
];

const root = path.resolve(import.meta.dirname, '../..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

async function rulesFired(f: Fixture): Promise<string[]> {
  const [result] = await eslint.lintText(f.code, { filePath: path.join(root, f.at) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe('import rules fire on deliberate violations', () => {
  for (const f of FIXTURES) {
    it(`${f.fires ? 'refuses' : 'allows'} ${f.name} (${f.at})`, async () => {
      const fired = await rulesFired(f);
      if (f.fires) expect(fired).toContain(f.fires);
      else expect(fired).toEqual([]);
    }, 60_000);
  }
});
