import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The import rules of eslint.config.js (contract values, feature zones, the config layer, no-cycle, through
 * the path aliases too), proven on deliberate violations: each fixture is linted as if it were
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
    code: "import { TESTER_STATUS } from '@contract/tester';\nexport const s = TESTER_STATUS.examing;\n",
    fires: 'no-restricted-imports',
  },
  {
    name: 'a value from a contract schema module, mixed with a type',
    at: 'src/api/probe.ts',
    code: "import { ERROR_CODES, type ErrorCode } from '@contract/common';\nexport const c: ErrorCode[] = [...ERROR_CODES];\n",
    fires: 'no-restricted-imports',
  },
  {
    name: 'a type from a contract schema module',
    at: 'src/api/probe.ts',
    code: "import type { TesterDetail } from '@contract/tester';\nexport type T = TesterDetail;\n",
    fires: null,
  },
  {
    name: 'a value from a contract schema module through the @contract alias',
    at: 'src/features/tester/probe.ts',
    code: "import { TESTER_STATUS } from '@contract/tester';\nexport const s = TESTER_STATUS.examing;\n",
    fires: 'no-restricted-imports',
  },
  {
    name: "another feature's component",
    at: 'src/features/identification/components/probe.tsx',
    code: "import { StepBar } from '../../tester/components/step-bar';\nexport const C = StepBar;\n",
    fires: 'import-x/no-restricted-paths',
  },
  {
    name: "another feature's thunks through the @/ alias",
    at: 'src/features/recording/probe.ts',
    code: "import { recordingDeadlineFrom } from '@/features/tester/tester-thunks';\nexport const f = recordingDeadlineFrom;\n",
    fires: 'import-x/no-restricted-paths',
  },
  {
    // Zones are made per folder of src/features, so a feature added later (the wider view) has one too.
    name: "the wider view's component from the tester feature",
    at: 'src/features/tester/components/probe.tsx',
    code: "import { ScreenShareBlock } from '../../wider-view/components/screen-share-block';\nexport const C = ScreenShareBlock;\n",
    fires: 'import-x/no-restricted-paths',
  },
  {
    name: "the tester feature's thunks from the wider view",
    at: 'src/features/wider-view/probe.ts',
    code: "import { examiningEntered } from '../tester/examining-thunks';\nexport const f = examiningEntered;\n",
    fires: 'import-x/no-restricted-paths',
  },
  {
    name: "the wider view's slice from the tester feature",
    at: 'src/features/tester/probe.ts',
    code: "import { selectExamBlocker } from '../wider-view/wider-view-slice';\nexport const f = selectExamBlocker;\n",
    fires: null,
  },
  {
    name: "another feature's slice and a public module",
    at: 'src/features/identification/probe.ts',
    code: "import { stepReached } from '../tester/tester-slice';\nimport { showAlert } from '../layout/layout-thunks';\nexport const a = [stepReached, showAlert];\n",
    fires: null,
  },
  {
    name: 'the app layer from the shared config layer',
    at: 'src/config/probe.ts',
    code: "import { FIRST_PAGE } from '@/app/permissions';\nexport const f = FIRST_PAGE;\n",
    fires: 'import-x/no-restricted-paths',
  },
  {
    // tester-slice imports live-slice: live-slice importing a value back closes a cycle.
    name: 'a value import that closes a cycle',
    at: 'src/features/live/live-slice.ts',
    code: "import { testerStateChanged } from '../tester/tester-slice';\nexport const t = testerStateChanged;\n",
    fires: 'import-x/no-cycle',
  },
  {
    name: 'a type import in the same place (erased, so no cycle)',
    at: 'src/features/live/live-slice.ts',
    code: "import type { TesterState } from '../tester/tester-slice';\nexport type T = TesterState;\n",
    fires: null,
  },
  {
    name: 'a value from contract/constants',
    at: 'src/features/tester/probe.ts',
    code: "import { TESTER_STATUS } from '@contract/constants/tester';\nexport const s = TESTER_STATUS.examing;\n",
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
