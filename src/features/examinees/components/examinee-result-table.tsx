import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { AlertBox } from '../../../components/ui/alert-box';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { useText } from '../../../components/ui/use-text';
import { pageSelectionToggled, rowToggled, selectExaminees } from '../examinees-slice';
import { csvRequested, searchRequested } from '../examinees-thunks';
import { ProgressMeter } from '../../../components/ui/progress-meter';
import { SortHeader } from '../../../components/ui/sort-header';
import { Pager } from '../../../components/ui/pager';
import { DateTime } from '../../../components/ui/date-time';

const DISPLAY_COUNTS = [10, 20, 50, 100, 200, 500] as const;
const COLUMNS = [
  [1, 'group'],
  [2, 'testName'],
  [3, 'region'],
  [4, 'testAt'],
  [5, 'examName'],
  [6, 'withMark'],
  [7, 'score'],
  [8, 'record'],
] as const;

/**
 * The result table of spec §2: sortable columns, row selection and select-all, pages and display count,
 * CSV download with progress, the empty message, and the way to a data-extraction request.
 */
export function ExamineeResultTable({
  detailHref,
  analysisHref,
}: {
  detailHref: (testId: number) => string;
  analysisHref: string;
}) {
  const { t } = useTranslation('examinees');
  const text = useText();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const s = useAppSelector(selectExaminees);
  if (s.status === 'idle') return null;
  if (s.status === 'failed' && s.failure) {
    return (
      <AlertBox variant="danger" role="alert">
        <p className="mb-0 fw-bold">{text(s.failure.messageKey)}</p>
        {s.failure.messageText && <p className="mb-0">{s.failure.messageText}</p>}
      </AlertBox>
    );
  }
  const onPage = s.rows.map((r) => r.testId);
  const allSelected = onPage.length > 0 && onPage.every((id) => s.selectedTestIds.includes(id));
  const sort = (sortKey: number, sortOrder: 0 | 1) =>
    void dispatch(searchRequested({ sortKey, sortOrder, page: 1 }));
  const csvBusy = s.csv.status === 'loading';

  return (
    <section aria-labelledby="examinee-results-heading">
      <div className="d-flex flex-wrap align-items-end gap-3 mb-2">
        <h2 id="examinee-results-heading" className="h5 mb-0 me-auto">
          {t('results.heading')}{' '}
          <span className="fs-6 fw-normal">
            {s.countCapped
              ? t('results.countCapped', { count: s.count })
              : t('results.count', { count: s.count })}
          </span>
        </h2>
        <Form.Group controlId="display-count">
          <Form.Label className="small mb-0">{t('results.displayCount')}</Form.Label>
          <Form.Select
            size="sm"
            value={s.maxDisplayCount}
            onChange={(e) =>
              void dispatch(searchRequested({ maxDisplayCount: Number(e.target.value), page: 1 }))
            }
          >
            {DISPLAY_COUNTS.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </Form.Select>
        </Form.Group>
        <Button
          variant="outline-primary"
          size="sm"
          disabled={csvBusy}
          onClick={() => void dispatch(csvRequested())}
        >
          {t('csv.download')}
        </Button>
        <Button variant="outline-secondary" size="sm" onClick={() => void navigate(analysisHref)}>
          {t('results.toAnalysis', { count: s.selectedTestIds.length })}
        </Button>
      </div>
      {csvBusy && (
        <div className="mb-2" aria-live="polite">
          <ProgressMeter
            animated
            percent={s.csv.totalRows ? Math.min(100, (s.csv.rows / Math.max(1, s.csv.totalRows)) * 100) : 100}
            label={t('csv.progressLabel')}
          />
          <p className="small mb-0">
            {s.csv.totalRows === null
              ? t('csv.progressBytes', { kb: Math.round(s.csv.bytes / 1024) })
              : t('csv.progress', {
                  rows: s.csv.rows,
                  total: s.csv.totalRows,
                  kb: Math.round(s.csv.bytes / 1024),
                })}
          </p>
        </div>
      )}
      {s.rows.length === 0 ? (
        <p role="status" className="text-body-secondary">
          {t('results.empty')}
        </p>
      ) : (
        <>
          <Table striped bordered hover responsive size="sm">
            <caption>{t('results.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">
                  <Form.Check
                    aria-label={t('results.selectAll')}
                    checked={allSelected}
                    onChange={(e) => dispatch(pageSelectionToggled(e.target.checked))}
                  />
                </th>
                {COLUMNS.map(([key, name]) => (
                  <SortHeader
                    key={key}
                    label={t(`columns.${name}`)}
                    sortKey={key}
                    activeKey={s.sortKey}
                    order={s.sortOrder}
                    onSort={sort}
                    sortHint={t('results.sortHint')}
                  />
                ))}
              </tr>
            </thead>
            <tbody>
              {s.rows.map((r) => (
                <tr key={r.testId}>
                  <td>
                    <Form.Check
                      aria-label={t('results.selectRow', { name: r.examName, loginId: r.loginId })}
                      checked={s.selectedTestIds.includes(r.testId)}
                      onChange={() => dispatch(rowToggled(r.testId))}
                    />
                  </td>
                  <td>{r.group ?? ''}</td>
                  <td>{r.testName}</td>
                  <td>{r.region}</td>
                  <td>
                    <DateTime value={r.testAt} />
                  </td>
                  <td>
                    <Link to={detailHref(r.testId)}>{r.examName || r.loginId}</Link>
                  </td>
                  <td>{r.withMark ? t('form.yes') : t('form.no')}</td>
                  <td>{r.totalScore}</td>
                  <td>{r.record ? t('form.yes') : t('form.no')}</td>
                </tr>
              ))}
            </tbody>
          </Table>
          <Pager
            page={s.page}
            pageCount={s.pageCount}
            label={t('results.pages')}
            onPage={(page) => void dispatch(searchRequested({ page }))}
          />
        </>
      )}
    </section>
  );
}
