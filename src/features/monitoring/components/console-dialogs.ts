/**
 * The console's dialogs and side panel, one chunk (react-bootstrap's Modal, Offcanvas and their transitions):
 * all are closed when the console first shows, so MonitoringConsole loads them right after it.
 */
export { AuthModal } from './auth-modal';
export { ChatPanel } from './chat-panel';
export { HelpOverlay } from './help-overlay';
export { HistoryModal } from './history-modal';
export { MarkingModal } from './marking-modal';
