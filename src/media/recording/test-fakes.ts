/**
 * Test doubles for the recording tests: a scriptable MediaRecorder and a MediaStream (jsdom has neither).
 * Not used by the app.
 */
import type { RecorderEnvironment } from './recorder';

/** A track with just a kind. */
export interface FakeTrack {
  kind: 'audio' | 'video';
  id: string;
}

/** A MediaStream over fake tracks. */
export class FakeMediaStream {
  readonly tracks: FakeTrack[];
  constructor(tracks: FakeTrack[] = []) {
    this.tracks = [...tracks];
  }
  getTracks(): FakeTrack[] {
    return [...this.tracks];
  }
  getVideoTracks(): FakeTrack[] {
    return this.tracks.filter((t) => t.kind === 'video');
  }
  getAudioTracks(): FakeTrack[] {
    return this.tracks.filter((t) => t.kind === 'audio');
  }
}

/** How the next fake recorder misbehaves. */
export interface FakeRecorderFaults {
  throwOnConstruct?: boolean;
  throwOnStart?: boolean;
  /** Never fire `start`. */
  silentStart?: boolean;
  /** Fire `error` instead of `start`. */
  errorOnStart?: boolean;
  /** The MIME type the recorder reports (default: the requested one). */
  reportedMimeType?: string;
}

/** A MediaRecorder the test drives: `emit(bytes)` delivers a chunk, `crash()` stops it by itself. */
export class FakeMediaRecorder extends EventTarget {
  static instances: FakeMediaRecorder[] = [];
  static nextFaults: FakeRecorderFaults = {};
  static isTypeSupported(): boolean {
    return true;
  }

  state: 'inactive' | 'recording' | 'paused' = 'inactive';
  readonly mimeType: string;
  timeslice: number | undefined;
  requestDataCalls = 0;
  /** Bytes delivered with the final `dataavailable` on `stop()`. */
  finalChunk: Uint8Array | null = null;
  private readonly faults: FakeRecorderFaults;

  constructor(
    readonly stream: FakeMediaStream,
    readonly options: MediaRecorderOptions = {},
  ) {
    super();
    this.faults = FakeMediaRecorder.nextFaults;
    FakeMediaRecorder.nextFaults = {};
    if (this.faults.throwOnConstruct) throw new DOMException('unsupported', 'NotSupportedError');
    this.mimeType = this.faults.reportedMimeType ?? options.mimeType ?? 'video/webm;codecs=vp8,opus';
    FakeMediaRecorder.instances.push(this);
  }

  start(timeslice?: number): void {
    if (this.faults.throwOnStart) throw new DOMException('bad state', 'InvalidStateError');
    this.timeslice = timeslice;
    this.state = 'recording';
    queueMicrotask(() => {
      if (this.faults.errorOnStart) this.dispatchEvent(new Event('error'));
      else if (!this.faults.silentStart) this.dispatchEvent(new Event('start'));
    });
  }

  requestData(): void {
    this.requestDataCalls += 1;
  }

  /** Delivers a chunk as a `dataavailable` event with a Blob-like payload. */
  emit(bytes: Uint8Array): void {
    const copy = new Uint8Array(bytes);
    const event = new Event('dataavailable') as Event & { data: unknown };
    event.data = { size: copy.byteLength, arrayBuffer: () => Promise.resolve(copy.buffer.slice(0)) };
    this.dispatchEvent(event);
  }

  stop(): void {
    if (this.state === 'inactive') return;
    this.state = 'inactive';
    queueMicrotask(() => {
      if (this.finalChunk) this.emit(this.finalChunk);
      this.dispatchEvent(new Event('stop'));
    });
  }

  /** Stops by itself, as when the camera is unplugged. */
  crash(): void {
    this.state = 'inactive';
    this.dispatchEvent(new Event('error'));
    this.dispatchEvent(new Event('stop'));
  }
}

/** The environment to pass to `createRecorder` / the session. */
export function fakeEnvironment(): RecorderEnvironment {
  return {
    MediaRecorder: FakeMediaRecorder as unknown as typeof MediaRecorder,
    MediaStream: FakeMediaStream as unknown as typeof MediaStream,
  };
}

/** A stream with one video and one audio track. */
export function fakeCameraStream(): MediaStream {
  return new FakeMediaStream([
    { kind: 'video', id: 'v1' },
    { kind: 'audio', id: 'a1' },
  ]) as unknown as MediaStream;
}
