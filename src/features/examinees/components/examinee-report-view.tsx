import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { AlertBox } from '../../../components/ui/alert-box';
import Button from 'react-bootstrap/Button';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { ExamineeReport } from '../../../components/report/examinee-report';
import { useText } from '../../../components/ui/use-text';
import { selectActor } from '../../session/session-slice';
import { selectExamineeDetail } from '../examinees-slice';
import { detailOpened, reportPrintRequested } from '../examinee-detail-thunks';
import { ACTOR } from '@contract/constants/common';

/**
 * The print-ready report of one sitting (spec §2 detail, as a document a person can hand on): the report
 * itself, and above it, on screen only, a print button and the way back to the detail.
 */
export function ExamineeReportView({ testId, detailHref }: { testId: number; detailHref: string }) {
  const { t } = useTranslation('examinees');
  const text = useText();
  const dispatch = useAppDispatch();
  const detail = useAppSelector(selectExamineeDetail);
  const actor = useAppSelector(selectActor);
  const [generatedAt] = useState(() => Date.now());
  useEffect(() => {
    void dispatch(detailOpened(testId, { withRecordings: false }));
  }, [dispatch, testId]);
  const bar = (
    <nav className="d-flex gap-2 mb-3 report-screen-only" aria-label={t('report.actions')}>
      <Link to={detailHref} className="btn btn-outline-secondary btn-sm">
        {t('report.backToDetail')}
      </Link>
      <Button
        size="sm"
        variant="primary"
        disabled={detail.status !== 'succeeded'}
        onClick={() => void dispatch(reportPrintRequested())}
      >
        {t('report.print')}
      </Button>
    </nav>
  );
  if (detail.status === 'failed') {
    return (
      <>
        {bar}
        <AlertBox variant="danger" role="alert">
          <p className="mb-0 fw-bold">{text(detail.failure?.messageKey ?? 'examinees:detail.loadFailed')}</p>
          {detail.failure?.detailKey && <p className="mb-0">{text(detail.failure.detailKey)}</p>}
          {detail.failure?.messageText && <p className="mb-0">{detail.failure.messageText}</p>}
        </AlertBox>
      </>
    );
  }
  const d = detail.data;
  if (!d || detail.testId !== testId) return <p role="status">{t('detail.loading')}</p>;
  // spec §6: pass/fail is the managers'; a checker's report leaves the decision out.
  const decision =
    actor === ACTOR.checker ? null : detail.pass === 1 || detail.pass === 0 ? detail.pass : 'undecided';
  return (
    <>
      {bar}
      <ExamineeReport data={d} decision={decision} generatedAt={generatedAt} />
    </>
  );
}
