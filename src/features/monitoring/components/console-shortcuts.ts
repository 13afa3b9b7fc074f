import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppStore } from '../../../app/hooks';
import {
  helpToggled,
  paneRestored,
  paneSelected,
  selectEnlargedTesterId,
  selectPaneIds,
  selectSelectedTesterId,
} from '../monitoring-slice';
import { PANE_SHORTCUTS, shortcutUsed, type PaneShortcut } from '../monitoring-thunks';

/** The DOM id of a pane (the number keys move the focus there). */
export const paneDomId = (testerId: number) => `monitor-pane-${testerId}`;

/** True when a key belongs to what has the focus (typing, a list box, a dialog), not to the console. */
function ownedElsewhere(e: KeyboardEvent): boolean {
  if (e.defaultPrevented || e.isComposing || e.ctrlKey || e.altKey || e.metaKey) return true;
  const el = e.target as HTMLElement | null;
  if (el?.closest?.('input, textarea, select, [contenteditable="true"], [role="dialog"], .modal, .offcanvas'))
    return true;
  // A dialog is open (its backdrop covers the console).
  return !!document.querySelector('.modal.show, .offcanvas.show');
}

/**
 * The console's keyboard shortcuts (WCAG 2.1.1: every one is also a button reachable with Tab): 1–5 move the
 * focus to a pane, the letter keys act on the pane that has the focus or was focused last, ? opens the help,
 * Esc restores an enlarged pane. Returns a message to announce when a key had nothing to act on.
 */
export function useConsoleShortcuts(): string {
  const dispatch = useAppDispatch();
  const store = useAppStore();
  const { t } = useTranslation('monitoring');
  const [message, setMessage] = useState('');

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (ownedElsewhere(e)) return;
      const state = store.getState();
      const ids = selectPaneIds(state);
      if (e.key === '?') {
        e.preventDefault();
        dispatch(helpToggled(true));
        return;
      }
      if (e.key === 'Escape' && selectEnlargedTesterId(state) !== null) {
        dispatch(paneRestored());
        return;
      }
      if (/^[1-5]$/.test(e.key)) {
        const id = ids[Number(e.key) - 1];
        if (id === undefined) return;
        e.preventDefault();
        dispatch(paneSelected(id));
        document.getElementById(paneDomId(id))?.focus();
        setMessage('');
        return;
      }
      const key = e.key.toLowerCase();
      if (!(PANE_SHORTCUTS as readonly string[]).includes(key)) return;
      const focused = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>(
        '[data-tester-id]',
      );
      const fromFocus = focused ? Number(focused.dataset.testerId) : null;
      const selected = selectSelectedTesterId(state);
      const testerId =
        fromFocus ??
        (selected !== null && ids.includes(selected) ? selected : ids.length === 1 ? ids[0] : null);
      e.preventDefault();
      if (testerId === null || testerId === undefined) {
        setMessage(t('shortcut.noPane'));
        return;
      }
      const r = dispatch(shortcutUsed(key as PaneShortcut, testerId));
      setMessage(r ? String(t(r.key as 'shortcut.noPane', { name: r.name })) : '');
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [dispatch, store, t]);

  return message;
}
