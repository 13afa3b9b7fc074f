import { useEffect, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { formCleared, formEdited, selectExaminees } from '../examinees-slice';
import { conditionsRequested, searchRequested } from '../examinees-thunks';
import type { SearchForm } from '../examinees-validation';
import { CheckField, SelectField, TextField, useFieldMessage } from '../../../components/ui/form-fields';

/** Spec §2 "Examinee search conditions", with options from testers/conditions, clear and search. */
export function ExamineeSearchForm() {
  const { t } = useTranslation('examinees');
  const dispatch = useAppDispatch();
  const { form, fieldErrors, conditions } = useAppSelector(selectExaminees);
  const message = useFieldMessage();
  useEffect(() => {
    void dispatch(conditionsRequested());
  }, [dispatch]);

  const edit = (patch: Partial<SearchForm>) => dispatch(formEdited(patch));
  const text = (field: keyof SearchForm) => (form[field] as string) ?? '';
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void dispatch(searchRequested({ fromForm: true }));
  };
  const any = t('form.any');
  const times = (conditions?.times ?? []).map((v) => ({ value: v, label: v }));
  const yesNo = [
    { value: 1, label: t('form.yes') },
    { value: 0, label: t('form.no') },
  ];
  const aiFlags = (conditions?.aiAnalysisFlag ?? []).map((o) => ({
    value: o.value,
    label: o.value === 1 ? t('form.aiDone') : t('form.aiNotDone'),
  }));

  return (
    <form
      onSubmit={onSubmit}
      noValidate
      aria-labelledby="examinee-search-heading"
      className="border rounded p-3 mb-3"
    >
      <h2 id="examinee-search-heading" className="h5">
        {t('form.heading')}
      </h2>
      <Row>
        <Col md={4}>
          <SelectField
            id="search-group"
            label={t('form.group')}
            value={form.group}
            emptyLabel={any}
            options={(conditions?.groups ?? []).map((g) => ({ value: g.id, label: `${g.name} (${g.code})` }))}
            onChange={(v) => edit({ group: v })}
          />
        </Col>
        <Col md={4}>
          <TextField
            id="search-group-text"
            label={t('form.groupText')}
            value={form.groupText}
            error={message(fieldErrors.groupText)}
            onChange={(v) => edit({ groupText: v })}
          />
        </Col>
        <Col md={4}>
          <TextField
            id="search-login-id"
            label={t('form.loginId')}
            value={form.loginId}
            onChange={(v) => edit({ loginId: v })}
          />
        </Col>
        <Col md={4}>
          <SelectField
            id="search-test-name"
            label={t('form.testName')}
            value={form.testName}
            emptyLabel={any}
            options={(conditions?.testNames ?? []).map((v) => ({ value: v, label: v }))}
            onChange={(v) => edit({ testName: v })}
          />
        </Col>
        <Col md={4}>
          <SelectField
            id="search-region"
            label={t('form.region')}
            value={form.region}
            emptyLabel={any}
            options={(conditions?.regions ?? []).map((v) => ({ value: v, label: v }))}
            onChange={(v) => edit({ region: v })}
          />
        </Col>
        <Col md={4}>
          <TextField
            id="search-exam-name"
            label={t('form.examName')}
            value={form.examName}
            onChange={(v) => edit({ examName: v })}
          />
          <CheckField
            id="search-like"
            label={t('form.isLikeSearch')}
            checked={form.isLikeSearch}
            onChange={(v) => edit({ isLikeSearch: v })}
          />
        </Col>
        <Col md={3}>
          <TextField
            id="search-date-from"
            type="date"
            label={t('form.dateFrom')}
            value={form.dateFrom}
            error={message(fieldErrors.dateFrom)}
            onChange={(v) => edit({ dateFrom: v })}
          />
        </Col>
        <Col md={3}>
          <SelectField
            id="search-time-from"
            label={t('form.timeFrom')}
            value={form.timeFrom}
            emptyLabel={any}
            options={times}
            onChange={(v) => edit({ timeFrom: v })}
          />
        </Col>
        <Col md={3}>
          <TextField
            id="search-date-to"
            type="date"
            label={t('form.dateTo')}
            value={form.dateTo}
            error={message(fieldErrors.dateTo)}
            onChange={(v) => edit({ dateTo: v })}
          />
        </Col>
        <Col md={3}>
          <SelectField
            id="search-time-to"
            label={t('form.timeTo')}
            value={form.timeTo}
            emptyLabel={any}
            options={times}
            onChange={(v) => edit({ timeTo: v })}
          />
        </Col>
        <Col md={3}>
          <SelectField
            id="search-record"
            label={t('form.record')}
            value={form.record}
            emptyLabel={any}
            options={yesNo}
            onChange={(v) => edit({ record: v })}
          />
        </Col>
        <Col md={3}>
          <SelectField
            id="search-with-mark"
            label={t('form.withMark')}
            value={form.withMark}
            emptyLabel={any}
            options={yesNo}
            onChange={(v) => edit({ withMark: v })}
          />
        </Col>
        <Col md={3}>
          <TextField
            id="search-cheating-from"
            inputMode="numeric"
            label={t('form.cheatingLevelFrom')}
            value={form.cheatingLevelFrom}
            error={message(fieldErrors.cheatingLevelFrom)}
            onChange={(v) => edit({ cheatingLevelFrom: v })}
          />
        </Col>
        <Col md={3}>
          <TextField
            id="search-cheating-to"
            inputMode="numeric"
            label={t('form.cheatingLevelTo')}
            value={form.cheatingLevelTo}
            error={message(fieldErrors.cheatingLevelTo)}
            onChange={(v) => edit({ cheatingLevelTo: v })}
          />
        </Col>
        <Col md={3}>
          <TextField
            id="search-score"
            inputMode="numeric"
            label={t('form.score')}
            value={text('score')}
            error={message(fieldErrors.score)}
            onChange={(v) => edit({ score: v })}
          />
        </Col>
        <Col md={3}>
          <SelectField
            id="search-ai-flag"
            label={t('form.aiAnalysisFlag')}
            value={form.aiAnalysisFlag}
            emptyLabel={any}
            options={aiFlags}
            onChange={(v) => edit({ aiAnalysisFlag: v })}
          />
        </Col>
        <Col md={3}>
          <SelectField
            id="search-ai-batch-flag"
            label={t('form.aiAnalysisBatchFlag')}
            value={form.aiAnalysisBatchFlag}
            emptyLabel={any}
            options={aiFlags}
            onChange={(v) => edit({ aiAnalysisBatchFlag: v })}
          />
        </Col>
        <Col md={3}>
          <TextField
            id="search-ai-namematch"
            inputMode="numeric"
            label={t('form.aiNamematch')}
            value={form.aiNamematch}
            error={message(fieldErrors.aiNamematch)}
            onChange={(v) => edit({ aiNamematch: v })}
          />
        </Col>
        <Col md={3}>
          <SelectField
            id="search-mark"
            label={t('form.markId')}
            value={form.markId}
            emptyLabel={any}
            options={(conditions?.marks ?? []).map((m) => ({ value: m.id, label: m.message }))}
            onChange={(v) => edit({ markId: v })}
          />
        </Col>
      </Row>
      <div className="d-flex gap-2 justify-content-end">
        <Button variant="outline-secondary" type="button" onClick={() => dispatch(formCleared())}>
          {t('form.clear')}
        </Button>
        <Button variant="primary" type="submit">
          {t('form.search')}
        </Button>
      </div>
    </form>
  );
}
