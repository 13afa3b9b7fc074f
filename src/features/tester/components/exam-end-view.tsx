import { useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { PageTitle } from '../../../components/layout/page-title';
import { ExamineeReport } from '../../../components/report/examinee-report';
import { DateTime } from '../../../components/ui/date-time';
import { testerExitRequested, selectTester } from '../tester-slice';
import { examEndEntered, summaryPrintRequested } from '../exam-end-thunks';
import { TOUCH } from '../../../components/ui/touch';

/**
 * /exam-end (PRE00005): monitoring-info summary, download, logout, the cheating notice (spec §2). The
 * "download" is the examinee's own report, printed by the browser (the report is what the page prints).
 */
export function ExamEndView() {
  const { t } = useTranslation('tester');
  const dispatch = useAppDispatch();
  const tester = useAppSelector(selectTester);
  const loggedIn = useAppSelector((s) => s.session.login !== null);
  useEffect(() => {
    void dispatch(examEndEntered());
  }, [dispatch]);
  const loaded = tester.summaryStatus === 'loaded';
  const [generatedAt] = useState(() => Date.now());
  return (
    <>
      <section aria-labelledby="page-title" className="report-screen-only">
        <PageTitle>
          <span id="page-title">{t('examEnd.title')}</span>
        </PageTitle>
        <p>{t('examEnd.done')}</p>
        <section aria-labelledby="summary-heading" aria-busy={tester.summaryStatus === 'loading'}>
          <h2 id="summary-heading" className="h5">
            {t('examEnd.summaryHeading')}
          </h2>
          <div role="status" aria-live="polite">
            {tester.summaryStatus === 'loading' && <p>{t('examEnd.loading')}</p>}
            {tester.summaryStatus === 'failed' && <p className="text-danger">{t('examEnd.loadFailed')}</p>}
          </div>
          {loaded && (
            <>
              <dl className="row" data-testid="exam-summary">
                <dt className="col-sm-4">{t('examEnd.markingCount')}</dt>
                <dd className="col-sm-8" data-testid="marking-count">
                  {tester.markings.length}
                </dd>
                <dt className="col-sm-4">{t('examEnd.score')}</dt>
                <dd className="col-sm-8">{tester.markingTotalScore}</dd>
                <dt className="col-sm-4">{t('examEnd.records')}</dt>
                <dd className="col-sm-8">{tester.records.length}</dd>
              </dl>
              {tester.markings.length > 0 ? (
                <>
                  <p className="alert alert-warning" data-testid="cheating-notice">
                    {t('examEnd.cheatingNotice')}
                  </p>
                  <table className="table table-sm">
                    <caption>{t('examEnd.markingsCaption')}</caption>
                    <thead>
                      <tr>
                        <th scope="col">{t('examEnd.markingAt')}</th>
                        <th scope="col">{t('examEnd.markingLabel')}</th>
                        <th scope="col">{t('examEnd.markingScore')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {tester.markings.map((m, i) => (
                        <tr key={`${m.markingAt}-${i}`}>
                          <td>
                            <DateTime value={m.markingAt} />
                          </td>
                          <td>{m.message}</td>
                          <td>{m.score}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </>
              ) : (
                <p data-testid="no-cheating">{t('examEnd.noCheating')}</p>
              )}
            </>
          )}
        </section>
        <div className="d-flex flex-wrap gap-2 mt-3">
          <Button
            variant="outline-primary"
            style={TOUCH}
            disabled={!loaded}
            onClick={() => void dispatch(summaryPrintRequested())}
            aria-describedby="exam-end-download-hint"
            data-testid="exam-end-report"
          >
            {t('examEnd.download')}
          </Button>
          {loggedIn && (
            <Button
              variant="primary"
              style={TOUCH}
              onClick={() => dispatch(testerExitRequested({ mode: 'logout' }))}
              data-testid="exam-end-logout"
            >
              {t('examEnd.logout')}
            </Button>
          )}
        </div>
        <p id="exam-end-download-hint" className="small text-body-secondary mt-2">
          {t('examEnd.downloadHint')}
        </p>
      </section>
      {tester.summaryReport && (
        <div className="d-none d-print-block">
          <ExamineeReport
            data={tester.summaryReport}
            decision={null}
            generatedAt={generatedAt}
            titleLevel={2}
          />
        </div>
      )}
    </>
  );
}
