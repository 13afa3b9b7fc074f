import { useEffect, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import Button from 'react-bootstrap/Button';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { formCleared, formEdited, selectExaminees } from '../examinees-slice';
import { conditionsRequested, searchRequested } from '../examinees-thunks';
import type { SearchForm } from '../examinees-form';
import { FieldGrid, type GridColumn } from '../../../components/ui/field-grid';
import { useText } from '../../../components/ui/use-text';
import { CHEATING_LEVELS, cheatingLevelKey } from '../../../lib/labels';

/** Spec §2 "Examinee search conditions", with options from testers/conditions, clear and search. */
export function ExamineeSearchForm() {
  const { t } = useTranslation('examinees');
  const text = useText();
  const dispatch = useAppDispatch();
  const { form, fieldErrors, conditions } = useAppSelector(selectExaminees);
  useEffect(() => {
    void dispatch(conditionsRequested());
  }, [dispatch]);

  const edit = (patch: Partial<SearchForm>) => dispatch(formEdited(patch));
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void dispatch(searchRequested({ fromForm: true }));
  };
  const any = t('form.any');
  const times = (conditions?.times ?? []).map((v) => ({ value: v, label: v }));
  // The levels by name (README "Cheating level"), as the server defines them.
  const cheatingLevels = (conditions?.cheatingLevel ?? [...CHEATING_LEVELS]).map((v) => ({
    value: v,
    label: text(cheatingLevelKey(v)),
  }));
  const yesNo = [
    { value: 1, label: t('form.yes') },
    { value: 0, label: t('form.no') },
  ];
  const aiFlags = (conditions?.aiAnalysisFlag ?? []).map((o) => ({
    value: o.value,
    label: o.value === 1 ? t('form.aiDone') : t('form.aiNotDone'),
  }));
  const columns: GridColumn<SearchForm>[] = [
    {
      kind: 'select',
      name: 'group',
      id: 'search-group',
      md: 4,
      label: t('form.group'),
      emptyLabel: any,
      options: (conditions?.groups ?? []).map((g) => ({ value: g.id, label: `${g.name} (${g.code})` })),
    },
    { kind: 'text', name: 'groupText', id: 'search-group-text', md: 4, label: t('form.groupText') },
    { kind: 'text', name: 'loginId', id: 'search-login-id', md: 4, label: t('form.loginId') },
    {
      kind: 'select',
      name: 'testName',
      id: 'search-test-name',
      md: 4,
      label: t('form.testName'),
      emptyLabel: any,
      options: (conditions?.testNames ?? []).map((v) => ({ value: v, label: v })),
    },
    {
      kind: 'select',
      name: 'region',
      id: 'search-region',
      md: 4,
      label: t('form.region'),
      emptyLabel: any,
      options: (conditions?.regions ?? []).map((v) => ({ value: v, label: v })),
    },
    {
      kind: 'text',
      name: 'examName',
      id: 'search-exam-name',
      md: 4,
      label: t('form.examName'),
      under: { kind: 'check', name: 'isLikeSearch', id: 'search-like', label: t('form.isLikeSearch') },
    },
    {
      kind: 'text',
      name: 'dateFrom',
      id: 'search-date-from',
      md: 3,
      type: 'date',
      label: t('form.dateFrom'),
    },
    {
      kind: 'select',
      name: 'timeFrom',
      id: 'search-time-from',
      md: 3,
      label: t('form.timeFrom'),
      emptyLabel: any,
      options: times,
    },
    { kind: 'text', name: 'dateTo', id: 'search-date-to', md: 3, type: 'date', label: t('form.dateTo') },
    {
      kind: 'select',
      name: 'timeTo',
      id: 'search-time-to',
      md: 3,
      label: t('form.timeTo'),
      emptyLabel: any,
      options: times,
    },
    {
      kind: 'select',
      name: 'record',
      id: 'search-record',
      md: 3,
      label: t('form.record'),
      emptyLabel: any,
      options: yesNo,
    },
    {
      kind: 'select',
      name: 'withMark',
      id: 'search-with-mark',
      md: 3,
      label: t('form.withMark'),
      emptyLabel: any,
      options: yesNo,
    },
    {
      kind: 'select',
      name: 'cheatingLevelFrom',
      id: 'search-cheating-from',
      md: 3,
      label: t('form.cheatingLevelFrom'),
      emptyLabel: any,
      options: cheatingLevels,
    },
    {
      kind: 'select',
      name: 'cheatingLevelTo',
      id: 'search-cheating-to',
      md: 3,
      label: t('form.cheatingLevelTo'),
      emptyLabel: any,
      options: cheatingLevels,
    },
    { kind: 'text', name: 'score', id: 'search-score', md: 3, inputMode: 'numeric', label: t('form.score') },
    {
      kind: 'select',
      name: 'aiAnalysisFlag',
      id: 'search-ai-flag',
      md: 3,
      label: t('form.aiAnalysisFlag'),
      emptyLabel: any,
      options: aiFlags,
    },
    {
      kind: 'select',
      name: 'aiAnalysisBatchFlag',
      id: 'search-ai-batch-flag',
      md: 3,
      label: t('form.aiAnalysisBatchFlag'),
      emptyLabel: any,
      options: aiFlags,
    },
    {
      kind: 'text',
      name: 'aiNamematch',
      id: 'search-ai-namematch',
      md: 3,
      inputMode: 'numeric',
      label: t('form.aiNamematch'),
    },
    {
      kind: 'select',
      name: 'markId',
      id: 'search-mark',
      md: 3,
      label: t('form.markId'),
      emptyLabel: any,
      options: (conditions?.marks ?? []).map((m) => ({ value: m.id, label: m.message })),
    },
  ];

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
      <FieldGrid columns={columns} values={form} errors={fieldErrors} onEdit={edit} />
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
