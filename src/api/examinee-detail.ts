import type { TesterDetail } from '../../contract/tester';
import type { OnetimeUriResult } from '../../contract/recording';
import { call } from './client';
import { camelize, type Camelize } from '../lib/case';

export type ExamineeDetail = Camelize<TesterDetail>;
export type RecordUri = Camelize<OnetimeUriResult>;

/** GET tester/detail by test id (spec §7): one sitting with logs, markings and records. */
export async function getExamineeDetail(testId: number): Promise<ExamineeDetail> {
  return camelize(await call<TesterDetail>('tester/detail', { params: { test_id: testId } }));
}

/** GET get_onetime_uri (spec §7): a short-lived playback address of one recording. */
export async function getRecordUri(recordId: number): Promise<RecordUri> {
  return camelize(await call<OnetimeUriResult>('get_onetime_uri', { params: { record_id: recordId } }));
}
