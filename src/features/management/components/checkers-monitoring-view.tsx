import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertBox } from '../../../components/ui/alert-box';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { DateTime } from '../../../components/ui/date-time';
import { useText } from '../../../components/ui/use-text';
import { monitorMemo, testerStatusKey } from '../../../lib/labels';
import type { MonitoringTester } from '../../../api/management';
import { selectManagement } from '../management-slice';
import { kickLiftRequested, monitoringRequested } from '../management-thunks';

/** /checkers/monitoring: monitors with their examinees (up to five), unassigned and kicked examinees. */
export function CheckersMonitoringView() {
  const { t } = useTranslation('management');
  const text = useText();
  const dispatch = useAppDispatch();
  const { monitoring } = useAppSelector(selectManagement);
  useEffect(() => {
    void dispatch(monitoringRequested());
  }, [dispatch]);
  const m = monitoring.data;
  const yn = (v: number) => (v ? t('yes') : t('no'));
  const release = (x: MonitoringTester) => void dispatch(kickLiftRequested(x.id, x.loginId));
  const testers = (list: MonitoringTester[], caption: string, withRelease: boolean) =>
    list.length === 0 ? (
      <p role="status">{t('monitoring.none')}</p>
    ) : (
      <Table bordered size="sm" responsive>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{t('monitoring.loginId')}</th>
            <th scope="col">{t('monitoring.examName')}</th>
            <th scope="col">{t('monitoring.state')}</th>
            <th scope="col">{t('monitoring.testerStatus')}</th>
            <th scope="col">{t('monitoring.isAuth')}</th>
            <th scope="col">{t('monitoring.isMcStartup')}</th>
            <th scope="col">{t('monitoring.examUrl')}</th>
            <th scope="col">{t('monitoring.isProctor')}</th>
            <th scope="col">{t('monitoring.isRecord')}</th>
            <th scope="col">{t('monitoring.isSummary')}</th>
            <th scope="col">{t('monitoring.memo')}</th>
            {withRelease && <th scope="col">{t('monitoring.release')}</th>}
          </tr>
        </thead>
        <tbody>
          {list.map((x) => (
            <tr key={x.id}>
              <td>{x.loginId}</td>
              <td>{x.examName}</td>
              <td>
                {x.kicked ? (
                  t('monitoring.kicked')
                ) : x.unwatchedSince ? (
                  <span className="text-danger fw-bold" data-testid="unwatched">
                    {t('monitoring.unwatched')} (<DateTime value={x.unwatchedSince} />)
                  </span>
                ) : x.onHold ? (
                  t('monitoring.onHold')
                ) : (
                  t('monitoring.wait')
                )}
              </td>
              <td data-testid="tester-status">
                {text(testerStatusKey(x.status) ?? 'common:testerStatus.0')}
              </td>
              <td>{yn(x.startupParameters.isAuth)}</td>
              <td>{yn(x.isMcStartup)}</td>
              <td>{x.examUrl ? yn(1) : yn(0)}</td>
              <td>{yn(x.startupParameters.isProctor)}</td>
              <td>{yn(x.startupParameters.isRecord)}</td>
              <td>{yn(x.startupParameters.isSummary)}</td>
              <td>{monitorMemo(x.startupParameters.memo)}</td>
              {withRelease && (
                <td>
                  <Button
                    size="sm"
                    variant="outline-danger"
                    disabled={!x.kicked && !x.rejected}
                    onClick={() => release(x)}
                  >
                    {t('monitoring.releaseOf', { loginId: x.loginId })}
                  </Button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </Table>
    );
  return (
    <div>
      <Button
        variant="outline-secondary"
        size="sm"
        className="mb-2"
        onClick={() => void dispatch(monitoringRequested())}
      >
        {t('monitoring.reload')}
      </Button>
      {monitoring.status === 'failed' && (
        <AlertBox variant="danger">
          {monitoring.failure?.messageText ?? text(monitoring.failure?.messageKey ?? 'management:loadFailed')}
        </AlertBox>
      )}
      <section aria-labelledby="mon-monitors">
        <h2 id="mon-monitors" className="h5">
          {t('monitoring.monitors')}
        </h2>
        {m && m.matchings.length === 0 && <p role="status">{t('monitoring.noMonitors')}</p>}
        {m?.matchings.map((g) => (
          <div key={g.checker.id} className="border rounded p-2 mb-2">
            <h3 className="h6">
              {g.checker.adminName} ({g.checker.loginId}) ・ {g.checker.target || text('common:thisServer')}
            </h3>
            {testers(g.testers.slice(0, 5), t('monitoring.assignedTo', { name: g.checker.adminName }), false)}
          </div>
        ))}
      </section>
      <section aria-labelledby="mon-unassigned">
        <h2 id="mon-unassigned" className="h5">
          {t('monitoring.unassigned')}
        </h2>
        {m && testers(m.notMatchings, t('monitoring.unassigned'), true)}
      </section>
      <section aria-labelledby="mon-kicked">
        <h2 id="mon-kicked" className="h5">
          {t('monitoring.kickedUsers')}
        </h2>
        {m && testers(m.kickedUsers, t('monitoring.kickedUsers'), true)}
      </section>
    </div>
  );
}
