import { scrubStartupUrl, type OpenedAddress } from '../features/startup/startup-params';
import { scrubPairingCode } from '../lib/phone-link';

/**
 * The address the page was opened with. Evaluated as main.tsx's first import, before any other module of
 * the app runs: a JT start-up's password leaves the address bar and the history entry at once (spec §2
 * start-up, read later from this value by bootstrap).
 */
export const openedAddress: OpenedAddress = scrubStartupUrl(window.location, window.history);

// The phone camera's pairing code leaves the address bar the same way (it is spent once, by the phone's page).
scrubPairingCode(window.location, window.history);
