import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertBox } from '../../../components/ui/alert-box';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { useText } from '../../../components/ui/use-text';
import { selectManagement } from '../management-slice';
import { logSearchRequested } from '../log-search-thunks';
import type { FieldErrors, LogSearchForm } from '../management-validation';
import { FieldGrid, type GridColumn } from '../../../components/ui/field-grid';
import { Pager } from '../../../components/ui/pager';
import { DateTime } from '../../../components/ui/date-time';

const EMPTY: LogSearchForm = { from: '', to: '', source: 'all', actor: '', loginId: '', level: '', text: '' };
const SOURCES = ['all', 'client', 'device', 'audit', 'server'] as const;
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
/** Sources whose entries a browser sent (log_receive, device_logging), not the server. */
const REPORTED: ReadonlySet<string> = new Set(['client', 'device']);

/** /logview: the log search form, the newest-first results in a 400px scroll area (spec §9), and pages. */
export function LogSearchView() {
  const { t } = useTranslation('management');
  const text = useText();
  const dispatch = useAppDispatch();
  const { logs } = useAppSelector(selectManagement);
  const [form, setForm] = useState<LogSearchForm>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await dispatch(logSearchRequested({ form }));
    setErrors(r.ok ? {} : (r.errors ?? {}));
  };
  const set = (patch: Partial<LogSearchForm>) => setForm({ ...form, ...patch });
  const data = logs.data;
  const actorLabel = (a: number | null) =>
    a !== null && a >= 1 && a <= 5 ? t(`actors.${a as 1 | 2 | 3 | 4 | 5}`) : '';
  const columns: GridColumn<LogSearchForm>[] = [
    { kind: 'text', name: 'from', id: 'log-from', md: 3, type: 'datetime-local', label: t('logview.from') },
    { kind: 'text', name: 'to', id: 'log-to', md: 3, type: 'datetime-local', label: t('logview.to') },
    {
      kind: 'select',
      name: 'source',
      id: 'log-source',
      md: 3,
      label: t('logview.source'),
      options: SOURCES.map((s) => ({ value: s, label: t(`logview.sources.${s}`) })),
    },
    {
      kind: 'select',
      name: 'level',
      id: 'log-level',
      md: 3,
      label: t('logview.level'),
      emptyLabel: t('unset'),
      options: LEVELS.map((l) => ({ value: l, label: l })),
    },
    {
      kind: 'select',
      name: 'actor',
      id: 'log-actor',
      md: 3,
      label: t('logview.actor'),
      emptyLabel: t('unset'),
      options: [1, 2, 3, 4, 5].map((a) => ({ value: a, label: actorLabel(a) })),
    },
    { kind: 'text', name: 'loginId', id: 'log-login-id', md: 3, label: t('logview.loginId') },
    { kind: 'text', name: 'text', id: 'log-text', md: 6, label: t('logview.text') },
  ];

  return (
    <div>
      <form
        onSubmit={(e) => void submit(e)}
        noValidate
        className="border rounded p-3 mb-3"
        aria-labelledby="log-form-heading"
      >
        <h2 id="log-form-heading" className="h5">
          {t('logview.heading')}
        </h2>
        <FieldGrid columns={columns} values={form} errors={errors} onEdit={set} />
        <div className="d-flex gap-2">
          <Button
            variant="outline-secondary"
            type="button"
            onClick={() => {
              setForm(EMPTY);
              setErrors({});
            }}
          >
            {t('logview.clear')}
          </Button>
          <Button type="submit">{t('logview.search')}</Button>
        </div>
      </form>
      {logs.status === 'failed' && (
        <AlertBox variant="danger" role="alert">
          {logs.failure?.messageText ?? text(logs.failure?.messageKey ?? 'management:logview.failed')}
        </AlertBox>
      )}
      {logs.status === 'succeeded' && data.list.length === 0 && <p role="status">{t('logview.empty')}</p>}
      {logs.status === 'succeeded' && data.list.length > 0 && (
        <>
          <p role="status" className="mb-1">
            {t('logview.count', { count: data.count, page: data.page, pageCount: data.pageCount })}
          </p>
          <div
            className="log-scroll border mb-2"
            tabIndex={0}
            role="region"
            aria-label={t('logview.caption')}
          >
            <Table bordered size="sm" className="mb-0 small">
              <caption className="visually-hidden">{t('logview.caption')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('logview.columns.createdAt')}</th>
                  <th scope="col">{t('logview.columns.source')}</th>
                  <th scope="col">{t('logview.columns.level')}</th>
                  <th scope="col">{t('logview.columns.type')}</th>
                  <th scope="col">{t('logview.columns.loginId')}</th>
                  <th scope="col">{t('logview.columns.actor')}</th>
                  <th scope="col">{t('logview.columns.ip')}</th>
                  <th scope="col">{t('logview.columns.details')}</th>
                </tr>
              </thead>
              <tbody>
                {data.list.map((r) => {
                  // What a browser reported (anyone can send it) is kept apart from the server's own entries.
                  const reported = REPORTED.has(r.source);
                  return (
                    <tr
                      key={r.id}
                      data-testid="log-row"
                      data-source={r.source}
                      className={
                        reported ? 'text-body-secondary' : r.level === 'error' ? 'table-danger' : undefined
                      }
                    >
                      <td className="text-nowrap">
                        <DateTime value={r.createdAt} />
                      </td>
                      <td>
                        {SOURCES.includes(r.source as 'all')
                          ? t(`logview.sources.${r.source as 'all'}`)
                          : r.source}
                        {reported && (
                          <Badge bg="light" text="dark" className="ms-1 border">
                            {t('logview.reported')}
                          </Badge>
                        )}
                      </td>
                      <td>{r.level}</td>
                      <td>{[r.type, r.module].filter(Boolean).join(' / ')}</td>
                      <td>{r.loginId ?? (reported ? t('logview.anonymous') : '')}</td>
                      <td>{actorLabel(r.actor)}</td>
                      <td>{r.ip ?? ''}</td>
                      <td className="text-break">
                        {[r.location, r.path, r.details].filter(Boolean).join(' ')}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </Table>
          </div>
          <Pager
            page={data.page}
            pageCount={data.pageCount}
            label={t('logview.pages')}
            onPage={(p) => void dispatch(logSearchRequested({ page: p }))}
          />
        </>
      )}
    </div>
  );
}
