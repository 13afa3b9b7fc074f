import { useCallback, type ComponentType } from 'react';
import type { FeatureDef, JapaneseTexts } from '../../app/features';
import examiningJa from '../../i18n/locales/ja/examining.json';
import { testerFeature } from '../../features/tester/tester-feature';
import { identificationFeature } from '../../features/identification/identification-feature';
import { liveFeature } from '../../features/live/live-feature';
import { phonePairingFeature } from '../../features/phone-pairing/phone-pairing-feature';
import { ExaminingView } from '../../features/tester/components/examining-view';
import { CameraPreview } from '../../features/tester/components/camera-preview';
import { useAppSelector, useAppStore } from '../../app/hooks';
import { registerFeatures } from '../../app/store';
import { selectTester } from '../../features/tester/tester-slice';
import {
  selectRoomScanOpen,
  selectScreenShareHeld,
  selectWiderView,
} from '../../features/wider-view/wider-view-selectors';
import { selectPhonePairing } from '../../features/phone-pairing/phone-pairing-slice';
import { deferredPart, withTexts } from '../../components/ui/deferred-part';

let machinery: Promise<readonly FeatureDef[]> | null = null;
/** The exam's machinery (examining-machinery.ts); a load that failed is tried again by the next call. */
const loadMachinery = () =>
  (machinery ??= import('./examining-machinery').then(
    (m) => m.features,
    (e: unknown) => {
      machinery = null;
      throw e;
    },
  ));
// Fetched from the moment this module runs: the first render does not wait for it, the sitting's opening does.
loadMachinery().catch(() => undefined);

const widerViewTexts = () =>
  import('../../i18n/locales/ja/widerView.json').then((m) => ({ widerView: m.default }));

// What the exam page shows only once the sitting asks for it (the server's answers after the first render: the
// wider view's steps, the phone camera, a recording under way) and the wider view's dialogs: their code and
// texts load right after the first render.
/** A part of the wider view, with the wider view's texts. */
const widerViewPart = <P extends object>(load: () => Promise<ComponentType<P>>) =>
  deferredPart(() => withTexts(load(), widerViewTexts())).Part;
const WiderViewSteps = widerViewPart(() =>
  import('../../features/wider-view/components/wider-view-steps').then((m) => m.WiderViewSteps),
);
const RoomScanDialog = widerViewPart(() =>
  import('../../features/wider-view/components/room-scan-dialog').then((m) => m.RoomScanDialog),
);
const ScreenShareBlock = widerViewPart(() =>
  import('../../features/wider-view/components/screen-share-block').then((m) => m.ScreenShareBlock),
);
const PhonePairingPanel = deferredPart(() =>
  withTexts(
    import('../../features/phone-pairing/components/phone-pairing-panel').then((m) => m.PhonePairingPanel),
    import('../../i18n/locales/ja/phone/panel.json').then((m) => ({ 'phone/panel': m.default })),
  ),
).Part;
const RecordingStatus = deferredPart(() =>
  withTexts(
    import('../../features/recording/components/recording-status').then((m) => m.RecordingStatus),
    import('../../i18n/locales/ja/recording.json').then((m) => ({ recording: m.default })),
  ),
).Part;

/**
 * /examining (spec §2): composes the features' views (the exam, the wider view's steps and dialogs, the phone
 * camera, the recording state); the page holds no logic.
 */
export default function ExaminingPage() {
  const store = useAppStore();
  const machineryReady = useCallback(
    () => loadMachinery().then((defs) => registerFeatures(store, defs)),
    [store],
  );
  const beforeExam = useAppSelector((s) => !selectTester(s).loggedInToTestSystem);
  const widerViewAsked = useAppSelector((s) => {
    const { required } = selectWiderView(s);
    return required.screen || required.roomScan;
  });
  const phoneAsked = useAppSelector((s) => {
    const p = selectPhonePairing(s);
    return p.enabled && p.state !== null;
  });
  // No recording before the machinery is registered (s.recording absent).
  const recordingShown = useAppSelector((s) => {
    const r = s.recording;
    return (
      !!r && (r.phase !== 'idle' || r.backlog.partsTotal > r.backlog.partsDone || r.backlog.bytesPending > 0)
    );
  });
  const roomScanOpen = useAppSelector(selectRoomScanOpen);
  const screenShareHeld = useAppSelector((s) => selectScreenShareHeld(s, selectTester(s).examPhase));
  return (
    <>
      <ExaminingView
        ready={machineryReady}
        phonePanel={<PhonePairingPanel needed={phoneAsked} />}
        steps={<WiderViewSteps needed={widerViewAsked} beforeExam={beforeExam} />}
      />
      <RecordingStatus needed={recordingShown} />
      <RoomScanDialog needed={roomScanOpen} Camera={CameraPreview} />
      <ScreenShareBlock needed={screenShareHeld} />
    </>
  );
}

/**
 * Everything of the examinee runs here: every examinee feature registers, and the exam's own effects. These
 * before the first render; the exam's effects, the recording and the wider view with the exam's machinery
 * (examining-machinery.ts), before the sitting is opened.
 */
export const features: readonly FeatureDef[] = [
  testerFeature,
  identificationFeature,
  liveFeature,
  phonePairingFeature,
];

export const texts: JapaneseTexts = { examining: examiningJa };
