// The floor under the login route's size: what the product's own stack weighs with no code of ours. Each
// row is a one-file app built by Vite with the SPA's targets and react-router's production files (as
// vite.config.ts), gzip -9 of its single JS chunk. Figures, not a pass/fail check.
//   react             react + react-dom/client rendering one element
//   + data router     createBrowserRouter/RouterProvider, a loader, lazy and an error element
//   + declarative     BrowserRouter/Routes/Route, useNavigate, Link (what the SPA uses)
//   stack             react, declarative router, RTK (slice, store, listener, thunk) + react-redux,
//                     i18next + react-i18next
//   stack + start-up  the same, plus ua-parser-js (the browser check of spec §2 runs before any page) and the
//                     Japanese core texts the first render needs (src/i18n/locales/ja/<core>.json)
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { root } from '../scripts/lib.mjs';

const { build } = await import('vite');
const react = (await import('@vitejs/plugin-react')).default;
const dir = path.join(root, '.cache', 'bundle-floor');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

const CORE = ['common', 'errors', 'layout', 'login', 'alerting', 'pages', 'footer', 'templates'];
const render = (tree) =>
  `createRoot(document.getElementById('root')!).render(<StrictMode>${tree}</StrictMode>);`;
const head = "import { StrictMode } from 'react';\nimport { createRoot } from 'react-dom/client';\n";
const store = `import { configureStore, createSlice, createListenerMiddleware, createAsyncThunk } from '@reduxjs/toolkit';
import { Provider, useSelector, useDispatch } from 'react-redux';
const s = createSlice({ name: 's', initialState: { n: 0 }, reducers: { inc(st) { st.n += 1; } } });
const t = createAsyncThunk('t', async () => 1);
const l = createListenerMiddleware();
l.startListening({ actionCreator: s.actions.inc, effect: async (_a, api) => { await api.delay(1); } });
const store = configureStore({ reducer: { s: s.reducer }, middleware: (g) => g().prepend(l.middleware) });
`;
const i18n = (resources) => `import i18next from 'i18next';
import { initReactI18next, I18nextProvider, useTranslation } from 'react-i18next';
await i18next.use(initReactI18next).init({ lng: 'ja', fallbackLng: 'ja', resources: ${resources}, defaultNS: 'common' });
`;
const page = `function Page() {
  const nav = useNavigate(); const { t: tr } = useTranslation(); const c = useSelector((x: ReturnType<typeof store.getState>) => x.s.n);
  const d = useDispatch<typeof store.dispatch>();
  return <div>{tr('appName')}{c}<Link to="/a">a</Link><button onClick={() => { void nav('/b'); d(s.actions.inc()); void d(t()); }}>b</button></div>;
}
`;
const stackTree =
  '<Provider store={store}><I18nextProvider i18n={i18next}><BrowserRouter><Routes><Route path="*" element={<Page />} /></Routes></BrowserRouter></I18nextProvider></Provider>';
const declarativeImport =
  "import { BrowserRouter, Routes, Route, useNavigate, Link } from 'react-router-dom';\n";

const APPS = {
  react: head + render('<p>hi</p>'),
  'react + data router':
    head +
    `import { createBrowserRouter, RouterProvider, redirect, useNavigate, Link, useRouteError, Outlet } from 'react-router-dom';
function Root() { const n = useNavigate(); return <div><Link to="/a">a</Link><button onClick={() => void n('/b')}>b</button><Outlet /></div>; }
function Err() { return <p>{String(useRouteError())}</p>; }
const router = createBrowserRouter([{ element: <Root />, errorElement: <Err />, children: [
  { path: '/a', loader: () => { if (Math.random() > 2) throw redirect('/b'); return null; }, lazy: async () => ({ Component: () => <p>a</p> }) },
  { path: '/b', element: <p>b</p> } ] }]);
` +
    render('<RouterProvider router={router} />'),
  'react + declarative router':
    head +
    declarativeImport +
    `function Root() { const n = useNavigate(); return <div><Link to="/a">a</Link><button onClick={() => void n('/b')}>b</button></div>; }
` +
    render('<BrowserRouter><Routes><Route path="*" element={<Root />} /></Routes></BrowserRouter>'),
  stack:
    head +
    declarativeImport +
    store +
    i18n("{ ja: { common: { appName: 'x' } } }") +
    page +
    render(stackTree),
  'stack + start-up':
    head +
    declarativeImport +
    "import UAParser from 'ua-parser-js';\n" +
    CORE.map((ns) => `import ${ns} from '${path.join(root, 'src/i18n/locales/ja', `${ns}.json`)}';\n`).join(
      '',
    ) +
    'console.log(new UAParser(navigator.userAgent).getResult());\n' +
    store +
    i18n(`{ ja: { ${CORE.join(', ')} } }`) +
    page +
    render(stackTree),
};

const routerDist = path.join(
  path.dirname(createRequire(import.meta.url).resolve('react-router/package.json')),
  'dist/production',
);
const kb = (n) => (n / 1024).toFixed(1).padStart(7);
console.log('bundle (no code of ours)                    raw KB   gzip KB');
for (const [name, source] of Object.entries(APPS)) {
  const slug = name.replace(/[^a-z]+/g, '-');
  const entry = path.join(dir, `${slug}.tsx`);
  writeFileSync(entry, source);
  const outDir = path.join(dir, `out-${slug}`);
  await build({
    configFile: false,
    root: dir,
    logLevel: 'error',
    plugins: [react()],
    resolve: {
      alias: [
        { find: /^react-router$/, replacement: path.join(routerDist, 'index.mjs') },
        { find: /^react-router\/dom$/, replacement: path.join(routerDist, 'dom-export.mjs') },
      ],
    },
    build: {
      outDir,
      emptyOutDir: true,
      target: ['chrome80', 'edge80', 'safari14', 'ios13'],
      rolldownOptions: { input: entry },
    },
  });
  const js = readdirSync(path.join(outDir, 'assets')).filter((f) => f.endsWith('.js'));
  const buf = Buffer.concat(js.map((f) => readFileSync(path.join(outDir, 'assets', f))));
  console.log(`${name.padEnd(42)} ${kb(buf.length)}  ${kb(gzipSync(buf, { level: 9 }).length)}`);
}
