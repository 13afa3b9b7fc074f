import { describe, expect, it } from 'vitest';
import { fireEvent, screen } from '@testing-library/react';
import { renderWithProviders } from '../../../../tests/render';
import { initialRecordingState, type RecordingSliceState, selectRecording } from '../recording-slice';
import { RecordingStatus } from './recording-status';

function show(over: Partial<RecordingSliceState>) {
  return renderWithProviders(<RecordingStatus />, {
    preloadedState: { recording: { ...initialRecordingState, ...over } },
  });
}

describe('RecordingStatus', () => {
  it('renders nothing while no recording was asked for', () => {
    show({});
    expect(screen.queryByTestId('recording-status')).toBeNull();
  });

  it('shows recording with the sent parts', () => {
    show({
      phase: 'recording',
      recorderRunning: true,
      counts: { partsDone: 2, partsTotal: 3, bytesPending: 1 },
    });
    const el = screen.getByTestId('recording-status');
    expect(el.dataset.phase).toBe('recording');
    expect(el).toHaveTextContent('録画中');
    expect(el).toHaveTextContent('送信済み 2 / 3');
  });

  it('shows uploading n of m after stop, with keep-open', () => {
    show({ phase: 'uploading', counts: { partsDone: 4, partsTotal: 9, bytesPending: 5 } });
    const el = screen.getByTestId('recording-status');
    expect(el).toHaveTextContent('録画データを送信中（4 / 9）');
    expect(el).toHaveTextContent('このページを閉じないでください');
  });

  it('shows waiting for the network', () => {
    show({ phase: 'waiting-network', recorderRunning: true });
    expect(screen.getByTestId('recording-status')).toHaveTextContent('ネットワークの回復を待っています');
  });

  it('shows done', () => {
    show({ phase: 'done' });
    expect(screen.getByTestId('recording-status')).toHaveTextContent('送信が完了しました');
  });

  it('shows the start error and allow false', () => {
    show({ phase: 'error', errorKey: 'recording:startFailed', allow: false });
    const el = screen.getByTestId('recording-status');
    expect(el).toHaveTextContent('録画開始に失敗しました。');
    expect(el).toHaveTextContent('カメラまたはマイクを使用できません。');
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('upload give-up: the reason and a retry button', () => {
    const { store } = show({
      phase: 'error',
      errorKey: 'recording:uploadFailed',
      errorReason: 'network-exhausted',
    });
    expect(screen.getByTestId('recording-status')).toHaveTextContent('60分間');
    fireEvent.click(screen.getByRole('button', { name: '再送信' }));
    expect(selectRecording(store.getState()).phase).toBe('error');
  });

  it('shows an earlier recording being sent', () => {
    show({ backlog: { partsDone: 1, partsTotal: 4, bytesPending: 10, recordings: 1 } });
    expect(screen.getByTestId('recording-backlog')).toHaveTextContent('前回の録画データを送信中（1 / 4）');
  });
});
