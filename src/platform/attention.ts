/**
 * Getting the examinee's attention when the proctoring window is behind the exam window: a short sound, and a
 * count in the window title (the title shows in the task bar and on the tab even when the window is covered).
 *
 * Browsers let a page play sound only after the person interacted with it, so the sound is unlocked on a click
 * (logging in to the exam system, using the chat); before that only the title changes.
 */

type AudioContextCtor = new () => AudioContext;

let ctx: AudioContext | null = null;

function audioContextCtor(): AudioContextCtor | null {
  const w = globalThis as unknown as {
    AudioContext?: AudioContextCtor;
    webkitAudioContext?: AudioContextCtor;
  };
  return w.AudioContext ?? w.webkitAudioContext ?? null;
}

/** Call from a click or key handler: makes the later cue audible. */
export function unlockSound(): void {
  try {
    const Ctor = audioContextCtor();
    if (!Ctor) return;
    ctx ??= new Ctor();
    if (ctx.state === 'suspended') void ctx.resume().catch(() => undefined);
  } catch {
    ctx = null;
  }
}

/** Two short tones (about half a second); false when sound is not available or not unlocked yet. */
export function playCue(): boolean {
  if (!ctx || ctx.state === 'closed') return false;
  try {
    const start = ctx.currentTime + 0.01;
    for (const [i, freq] of [880, 1175].entries()) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = 'sine';
      osc.frequency.value = freq;
      const t0 = start + i * 0.22;
      gain.gain.setValueAtTime(0.0001, t0);
      gain.gain.exponentialRampToValueAtTime(0.3, t0 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + 0.18);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t0);
      osc.stop(t0 + 0.2);
    }
    return true;
  } catch {
    return false;
  }
}

/** Whether the person is looking at this window now (focused and visible). */
export function windowHasAttention(): boolean {
  if (typeof document === 'undefined') return true;
  return document.visibilityState === 'visible' && document.hasFocus();
}

const BADGE = /^\(\d+\)\s/;

/** Puts "(n) " before the window title (n > 0), or takes it away (n = 0). */
export function setTitleCount(n: number): void {
  if (typeof document === 'undefined') return;
  const base = document.title.replace(BADGE, '');
  const next = n > 0 ? `(${n}) ${base}` : base;
  if (document.title !== next) document.title = next;
}

/**
 * Calls `fn` whenever the person comes back to this window (it becomes visible and focused); returns the
 * unsubscribe.
 */
export function onAttention(fn: () => void): () => void {
  if (typeof window === 'undefined') return () => undefined;
  const check = () => {
    if (windowHasAttention()) fn();
  };
  window.addEventListener('focus', check);
  document.addEventListener('visibilitychange', check);
  return () => {
    window.removeEventListener('focus', check);
    document.removeEventListener('visibilitychange', check);
  };
}

const SOUND_KEY = 'proctor.monitoring.alertSound';

/** The checker's alert-sound choice, kept across reloads (on unless it was switched off). */
export function readAlertSoundPreference(storage: Storage | null = safeLocalStorage()): boolean {
  return storage?.getItem(SOUND_KEY) !== 'off';
}

export function writeAlertSoundPreference(on: boolean, storage: Storage | null = safeLocalStorage()): void {
  try {
    storage?.setItem(SOUND_KEY, on ? 'on' : 'off');
  } catch {
    // Storage full or refused: the choice lasts until the page reloads.
  }
}

function safeLocalStorage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}
