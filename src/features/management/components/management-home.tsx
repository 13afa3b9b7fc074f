import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import Alert from 'react-bootstrap/Alert';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { useText } from '../../../components/ui/use-text';
import { selectManagement } from '../management-slice';
import { summaryRequested } from '../management-thunks';

/** A menu entry of spec §2 "/management": label key and address. */
export interface MenuEntry {
  key:
    | 'examinees'
    | 'checkersMonitoring'
    | 'analysisRequest'
    | 'accessLimit'
    | 'logview'
    | 'createShorturlList'
    | 'deleteSetting'
    | 'deletePlan'
    | 'logins';
  href: string;
}

/** The management menu and today's summary (management_summary). */
export function ManagementHome({ entries }: { entries: readonly MenuEntry[] }) {
  const { t } = useTranslation('management');
  const text = useText();
  const dispatch = useAppDispatch();
  const { summary } = useAppSelector(selectManagement);
  useEffect(() => {
    void dispatch(summaryRequested());
  }, [dispatch]);
  const s = summary.data;
  return (
    <div className="row g-4">
      <nav className="col-md-5" aria-labelledby="menu-heading">
        <h2 id="menu-heading" className="h5">
          {t('menu.heading')}
        </h2>
        <ul className="list-group">
          {entries.map((e) => (
            <li key={e.key} className="list-group-item">
              <Link to={e.href}>{t(`menu.${e.key}`)}</Link>
            </li>
          ))}
        </ul>
      </nav>
      <section className="col-md-7" aria-labelledby="summary-heading">
        <h2 id="summary-heading" className="h5">
          {t('summary.heading')}
        </h2>
        {summary.status === 'failed' && (
          <Alert variant="danger">
            {summary.failure?.messageText ?? text(summary.failure?.messageKey ?? 'management:loadFailed')}
          </Alert>
        )}
        <table className="table table-bordered">
          <caption>{t('summary.caption')}</caption>
          <tbody>
            <tr>
              <th scope="row">{t('summary.testerLogins')}</th>
              <td data-testid="summary-tester-logins">{s?.logins.testerCount ?? '-'}</td>
            </tr>
            <tr>
              <th scope="row">{t('summary.otherLogins')}</th>
              <td data-testid="summary-other-logins">{s?.logins.otherCount ?? '-'}</td>
            </tr>
            <tr>
              <th scope="row">{t('summary.deleteTesters')}</th>
              <td>{s?.deletePlan.testerCount ?? '-'}</td>
            </tr>
            <tr>
              <th scope="row">{t('summary.deleteRecords')}</th>
              <td>{s?.deletePlan.recordCount ?? '-'}</td>
            </tr>
          </tbody>
        </table>
      </section>
    </div>
  );
}
