import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertBox } from '../../../components/ui/alert-box';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { DateTime } from '../../../components/ui/date-time';
import { useText } from '../../../components/ui/use-text';
import { testerStatusKey } from '../../../lib/labels';
import { selectManagement } from '../management-slice';
import { forceLogoutRequested, loginsRequested } from '../logins-thunks';
import { Pager } from '../../../components/ui/pager';
import { SortHeader } from '../../../components/ui/sort-header';

const COLUMNS = [
  [1, 'loginId'],
  [2, 'groupId'],
  [3, 'actor'],
  [4, 'target'],
  [5, 'isMcStartup'],
  [6, 'status'],
  [7, 'kicked'],
  [8, 'rejected'],
  [9, 'updatedAt'],
] as const;

/** /logins: actor-kind filter, sortable columns of spec §3, pages, forced logout, the empty message. */
export function LoginsView() {
  const { t } = useTranslation('management');
  const text = useText();
  const dispatch = useAppDispatch();
  const { logins } = useAppSelector(selectManagement);
  const q = logins.query;
  useEffect(() => {
    void dispatch(loginsRequested());
  }, [dispatch]);
  const yn = (v: number) => (v ? t('yes') : t('no'));
  return (
    <div>
      <Form.Group controlId="logins-actor-kind" className="mb-3" style={{ maxWidth: 280 }}>
        <Form.Label>{t('logins.actorKind')}</Form.Label>
        <Form.Select
          value={q.actorKind}
          onChange={(e) =>
            void dispatch(loginsRequested({ actorKind: Number(e.target.value) as 1 | 2 | -1, page: 1 }))
          }
        >
          <option value={1}>{t('logins.kindTester')}</option>
          <option value={2}>{t('logins.kindOther')}</option>
          <option value={-1}>{t('logins.kindAll')}</option>
        </Form.Select>
      </Form.Group>
      {logins.status === 'failed' && (
        <AlertBox variant="danger">
          {logins.failure?.messageText ?? text(logins.failure?.messageKey ?? 'management:loadFailed')}
        </AlertBox>
      )}
      {logins.status === 'succeeded' && logins.data.list.length === 0 ? (
        <p role="status">{t('logins.empty')}</p>
      ) : (
        <>
          <Table bordered size="sm" responsive>
            <caption>{t('logins.caption', { count: logins.data.count })}</caption>
            <thead>
              <tr>
                {COLUMNS.map(([key, name]) => (
                  <SortHeader
                    key={key}
                    label={t(`logins.columns.${name}`)}
                    sortKey={key}
                    activeKey={q.sortKey}
                    order={q.sortOrder}
                    sortHint={t('sortHint')}
                    onSort={(sortKey, sortOrder) =>
                      void dispatch(loginsRequested({ sortKey, sortOrder, page: 1 }))
                    }
                  />
                ))}
                <th scope="col">{t('logins.forceLogout')}</th>
              </tr>
            </thead>
            <tbody>
              {logins.data.list.map((r) => (
                <tr key={r.examUserId}>
                  <td>{r.loginId}</td>
                  <td>{r.groupId ?? ''}</td>
                  <td>
                    {[1, 2, 3, 4, 5].includes(r.actor)
                      ? t(`actors.${r.actor as 1 | 2 | 3 | 4 | 5}`)
                      : r.actor}
                  </td>
                  <td>{r.target || text('common:thisServer')}</td>
                  <td>{yn(r.isMcStartup)}</td>
                  <td data-testid="login-status">
                    {r.status === null ? '-' : text(testerStatusKey(r.status) ?? 'common:testerStatus.0')}
                  </td>
                  <td>{yn(r.kicked)}</td>
                  <td>{yn(r.rejected)}</td>
                  <td>
                    <DateTime value={r.updatedAt} />
                  </td>
                  <td>
                    <Button
                      size="sm"
                      variant="outline-danger"
                      onClick={() => void dispatch(forceLogoutRequested(r.examUserId, r.loginId))}
                    >
                      {t('logins.forceLogoutOf', { loginId: r.loginId })}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
          <Pager
            page={q.page}
            pageCount={logins.data.pageCount}
            label={t('logins.pages')}
            onPage={(page) => void dispatch(loginsRequested({ page }))}
          />
        </>
      )}
    </div>
  );
}
