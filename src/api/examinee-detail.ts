import type { TesterDetail } from '@contract/tester';
import type { OnetimeUriResult } from '@contract/recording';
import { call } from './client';
import { camelize, type Camelize } from '../lib/case';

export type ExamineeDetail = Camelize<TesterDetail>;
export type RecordUri = Camelize<OnetimeUriResult>;

/**
 * GET tester/detail by test id (spec §7): one sitting with logs, markings and records. An API that does not
 * send the examinee and record-status logs (or the cheating level) gets empty logs (and level 0): the SPA
 * shows what the server recorded, never a log rebuilt from timestamps.
 */
export async function getExamineeDetail(testId: number): Promise<ExamineeDetail> {
  const r = await call<Partial<TesterDetail> & Omit<TesterDetail, 'examinee_logs' | 'record_status_logs'>>(
    'tester/detail',
    { params: { test_id: testId } },
  );
  return camelize({
    ...r,
    cheating_level: r.cheating_level ?? 0,
    group_code: r.group_code ?? null,
    examinee_logs: r.examinee_logs ?? [],
    record_status_logs: r.record_status_logs ?? [],
  });
}

/** GET get_onetime_uri (spec §7): a short-lived playback address of one recording. */
export async function getRecordUri(recordId: number): Promise<RecordUri> {
  return camelize(await call<OnetimeUriResult>('get_onetime_uri', { params: { record_id: recordId } }));
}
