import { useEffect, useState, type ComponentType } from 'react';
import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { MODAL_IDS } from '../../../components/modals/modal-ids';
import { useText } from '../../../components/ui/use-text';
import { ROOM_SCAN_MIN_SECONDS, ROOM_SCAN_STEPS, scanProgress } from '../room-scan-steps';
import { selectRoomScanOpen, selectWiderView } from '../wider-view-slice';
import { roomScanStartRequested, roomScanStopRequested } from '../wider-view-thunks';

const mmss = (s: number) =>
  `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;

/** Seconds since `since` (epoch ms), ticking twice a second while `on`. */
function useElapsed(since: number | null, on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [on]);
  return since === null ? 0 : Math.max(0, now - since);
}

/**
 * The guided room scan (README "The wider view"): the instructions (turn through 360°, the desk, under the
 * desk), the examinee's own camera, a countdown over the steps with the current one marked, and a button to
 * end it once the room has been shown. It cannot be dismissed: the scan is part of the exam. Opened for the
 * scan before the exam and, at once, when the checker asks for one. `Camera`: the examinee's camera preview,
 * composed by the route.
 */
export function RoomScanDialog({ Camera }: { Camera?: ComponentType<{ label: string }> }) {
  const { t } = useTranslation('widerView');
  const text = useText();
  const dispatch = useAppDispatch();
  const scan = useAppSelector(selectWiderView).roomScan;
  const open = useAppSelector(selectRoomScanOpen);
  const scanning = scan.phase === 'scanning';
  const elapsed = useElapsed(scan.startedAt, scanning);
  const progress = scanProgress(scanning ? elapsed : 0);
  const titleId = `${MODAL_IDS.roomScan}-title`;
  const canStop = scanning && elapsed >= ROOM_SCAN_MIN_SECONDS * 1000;
  const busy = scan.phase === 'starting' || (scan.phase === 'finishing' && !scan.errorKey);

  return (
    <Modal
      id={MODAL_IDS.roomScan}
      show={open}
      backdrop="static"
      keyboard={false}
      centered
      size="lg"
      aria-labelledby={titleId}
      data-testid="room-scan-dialog"
    >
      <Modal.Header>
        <Modal.Title id={titleId} as="h2" className="h5">
          {t('roomScan.dialogTitle')}
        </Modal.Title>
      </Modal.Header>
      <Modal.Body>
        {scan.requestedByChecker && (
          <p className="alert alert-warning" data-testid="room-scan-requested">
            {t('roomScan.requested')}
          </p>
        )}
        <div className="row g-3">
          <div className="col-md-6">{Camera && <Camera label={t('roomScan.preview')} />}</div>
          <div className="col-md-6">
            <ol className="ps-3" data-testid="room-scan-steps">
              {ROOM_SCAN_STEPS.map((s, i) => {
                const current = scanning && i === progress.step;
                return (
                  <li
                    key={s.id}
                    aria-current={current ? 'step' : undefined}
                    className={
                      current ? 'fw-bold' : scanning && i < progress.step ? 'text-body-secondary' : ''
                    }
                  >
                    {t(`roomScan.steps.${s.id}`)}
                  </li>
                );
              })}
            </ol>
            {scanning && (
              <>
                {/* Read out when the step changes, not every second. */}
                <p className="visually-hidden" aria-live="polite" data-testid="room-scan-current">
                  {t('roomScan.stepLabel', { n: progress.step + 1, total: ROOM_SCAN_STEPS.length })}:{' '}
                  {t(`roomScan.steps.${ROOM_SCAN_STEPS[progress.step]!.id}`)}
                </p>
                <p className="fs-4 mb-1" role="timer" aria-live="off" data-testid="room-scan-countdown">
                  {t('roomScan.timeLeft', { time: mmss(progress.totalLeft) })}
                </p>
                <p className="small text-body-secondary" id="room-scan-stop-hint">
                  {t('roomScan.stopHint')}
                </p>
              </>
            )}
            <div role="alert">
              {scan.errorKey && (
                <p className="text-danger" data-testid="room-scan-error">
                  {text(scan.errorKey)}
                </p>
              )}
            </div>
          </div>
        </div>
      </Modal.Body>
      <Modal.Footer>
        {(scan.phase === 'instructions' || scan.phase === 'starting') && (
          <Button
            onClick={() => void dispatch(roomScanStartRequested())}
            disabled={busy}
            data-testid="room-scan-begin"
          >
            {scan.phase === 'starting' ? t('roomScan.starting') : t('roomScan.begin')}
          </Button>
        )}
        {scanning && (
          <Button
            variant="danger"
            onClick={() => void dispatch(roomScanStopRequested())}
            disabled={!canStop}
            aria-describedby="room-scan-stop-hint"
            data-testid="room-scan-stop"
          >
            {t('roomScan.stop')}
          </Button>
        )}
        {scan.phase === 'finishing' && (
          <Button
            onClick={() => void dispatch(roomScanStopRequested())}
            disabled={busy}
            data-testid="room-scan-retry"
          >
            {busy ? t('roomScan.finishing') : t('roomScan.retry')}
          </Button>
        )}
      </Modal.Footer>
    </Modal>
  );
}
