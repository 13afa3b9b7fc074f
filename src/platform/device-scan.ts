/** A camera or microphone as enumerateDevices reports it (labels are empty until the user allows access). */
export interface DeviceSummary {
  kind: 'videoinput' | 'audioinput';
  label: string;
}

export type DeviceScan =
  { status: 'unsupported' } | { status: 'failed' } | { status: 'done'; devices: DeviceSummary[] };

/**
 * Lists cameras and microphones without asking for permission (navigator.mediaDevices.enumerateDevices).
 * It lives in platform/, not media/, because the login page uses it and must not load media code.
 */
export async function scanDevices(): Promise<DeviceScan> {
  const md = typeof navigator !== 'undefined' ? navigator.mediaDevices : undefined;
  if (!md || typeof md.enumerateDevices !== 'function') return { status: 'unsupported' };
  try {
    const list = await md.enumerateDevices();
    const devices = list
      .filter((d) => d.kind === 'videoinput' || d.kind === 'audioinput')
      .map((d) => ({ kind: d.kind as DeviceSummary['kind'], label: d.label }));
    return { status: 'done', devices };
  } catch {
    return { status: 'failed' };
  }
}
