import type { FeatureDef, JapaneseTexts } from '../../app/features';
import examiningJa from '../../i18n/locales/ja/examining.json';
import recordingJa from '../../i18n/locales/ja/recording.json';
import widerViewJa from '../../i18n/locales/ja/widerView.json';
import phonePanelJa from '../../i18n/locales/ja/phone/panel.json';
import { testerFeature } from '../../features/tester/tester-feature';
import { identificationFeature } from '../../features/identification/identification-feature';
import { liveFeature } from '../../features/live/live-feature';
import { recordingFeature } from '../../features/recording/recording-feature';
import { widerViewFeature } from '../../features/wider-view/wider-view-feature';
import { phonePairingFeature } from '../../features/phone-pairing/phone-pairing-feature';
import { ExaminingView } from '../../features/tester/components/examining-view';
import { RecordingStatus } from '../../features/recording/components/recording-status';
import { CameraPreview } from '../../features/tester/components/camera-preview';
import { WiderViewSteps } from '../../features/wider-view/components/wider-view-steps';
import { PhonePairingPanel } from '../../features/phone-pairing/components/phone-pairing-panel';
import { useAppSelector } from '../../app/hooks';
import { selectTester } from '../../features/tester/tester-slice';
import { selectRoomScanOpen, selectScreenShareHeld } from '../../features/wider-view/wider-view-slice';
import { deferredPart } from '../../components/ui/deferred-part';
import { useTranslation } from 'react-i18next';

// The wider view's dialogs (react-bootstrap's Modal and its transitions) are closed when the page first shows:
// their code loads right after it.
const RoomScanDialog = deferredPart(() =>
  import('../../features/wider-view/components/room-scan-dialog').then((m) => m.RoomScanDialog),
).Part;
const ScreenShareBlock = deferredPart(() =>
  import('../../features/wider-view/components/screen-share-block').then((m) => m.ScreenShareBlock),
).Part;

/**
 * /examining (spec §2): composes the features' views (the exam, the wider view's steps and dialogs, the
 * recording state); the page holds no logic.
 */
export default function ExaminingPage() {
  const { t } = useTranslation('widerView');
  const beforeExam = useAppSelector((s) => !selectTester(s).loggedInToTestSystem);
  const roomScanOpen = useAppSelector(selectRoomScanOpen);
  const screenShareHeld = useAppSelector((s) => selectScreenShareHeld(s, selectTester(s).examPhase));
  return (
    <>
      <ExaminingView phonePanel={<PhonePairingPanel />} steps={<WiderViewSteps beforeExam={beforeExam} />} />
      <RecordingStatus />
      <RoomScanDialog needed={roomScanOpen} preview={<CameraPreview label={t('roomScan.preview')} />} />
      <ScreenShareBlock needed={screenShareHeld} />
    </>
  );
}

/** The examinee flow moves between pages, so every tester page registers all of its features. */
export const features: readonly FeatureDef[] = [
  testerFeature,
  identificationFeature,
  liveFeature,
  recordingFeature,
  widerViewFeature,
  phonePairingFeature,
];

/**
 * The exam page's own texts, and those of the views it shows only (the wider view's steps and dialogs, the phone
 * camera's pairing panel, the recording's state).
 */
export const texts: JapaneseTexts = {
  examining: examiningJa,
  recording: recordingJa,
  widerView: widerViewJa,
  'phone/panel': phonePanelJa,
};
