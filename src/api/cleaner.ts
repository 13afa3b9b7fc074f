import type { CleanerSettingListResult, CleanerSettingRow } from '@contract/management';
import { call } from './client';
import { camelize, type Camelize } from '../lib/case';
import { downloadCsvFile, type DownloadedCsv } from './examinees';

export type RetentionRow = Camelize<CleanerSettingRow>;

/** GET cleaner/setting_index: system rows first, then per-group rows. */
export async function listRetention(): Promise<RetentionRow[]> {
  return camelize(await call<CleanerSettingListResult>('cleaner/setting_index')).list;
}

/** POST cleaner/setting_store: a new per-group row. */
export async function storeRetention(groupId: number, duration: number): Promise<void> {
  await call<unknown>('cleaner/setting_store', { method: 'POST', data: { group_id: groupId, duration } });
}

/** POST cleaner/setting_update: a new duration (days) for a row. */
export async function updateRetention(id: number, duration: number): Promise<void> {
  await call<unknown>('cleaner/setting_update', { method: 'POST', data: { id, duration } });
}

/** GET cleaner/csv (spec §5): the planned deletions of `date` (yyyy-MM-dd), sent as date + 00:00:00. */
export function downloadDeletePlan(key: 'tester' | 'record', date: string): Promise<DownloadedCsv> {
  return downloadCsvFile('cleaner/csv', { key, execution_time: `${date} 00:00:00` });
}
