/**
 * The console's dialogs and side panel, one chunk (react-bootstrap's Modal, Offcanvas and their transitions)
 * with the texts only they show: all are closed when the console first shows, so MonitoringConsole loads them
 * right after it.
 */
import type { JapaneseTexts } from '../../../i18n';
import markingJa from '../../../i18n/locales/ja/monitoring/marking.json';
import historyJa from '../../../i18n/locales/ja/monitoring/history.json';
import testerStatusJa from '../../../i18n/locales/ja/monitoring/testerStatus.json';
import chatJa from '../../../i18n/locales/ja/monitoring/chat.json';
import chatPanelJa from '../../../i18n/locales/ja/monitoring/chatPanel.json';
import authConfirmJa from '../../../i18n/locales/ja/monitoring/authConfirm.json';

export { AuthModal } from './auth-modal';
export { ChatPanel } from './chat-panel';
export { HelpOverlay } from './help-overlay';
export { HistoryModal } from './history-modal';
export { MarkingModal } from './marking-modal';

export const texts: JapaneseTexts = {
  'monitoring/marking': markingJa,
  'monitoring/history': historyJa,
  'monitoring/testerStatus': testerStatusJa,
  'monitoring/chat': chatJa,
  'monitoring/chatPanel': chatPanelJa,
  'monitoring/authConfirm': authConfirmJa,
};
