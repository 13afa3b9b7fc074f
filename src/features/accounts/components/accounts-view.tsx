import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { CheckField, SelectField, TextField } from '../../../components/ui/form-fields';
import { Pager } from '../../../components/ui/pager';
import { useText } from '../../../components/ui/use-text';
import type { AccountsQuery } from '../../../api/accounts';
import { passwordReset, selectAccounts, type Failure } from '../accounts-slice';
import {
  accountsRequested,
  disabledToggled,
  groupSubmitted,
  groupsRequested,
  importConfirmed,
  importFileChosen,
  passwordResetRequested,
  passwordsDownloaded,
} from '../accounts-thunks';

const ACTOR_VALUES = [1, 2, 3, 4, 5] as const;

function FailureAlert({ failure }: { failure: Failure | null }) {
  const text = useText();
  if (!failure) return null;
  return (
    <Alert variant="danger" role="alert">
      {failure.messageText ?? text(failure.messageKey)}
    </Alert>
  );
}

/** CSV import: choose a file, see the server's check (every invalid line and why), then import. */
function ImportSection() {
  const { t } = useTranslation('accounts');
  const dispatch = useAppDispatch();
  const { preview, imported } = useAppSelector(selectAccounts);
  const [csv, setCsv] = useState<string | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [skipInvalid, setSkipInvalid] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const check = async (f: File | null, skip: boolean) => {
    setFailure(null);
    setCsv(null);
    if (!f) return;
    const r = await dispatch(importFileChosen(f, skip));
    if (r.ok) setCsv(r.csv ?? null);
    else setFailure(r.failure ?? null);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (csv === null) return;
    const r = await dispatch(importConfirmed(csv, skipInvalid));
    setFailure(r.ok ? null : (r.failure ?? null));
    if (r.ok) {
      setCsv(null);
      setFile(null);
      if (input.current) input.current.value = '';
    }
  };
  const errorLines = preview ? new Set(preview.result.errors.map((x) => x.line)).size : 0;
  const blocked = !preview || csv === null || (errorLines > 0 && !skipInvalid) || preview.result.rows === 0;

  return (
    <section aria-labelledby="acc-import-heading" className="border rounded p-3 mb-4">
      <h2 id="acc-import-heading" className="h5">
        {t('import.heading')}
      </h2>
      <p className="small" id="acc-import-help">
        {t('import.help')}
      </p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Form.Group controlId="acc-import-file" className="mb-2">
          <Form.Label>{t('import.file')}</Form.Label>
          <Form.Control
            ref={input}
            type="file"
            accept=".csv,text/csv"
            aria-describedby="acc-import-help"
            onChange={(e) => {
              const f = (e.target as HTMLInputElement).files?.[0] ?? null;
              setFile(f);
              void check(f, skipInvalid);
            }}
          />
        </Form.Group>
        <CheckField
          id="acc-import-skip"
          label={t('import.skipInvalid')}
          checked={skipInvalid}
          onChange={(v) => {
            setSkipInvalid(v);
            void check(file, v);
          }}
        />
        <FailureAlert failure={failure} />
        {preview && (
          <div data-testid="import-preview" className="mt-2">
            <h3 className="h6">{t('import.previewHeading', { fileName: preview.fileName })}</h3>
            <p role="status">
              {t('import.summary', {
                rows: preview.result.rows,
                created: preview.result.created,
                updated: preview.result.updated,
                unchanged: preview.result.unchanged,
              })}
            </p>
            {errorLines > 0 && (
              <>
                <Alert variant={skipInvalid ? 'warning' : 'danger'}>
                  {skipInvalid
                    ? t('import.invalidSkipped', { count: errorLines })
                    : t('import.invalidCount', { count: errorLines })}
                </Alert>
                <Table bordered size="sm" responsive data-testid="import-errors">
                  <caption>{t('import.errorsCaption')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('import.line')}</th>
                      <th scope="col">{t('import.loginId')}</th>
                      <th scope="col">{t('import.reason')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {preview.result.errors.map((x) => (
                      <tr key={`${x.line}-${x.issue}`}>
                        <td>{x.line}</td>
                        <td>{x.loginId}</td>
                        <td>{t(`issues.${x.issue}` as 'issues.csv_syntax', { defaultValue: x.message })}</td>
                      </tr>
                    ))}
                  </tbody>
                </Table>
              </>
            )}
          </div>
        )}
        <Button type="submit" disabled={blocked} className="mt-2">
          {t('import.submit')}
        </Button>
      </form>
      {imported && (
        <Alert variant="success" className="mt-3" data-testid="import-done">
          <p className="mb-1" role="status">
            {t('import.done', {
              created: imported.created,
              updated: imported.updated,
              unchanged: imported.unchanged,
              skipped: imported.skipped,
            })}
          </p>
          {imported.passwords.length > 0 && (
            <>
              <p className="mb-1">{t('import.passwordsNote', { count: imported.passwords.length })}</p>
              <Button variant="primary" size="sm" onClick={() => void dispatch(passwordsDownloaded())}>
                {t('import.downloadPasswords')}
              </Button>
            </>
          )}
        </Alert>
      )}
    </section>
  );
}

/** The exam groups and the form that creates one. */
function GroupsSection() {
  const { t } = useTranslation('accounts');
  const dispatch = useAppDispatch();
  const { groups } = useAppSelector(selectAccounts);
  const [code, setCode] = useState('');
  const [name, setName] = useState('');
  const [failure, setFailure] = useState<Failure | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await dispatch(groupSubmitted(code, name));
    setFailure(r.ok ? null : (r.failure ?? null));
    if (r.ok) {
      setCode('');
      setName('');
    }
  };
  return (
    <section aria-labelledby="acc-groups-heading" className="border rounded p-3 mb-4">
      <h2 id="acc-groups-heading" className="h5">
        {t('groups.heading')}
      </h2>
      <FailureAlert failure={groups.failure} />
      {groups.data.length === 0 ? (
        <p>{t('groups.empty')}</p>
      ) : (
        <Table bordered size="sm" responsive>
          <caption>{t('groups.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('groups.code')}</th>
              <th scope="col">{t('groups.name')}</th>
              <th scope="col">{t('groups.users')}</th>
            </tr>
          </thead>
          <tbody>
            {groups.data.map((g) => (
              <tr key={g.id}>
                <td>{g.code}</td>
                <td>{g.name}</td>
                <td>{g.userCount}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Row>
          <Col md={4}>
            <TextField
              id="acc-group-code"
              label={t('groups.code')}
              value={code}
              maxLength={32}
              onChange={setCode}
            />
          </Col>
          <Col md={5}>
            <TextField
              id="acc-group-name"
              label={t('groups.name')}
              value={name}
              maxLength={100}
              onChange={setName}
            />
          </Col>
          <Col md={3} className="d-flex align-items-end mb-3">
            <Button type="submit">{t('groups.create')}</Button>
          </Col>
        </Row>
        <FailureAlert failure={failure} />
      </form>
    </section>
  );
}

/** The accounts, filtered and paged, with disable/enable and a new password per row. */
function ListSection() {
  const { t } = useTranslation('accounts');
  const dispatch = useAppDispatch();
  const { list, query, groups, reset } = useAppSelector(selectAccounts);
  const [form, setForm] = useState<AccountsQuery>(query);
  const [failure, setFailure] = useState<Failure | null>(null);
  const act = async (p: Promise<{ ok: boolean; failure?: Failure }>) => {
    const r = await p;
    setFailure(r.ok ? null : (r.failure ?? null));
  };
  const data = list.data;
  return (
    <section aria-labelledby="acc-list-heading" className="border rounded p-3">
      <h2 id="acc-list-heading" className="h5">
        {t('list.heading')}
      </h2>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void dispatch(accountsRequested({ ...form, page: 1 }));
        }}
      >
        <Row>
          <Col md={3}>
            <SelectField
              id="acc-filter-actor"
              label={t('list.actor')}
              value={form.actor}
              emptyLabel={t('list.allActors')}
              options={ACTOR_VALUES.map((a) => ({ value: a, label: t(`actors.${a}`) }))}
              onChange={(v) => setForm({ ...form, actor: v as AccountsQuery['actor'] })}
            />
          </Col>
          <Col md={3}>
            <SelectField
              id="acc-filter-group"
              label={t('list.group')}
              value={form.groupCode}
              emptyLabel={t('list.allGroups')}
              options={groups.data.map((g) => ({ value: g.code, label: `${g.code} ${g.name}` }))}
              onChange={(v) => setForm({ ...form, groupCode: v })}
            />
          </Col>
          <Col md={3}>
            <TextField
              id="acc-filter-q"
              label={t('list.search')}
              value={form.q}
              maxLength={100}
              onChange={(v) => setForm({ ...form, q: v })}
            />
          </Col>
          <Col md={2}>
            <SelectField
              id="acc-filter-status"
              label={t('list.status')}
              value={form.status}
              options={[
                { value: 'all', label: t('list.statusAll') },
                { value: 'enabled', label: t('list.statusEnabled') },
                { value: 'disabled', label: t('list.statusDisabled') },
              ]}
              onChange={(v) => setForm({ ...form, status: v as AccountsQuery['status'] })}
            />
          </Col>
          <Col md={1} className="d-flex align-items-end mb-3">
            <Button type="submit">{t('list.filter')}</Button>
          </Col>
        </Row>
      </form>
      <FailureAlert failure={failure ?? list.failure} />
      {reset && (
        <Alert
          variant="info"
          dismissible
          onClose={() => dispatch(passwordReset(null))}
          data-testid="reset-password"
        >
          {t('list.resetDone', { loginId: reset.loginId })} <code>{reset.password}</code>
        </Alert>
      )}
      {data && data.list.length === 0 && <p role="status">{t('list.empty')}</p>}
      {data && data.list.length > 0 && (
        <Table bordered size="sm" responsive data-testid="accounts-table">
          <caption>{t('list.caption', { count: data.count })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('list.loginId')}</th>
              <th scope="col">{t('list.name')}</th>
              <th scope="col">{t('list.actor')}</th>
              <th scope="col">{t('list.group')}</th>
              <th scope="col">{t('list.status')}</th>
              <th scope="col">{t('list.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {data.list.map((u) => (
              <tr key={u.id}>
                <td>{u.loginId}</td>
                <td>{u.name}</td>
                <td>{ACTOR_VALUES.includes(u.actor as 1) ? t(`actors.${u.actor as 1}`) : u.actor}</td>
                <td>{u.groupCode ?? ''}</td>
                <td>
                  {u.disabled ? (
                    <Badge bg="secondary">{t('list.disabled')}</Badge>
                  ) : (
                    <Badge bg="success">{t('list.enabled')}</Badge>
                  )}
                </td>
                <td className="text-nowrap">
                  <Button
                    size="sm"
                    variant={u.disabled ? 'outline-success' : 'outline-danger'}
                    className="me-1"
                    aria-label={t(u.disabled ? 'list.enableLabel' : 'list.disableLabel', {
                      loginId: u.loginId,
                    })}
                    onClick={() => void act(dispatch(disabledToggled(u.loginId, !u.disabled)))}
                  >
                    {u.disabled ? t('list.enable') : t('list.disable')}
                  </Button>
                  <Button
                    size="sm"
                    variant="outline-secondary"
                    aria-label={t('list.resetLabel', { loginId: u.loginId })}
                    onClick={() => void act(dispatch(passwordResetRequested(u.loginId)))}
                  >
                    {t('list.resetPassword')}
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {data && (
        <Pager
          page={data.page}
          pageCount={data.pageCount}
          label={t('list.pager')}
          onPage={(page) => void dispatch(accountsRequested({ page }))}
        />
      )}
    </section>
  );
}

/** /accounts: CSV import, exam groups, and the accounts list (system managers). */
export function AccountsView() {
  const { t } = useTranslation('accounts');
  const dispatch = useAppDispatch();
  useEffect(() => {
    void dispatch(groupsRequested());
    void dispatch(accountsRequested());
  }, [dispatch]);
  return (
    <div>
      <p>{t('intro')}</p>
      <ImportSection />
      <GroupsSection />
      <ListSection />
    </div>
  );
}
