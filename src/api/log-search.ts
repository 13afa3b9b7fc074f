import type { LogSearchResult } from '@contract/logs';
import { call } from './client';
import { camelize, type Camelize } from '../lib/case';

export type LogSearchPage = Camelize<LogSearchResult>;
export type LogRow = LogSearchPage['list'][number];
/** Where a log row came from, or 'all'. */
export type LogSourceFilter = 'all' | 'client' | 'device' | 'audit' | 'server';

/** The log search request; empty strings and null leave a filter out. */
export interface LogSearchRequest {
  /** `yyyy-MM-dd HH:mm` (management time zone). */
  from: string;
  to: string;
  source: LogSourceFilter;
  actor: number | null;
  loginId: string;
  level: string;
  text: string;
  page: number;
  maxDisplayCount: number;
}

/** GET logs/search (/logview): one page of logs, newest first. */
export async function searchLogs(q: LogSearchRequest): Promise<LogSearchPage> {
  const params: Record<string, unknown> = {
    source: q.source,
    page: q.page,
    max_display_count: q.maxDisplayCount,
  };
  if (q.from) params.from = q.from;
  if (q.to) params.to = q.to;
  if (q.actor !== null) params.actor = q.actor;
  if (q.loginId) params.login_id = q.loginId;
  if (q.level) params.level = q.level;
  if (q.text) params.text = q.text;
  return camelize(await call<LogSearchResult>('logs/search', { params }));
}
