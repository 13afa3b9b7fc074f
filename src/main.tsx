// First: removes a start-up password from the address bar before anything else of the app runs.
import { openedAddress } from './app/early-scrub';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import 'bootstrap/dist/css/bootstrap.min.css';
import './styles.css';
import { loadRuntimeConfig } from './lib/runtime-config';
import { bootstrapApp } from './app/bootstrap';
import { App } from './app/app';

async function main() {
  const config = await loadRuntimeConfig();
  const { store } = await bootstrapApp(config, openedAddress);
  const el = document.getElementById('root');
  if (!el) throw new Error('#root missing');
  createRoot(el).render(
    <StrictMode>
      <App store={store} />
    </StrictMode>,
  );
}

void main();
