import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import checkFile from 'eslint-plugin-check-file';
import globals from 'globals';

/**
 * Modules of a feature that other features may import besides its `*-slice.ts` (events and selectors):
 * alerts and confirms as promises, the session's login and logout, the live channel's status line that
 * every examinee page shows.
 */
const FEATURE_PUBLIC = [
  'layout/layout-thunks.ts',
  'session/session-thunks.ts',
  'live/components/live-status.tsx',
  // The wider view's state and selectors without its slice: the exam page reads them before the slice loads.
  'wider-view/wider-view-selectors.ts',
];

/**
 * One zone per feature folder: its own files, another feature's `*-slice.ts` and the public modules above,
 * nothing else of src/features. A view that needs parts of several features is composed in src/routes.
 */
function featureZones() {
  const features = readdirSync(path.join(import.meta.dirname, 'src/features'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  return features.map((f) => ({
    target: `./src/features/${f}`,
    from: './src/features/**',
    except: [
      `**/src/features/${f}/**`,
      '**/src/features/*/*-slice.ts',
      ...FEATURE_PUBLIC.map((p) => `**/src/features/${p}`),
    ],
    message: `Another feature only through its *-slice.ts or ${FEATURE_PUBLIC.join(', ')}; compose views of several features in src/routes.`,
  }));
}

/** The layers of src/ (STYLE.md §2). */
const SRC_LAYERS = [
  'app',
  'routes',
  'features',
  'api',
  'media',
  'platform',
  'components',
  'i18n',
  'config',
  'lib',
];
const srcLayers = (...names) => names.map((n) => `./src/${n}`);

/** Import zones of STYLE.md §2 ("Import rules"), enforced rather than described. */
const layerZones = [
  // src/ and server/ never import each other; contract/ imports neither.
  { target: './src', from: './server', message: 'src/ must not import server/.' },
  { target: './server', from: './src', message: 'server/ must not import src/.' },
  {
    target: './contract',
    from: ['./src', './server'],
    message: 'contract/ imports neither src/ nor server/.',
  },
  {
    target: './src',
    from: ['./tests', './e2e'],
    except: [],
    message: 'src/ must not import tests/ or e2e/.',
  },
  // api, media, platform, i18n, config, lib: their own folder and lib only.
  ...['api', 'media', 'platform', 'i18n', 'config', 'lib'].map((layer) => ({
    target: `./src/${layer}`,
    from: srcLayers(...SRC_LAYERS.filter((l) => l !== layer && l !== 'lib')),
  })),
  // components: i18n, config and lib only.
  { target: './src/components', from: srcLayers('app', 'routes', 'features', 'api', 'media', 'platform') },
  // routes: no api, media or platform (pages compose features).
  { target: './src/routes', from: ['./src/api', './src/media', './src/platform'] },
  // features: not routes.
  { target: './src/features', from: ['./src/routes'] },
];
const zones = [...layerZones, ...featureZones()];

/**
 * The contract's schema modules build TypeBox schemas when they load, so a value imported from one would ship
 * TypeBox to the browser. The SPA takes values from the TypeBox-free contract/constants/ and only types from
 * the schema modules.
 */
const contractSchemaValues = {
  regex: '(^|/|@)contract/(?!constants/)[^/]+$',
  allowTypeImports: true,
  message:
    'src/ imports values from contract/constants/* only (TypeBox-free); a schema module only with `import type`.',
};

// ---------------------------------------------------------------- server zones
// Routes parse, authorise and answer; every query lives in a domain module under server/src/lib/ (fastify/demo's
// repositories), so a route reads as its contract and the SQL of one area sits in one place. Enforced on
// server/src/routes/**: no value import of the database module or a database driver (`import type { Db }` is
// fine, to type a lib call's argument), no `.query(`, `.exec(` or `.transaction(` call, and no SQL text; and lib/
// never imports routes/ or plugins/.
const SQL_IN_ROUTE = 'SQL belongs in a domain module under server/src/lib/; the route calls it.';
const serverRouteRules = {
  'no-restricted-imports': [
    'error',
    {
      paths: [
        { name: 'pg', message: SQL_IN_ROUTE },
        { name: '@electric-sql/pglite', message: SQL_IN_ROUTE },
      ],
      patterns: [
        {
          regex: '(^|/)db/db(\\.ts)?$',
          allowTypeImports: true,
          message: `${SQL_IN_ROUTE} (A type import of Db is allowed.)`,
        },
      ],
    },
  ],
  'no-restricted-syntax': [
    'error',
    {
      selector:
        'CallExpression[callee.type="MemberExpression"][callee.property.name=/^(query|exec|transaction)$/]',
      message: `Database call in a route: ${SQL_IN_ROUTE}`,
    },
    {
      selector: 'TemplateElement[value.raw=/\\b(SELECT|INSERT INTO|DELETE FROM)\\b|\\bUPDATE \\w+ SET\\b/]',
      message: `SQL text in a route: ${SQL_IN_ROUTE}`,
    },
    {
      selector: 'Literal[value=/\\b(SELECT|INSERT INTO|DELETE FROM)\\b|\\bUPDATE \\w+ SET\\b/]',
      message: `SQL text in a route: ${SQL_IN_ROUTE}`,
    },
  ],
};
const serverZones = [
  {
    // lib/ is below the routes and plugins: they call it, it never calls them.
    files: ['server/src/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...zones,
            {
              target: './server/src/lib',
              from: ['./server/src/routes', './server/src/plugins'],
              message: 'server/src/lib/ is called by routes and plugins and never imports them.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['server/src/routes/**/*.ts'],
    // The live channel's routes are being reworked on another branch; the lead moves them under this rule when
    // that work lands. Until then they are the one exception (they hold no SQL today: the matching engine
    // and views in lib/ do the queries).
    ignores: ['server/src/routes/api/v1/matching/**'],
    rules: serverRouteRules,
  },
];
// ---------------------------------------------------------------- end of server zones

export default tseslint.config(
  {
    ignores: [
      'dist',
      'dist-server',
      'node_modules',
      'data',
      'data-standins',
      'reports',
      'test-results',
      'playwright-report',
      'stubs',
      '.cache',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
  },
  {
    files: ['public/**/*.js'],
    languageOptions: { globals: { ...globals.serviceworker, ...globals.browser } },
  },
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { ecmaVersion: 2023, globals: { ...globals.browser, ...globals.node } },
    plugins: { 'react-hooks': reactHooks, 'import-x': importX, 'check-file': checkFile },
    settings: {
      // no-cycle reads the imported modules too: they are TypeScript.
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      // The path aliases of tsconfig.app.json / vite.config.ts, so the import rules see through them.
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js'],
          alias: {
            '@': [path.resolve(import.meta.dirname, 'src')],
            '@contract': [path.resolve(import.meta.dirname, 'contract')],
          },
        }),
      ],
    },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports' },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-restricted-paths': ['error', { zones }],
      // A cycle of value imports means one module can see the other half-initialised; `import type` cycles
      // (the store and the listener types) are erased and allowed.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'check-file/filename-naming-convention': [
        'error',
        { 'src/**/*.{ts,tsx}': 'KEBAB_CASE', 'server/**/*.ts': 'KEBAB_CASE' },
        { ignoreMiddleExtensions: true },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/app/hooks.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'react-redux',
              message: 'Use useAppDispatch/useAppSelector from src/app/hooks.ts.',
              allowTypeImports: true,
            },
            { name: 'axios', message: 'Use src/api/client.ts.', allowTypeImports: true },
          ],
          patterns: [contractSchemaValues],
        },
      ],
      // Spec §5 admits Chrome/Edge 80 and Safari 14: no APIs newer than those browsers.
      'no-restricted-globals': [
        'error',
        { name: 'structuredClone', message: 'Needs Chrome 98 / Safari 15.4 (spec §5 admits older).' },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'Object',
          property: 'hasOwn',
          message: 'Needs Chrome 93 / Safari 15.4; use hasOwnProperty.call.',
        },
        { property: 'findLast', message: 'Needs Chrome 97 / Safari 15.4.' },
        { property: 'replaceAll', message: 'Needs Chrome 85 (spec §5 admits 80).' },
      ],
    },
  },
  {
    // Tests beside the code may use the shared test setup (MSW server, render helpers) in tests/. They run in
    // Node, so the browser-minimum rules do not apply.
    files: ['src/**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-globals': 'off',
      'no-restricted-properties': 'off',
      'import-x/no-restricted-paths': [
        'error',
        // Tests compose several features, as the routes do: only the layer zones apply.
        { zones: layerZones.filter((z) => !String(z.from).includes('./tests')) },
      ],
    },
  },
  {
    files: ['src/api/client.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['src/app/app.tsx'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'axios', message: 'Use src/api/client.ts.' }] }],
    },
  },
  ...serverZones,
);
