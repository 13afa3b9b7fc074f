// First: removes a start-up password from the address bar before anything else of the app runs.
import { openedAddress } from './app/early-scrub';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import 'bootstrap/dist/css/bootstrap.min.css';
import './styles.css';
import { loadRuntimeConfig } from './lib/runtime-config';
import { bootstrapApp } from './app/bootstrap';
import { untilConfigLoads } from './app/server-unreachable';
import { App } from './app/app';

async function main() {
  const el = document.getElementById('root');
  if (!el) throw new Error('#root missing');
  const root = createRoot(el);
  // A configuration that cannot be reached is no verdict on the browser: the start-up waits for it.
  const config = (await loadRuntimeConfig()) ?? (await untilConfigLoads(root, openedAddress));
  const { store } = await bootstrapApp(config, openedAddress);
  root.render(
    <StrictMode>
      <App store={store} />
    </StrictMode>,
  );
}

void main();
