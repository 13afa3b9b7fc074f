import type { MarkList } from '@contract/messages';
import type { MarkingResult, TestMarkingsResult } from '@contract/tester';
import { call } from './client';

/** A mark a checker can record (spec §3 "Mark", with its score). */
export interface Mark {
  id: number;
  message: string;
  orderId: number;
  label: string;
  display: number;
  score: number;
}

/** GET marks: every mark, in order. */
export async function getMarks(): Promise<Mark[]> {
  const r = await call<MarkList>('marks', { method: 'GET' });
  return (r?.list ?? []).map((m) => ({
    id: m.id,
    message: m.message,
    orderId: m.order_id,
    label: m.label,
    display: m.display,
    score: m.score,
  }));
}

/** A marking to save (spec §3 "Marking post"). */
export interface MarkingInput {
  testerId: number;
  markId: number;
  /** The still image as base64 or a data: URL; omitted when no frame could be captured. */
  image?: string;
  contentType?: string;
  /** Milliseconds between the capture and the save (the server dates the marking back by it). */
  timeLag: number;
  /** Show the mark's message to the examinee. */
  notify: boolean;
}

/** The saved marking: the alert text sent to the examinee ('' when not notified) and the image URL. */
export interface SavedMarking {
  alert: string;
  url: string | null;
  markingId: number;
  markingTotalScore: number;
}

/** POST tester/markings as JSON with the image as base64. */
export async function saveMarking(input: MarkingInput): Promise<SavedMarking> {
  const r = await call<MarkingResult>('tester/markings', {
    method: 'POST',
    timeoutMs: 60_000,
    data: {
      tester_id: input.testerId,
      mark: input.markId,
      ...(input.image ? { image: input.image, content_type: input.contentType ?? 'image/jpeg' } : {}),
      time_lag: Math.max(0, Math.min(3_600_000, Math.round(input.timeLag))),
      notification: input.notify ? 1 : 0,
    },
  });
  return {
    alert: r.alert,
    url: r.url,
    markingId: r.marking_id,
    markingTotalScore: r.marking_total_score,
  };
}

/** One stored marking with its record id and time (to place it on the recording's playback timeline). */
export interface StoredMarking {
  id: number;
  markingAt: string;
  url: string | null;
  markId: number | null;
  message: string;
  label: string;
  score: number;
  recordId: number | null;
}

/** GET test/markings for a sitting: its markings and total score. */
export async function getTestMarkings(
  testId: number,
): Promise<{ markings: StoredMarking[]; markingTotalScore: number }> {
  const r = await call<TestMarkingsResult>('test/markings', { method: 'GET', params: { test_id: testId } });
  return {
    markings: r.markings.map((m) => ({
      id: m.id,
      markingAt: m.marking_at,
      url: m.url,
      markId: m.mark,
      message: m.message,
      label: m.label,
      score: m.score,
      recordId: m.record_id,
    })),
    markingTotalScore: r.marking_total_score,
  };
}
