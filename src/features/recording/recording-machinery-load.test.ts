import { describe, expect, it, vi } from 'vitest';
import { setupStore } from '../../app/store';
import { loginState } from '../../../tests/render';
import { examPhaseChanged } from '../tester/tester-slice';
import { loggedOut } from '../session/session-slice';
import { screenShared } from '../wider-view/wider-view-slice';
import { examRecordingRequested, selectRecording } from './recording-slice';

const m = vi.hoisted(() => ({ getTesterDetail: vi.fn() }));

// The recording's code (loaded with the first recording) cannot be fetched: an old chunk after a deploy, the
// network.
vi.mock('./recording-machinery', () => {
  throw new Error('Failed to fetch dynamically imported module');
});
vi.mock('../../api/tester', () => ({ getTesterDetail: m.getTesterDetail }));

const flush = () => new Promise((r) => setTimeout(r, 0));
async function until(fn: () => boolean) {
  for (let i = 0; i < 100 && !fn(); i++) await flush();
  expect(fn()).toBe(true);
}

function store(parameters: Record<string, unknown>) {
  m.getTesterDetail.mockResolvedValue({ startupParameters: parameters });
  return setupStore(loginState(1));
}

describe('the recording whose code does not load', () => {
  it('is a recording that did not start: startFailed and its alert, as when its media code does not load', async () => {
    const s = store({ is_record: 1 });
    s.dispatch(examPhaseChanged('examing'));
    await until(() => selectRecording(s.getState()).phase === 'error');
    expect(selectRecording(s.getState()).errorKey).toBe('recording:startFailed');
    expect(s.getState().layout.modals[0]).toMatchObject({
      messageKey: 'recording:startFailed',
      alertType: 'error',
    });
    s.dispatch(loggedOut());
  });

  it('the screen: its own recording state says so, without an alert', async () => {
    const s = store({ is_record: 1, is_screen_record: 1 });
    s.dispatch(screenShared());
    await until(() => selectRecording(s.getState()).streams.screen?.phase === 'error');
    expect(s.getState().layout.modals).toEqual([]);
    s.dispatch(loggedOut());
  });

  it('nothing for a sitting that does not record (no alert, the state stays idle)', async () => {
    const s = store({ is_record: 0 });
    s.dispatch(examRecordingRequested());
    await flush();
    await flush();
    expect(selectRecording(s.getState()).phase).toBe('idle');
    expect(s.getState().layout.modals).toEqual([]);
    s.dispatch(loggedOut());
  });
});
