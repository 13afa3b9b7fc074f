import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import type { PhoneRecordingSettings } from '../../api/phone';
import type { ClientPart, RecordingCredentials as ServerCredentials } from '../../api/recording';
import { logger } from '../../lib/logger';
import type { RecordingSession, RecordingStatus } from '../../media/recording/recording-session';

/** The calls the phone's recording makes, with the phone's own session (tester/recording.php, stream phone). */
export interface PhoneRecordingApi {
  start(mimeType: string): Promise<ServerCredentials>;
  refresh(recordId: number): Promise<ServerCredentials>;
  end(recordId: number, parts: ClientPart[]): Promise<void>;
}

/** What the phone's page says about its recording. */
export type PhoneRecordingState = 'off' | 'recording' | 'uploading' | 'waitingNetwork' | 'done' | 'error';

/** Attempts at completing (DELETE) on a network error before giving up (the server completes it later). */
const END_ATTEMPTS = 10;
const END_RETRY_MS = 2000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function stateOf(s: RecordingStatus): PhoneRecordingState {
  if (s.state === 'error') return 'error';
  if (s.recording) return 'recording';
  if (s.state === 'waiting-network') return 'waitingNetwork';
  if (s.state === 'uploading') return 'uploading';
  if (s.state === 'done') return 'done';
  return 'off';
}

/**
 * The phone camera's recording: one recording per camera run (a camera switch ends it and starts the next),
 * through the same pipeline as the examinee's camera (recording-session: MediaRecorder → encrypted IndexedDB →
 * parts → S3, spec §8 retries), at the sitting's video quality level, video only. `finish` stops the recorder,
 * sends the rest and has the server complete it; a page that goes away leaves the rest on the phone and the
 * server completes the recording from the parts it holds when the sitting ends (README "How a sitting behaves").
 */
export class PhoneRecording {
  private session: RecordingSession | null = null;
  private recordId: number | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly api: PhoneRecordingApi,
    private readonly report: (state: PhoneRecordingState) => void,
  ) {}

  /** Starts recording `stream` (once; a call while one runs waits for it). */
  start(stream: MediaStream, settings: PhoneRecordingSettings): Promise<void> {
    if (this.session) return Promise.resolve();
    this.running ??= this.run(stream, settings).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(stream: MediaStream, settings: PhoneRecordingSettings): Promise<void> {
    try {
      // A failed load is a recording that did not start (below); the next camera run loads it again.
      const {
        openChunkStore,
        chooseMimeType,
        browserIsTypeSupported,
        createRecordingSession,
        fromServerCredentials,
      } = await import('./phone-recording-media');
      const { store } = await openChunkStore();
      const mimeType = chooseMimeType(settings.videoCodec, browserIsTypeSupported()) ?? 'video/webm';
      const server = await this.api.start(mimeType);
      const session = createRecordingSession({
        store,
        partSize: server.partSize,
        refreshCredentials: async () => fromServerCredentials(await this.api.refresh(server.recordId)),
        onStatus: (s) => this.report(stateOf(s)),
      });
      this.session = session;
      this.recordId = server.recordId;
      await session.start({
        stream,
        credentials: fromServerCredentials(server),
        voiceRecording: false,
        startupCodec: settings.videoCodec,
        videoLevel: settings.videoLevel,
      });
      this.report('recording');
    } catch (e) {
      logger.error('phone', `recording did not start: ${e instanceof Error ? e.message : String(e)}`);
      await this.session?.dispose().catch(() => undefined);
      this.session = null;
      this.recordId = null;
      this.report('error');
    }
  }

  /** Stops the recorder, waits until every part is sent and has the server complete the recording. */
  async finish(): Promise<void> {
    if (this.running) await this.running;
    const session = this.session;
    const recordId = this.recordId;
    this.session = null;
    this.recordId = null;
    if (!session || recordId === null) return;
    try {
      const parts = await session.stop();
      for (let attempt = 1; ; attempt++) {
        try {
          await this.api.end(recordId, parts);
          break;
        } catch (e) {
          const network = isApiError(e) && (e.status === NETWORK_ERROR_STATUS || e.status === 503);
          if (!network || attempt >= END_ATTEMPTS) throw e;
          await sleep(END_RETRY_MS);
        }
      }
      await session.complete();
      this.report('done');
    } catch (e) {
      // The parts the store holds are completed by the server when the sitting ends.
      logger.error('phone', `recording not completed: ${e instanceof Error ? e.message : String(e)}`);
      await session.dispose().catch(() => undefined);
      this.report('error');
    }
  }

  /** The page goes away: stop without completing (the data stays on the phone, the server completes later). */
  async dispose(): Promise<void> {
    const s = this.session;
    this.session = null;
    this.recordId = null;
    await s?.dispose().catch(() => undefined);
  }
}
