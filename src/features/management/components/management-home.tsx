import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { AlertBox } from '../../../components/ui/alert-box';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { useText } from '../../../components/ui/use-text';
import { selectManagement } from '../management-slice';
import { adminPermissionRequested, summaryRequested } from '../management-thunks';

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
    | 'logins'
    | 'editTerms'
    | 'accounts';
  href: string;
}

/**
 * Entries that need the proctor IP permission (admin_permission): the live matching status of checkers and
 * examinees (with lifting kick-outs) is proctoring itself, so an address without the permission does not
 * get it; the settings, search and log pages stay offered (the server still enforces every IP limit).
 */
export const PROCTOR_IP_ENTRIES: readonly MenuEntry['key'][] = ['checkersMonitoring'];

/**
 * The management menu and today's summary (management_summary). When admin_permission answers process 0,
 * its message is shown and the PROCTOR_IP_ENTRIES are left out; if the check itself fails, every entry is
 * offered (the server enforces the limits on each call).
 */
export function ManagementHome({ entries }: { entries: readonly MenuEntry[] }) {
  const { t } = useTranslation('management');
  const text = useText();
  const dispatch = useAppDispatch();
  const { summary, adminPermission } = useAppSelector(selectManagement);
  useEffect(() => {
    void dispatch(summaryRequested());
    void dispatch(adminPermissionRequested());
  }, [dispatch]);
  const ipLimited = adminPermission.status === 'succeeded' && adminPermission.data?.process === 0;
  const shown = ipLimited ? entries.filter((e) => !PROCTOR_IP_ENTRIES.includes(e.key)) : entries;
  const s = summary.data;
  return (
    <div className="row g-4">
      <nav className="col-md-5" aria-labelledby="menu-heading">
        <h2 id="menu-heading" className="h5">
          {t('menu.heading')}
        </h2>
        {ipLimited && (
          <AlertBox variant="warning" role="status" data-testid="ip-limited">
            <p className="mb-1">{t('menu.ipLimited')}</p>
            {adminPermission.data?.message && <p className="mb-0 small">{adminPermission.data.message}</p>}
          </AlertBox>
        )}
        <ul className="list-group">
          {shown.map((e) => (
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
          <AlertBox variant="danger">
            {summary.failure?.messageText ?? text(summary.failure?.messageKey ?? 'management:loadFailed')}
          </AlertBox>
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
