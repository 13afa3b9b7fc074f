import type {
  AnalysisInitialParamResult,
  ManagementInitialParamResult,
  ManagementSummaryResult,
} from '@contract/management';
import type { CheckersMonitoringResult } from '@contract/matching';
import type { AdminPermissionResult } from '@contract/logs';
import { call } from './client';
import { camelize, type Camelize } from '../lib/case';

export type ManagementInitialParam = Camelize<ManagementInitialParamResult>;
export type ManagementSummary = Camelize<ManagementSummaryResult>;
export type AnalysisInitialParam = Camelize<AnalysisInitialParamResult>;
export type CheckersMonitoring = Camelize<CheckersMonitoringResult>;
export type MonitoringTester = CheckersMonitoring['notMatchings'][number];

/** GET management_initial_param: the server origin and domain. */
export async function getManagementInitialParam(): Promise<ManagementInitialParam> {
  return camelize(await call<ManagementInitialParamResult>('management_initial_param'));
}

/** GET management_summary: login counts and today's planned deletions (spec §3). */
export async function getManagementSummary(): Promise<ManagementSummary> {
  return camelize(await call<ManagementSummaryResult>('management_summary'));
}

/** The admin IP permission of the caller: `process` 1 allowed, 0 not (with the server's message). */
export type AdminPermission = AdminPermissionResult;

/** GET admin_permission (spec §6): whether the caller's IP may use the proctor functions. */
export async function getAdminPermission(): Promise<AdminPermission> {
  return call<AdminPermissionResult>('admin_permission');
}

/** GET analysis_request/initial_param: domain and env of the analysis service. */
export async function getAnalysisInitialParam(): Promise<AnalysisInitialParam> {
  return camelize(await call<AnalysisInitialParamResult>('analysis_request/initial_param'));
}

/** Where an analysis request stands: waiting, running, every recording analysed, or one or more failed. */
export type AnalysisRequestStatus = 'queued' | 'running' | 'done' | 'error';

/** One analysis request of the history table (spec §3 "Analysis request") with its progress. */
export interface AnalysisRequestRow {
  id: number;
  inseq: string;
  status: AnalysisRequestStatus;
  env: string;
  /** The server's summary of the outcome (why it failed, when it did). */
  result: string;
  /** Analysis method 1–5 (spec §9). */
  method: number;
  createdAt: string;
  updatedAt: string;
  /** Recordings of the request: how many, how many analysed and failed, and the overall percentage. */
  progress: { total: number; done: number; failed: number; percent: number };
}

/** Columns the history can be sorted by (analysis_request/index sort_key). */
export type AnalysisSortKey = 'inseq' | 'status' | 'created_at' | 'updated_at';

/** POST analysis_request/request (spec §7): request number, method and the selected test ids. */
export async function requestAnalysis(input: {
  inseq: string;
  status: number;
  testIds: number[];
}): Promise<void> {
  await call<unknown>('analysis_request/request', {
    method: 'POST',
    data: { analysis_inseq: input.inseq, analysis_status: input.status, testers: input.testIds },
  });
}

/** GET analysis_request/index (spec §7): the request history, sorted. */
export async function getAnalysisRequests(q: {
  sortKey: AnalysisSortKey;
  sortOrder: 0 | 1;
}): Promise<AnalysisRequestRow[]> {
  const r = await call<{ analysis_requests?: Record<string, unknown>[] }>('analysis_request/index', {
    params: { sort_key: q.sortKey, sort_order: q.sortOrder },
  });
  return (r.analysis_requests ?? []).map((x) => camelize(x) as unknown as AnalysisRequestRow);
}

/** GET checkers/monitoring (spec §7): matchings per monitor, unassigned and kicked examinees. */
export async function getCheckersMonitoring(): Promise<CheckersMonitoring> {
  return camelize(await call<CheckersMonitoringResult>('checkers/monitoring'));
}

/** POST tester/kick_out with method DELETE: lifts a kick-out (system manager and supervisor only). */
export async function liftKickOut(testerId: number): Promise<void> {
  await call<unknown>('tester/kick_out', { method: 'POST', data: { tester_id: testerId, method: 'DELETE' } });
}

/** POST delete_matching: releases the examinee's matching. */
export async function deleteMatching(testerId: number): Promise<void> {
  await call<unknown>('delete_matching', { method: 'POST', data: { tester_id: testerId } });
}
