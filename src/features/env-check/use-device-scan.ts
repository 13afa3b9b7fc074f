import { useCallback, useEffect, useState } from 'react';
import { scanDevices, type DeviceScan } from '../../platform/device-scan';

export type DeviceScanState = { status: 'checking' } | DeviceScan;

/** Scans cameras and microphones on mount; `rescan` runs it again. */
export function useDeviceScan(): { scan: DeviceScanState; rescan: () => void } {
  const [round, setRound] = useState(0);
  const [result, setResult] = useState<{ round: number; scan: DeviceScan } | null>(null);
  useEffect(() => {
    let live = true;
    void scanDevices().then((scan) => {
      if (live) setResult({ round, scan });
    });
    return () => {
      live = false;
    };
  }, [round]);
  const rescan = useCallback(() => setRound((n) => n + 1), []);
  return { scan: result && result.round === round ? result.scan : { status: 'checking' }, rescan };
}

/** Spec §2 login page: the camera in use (the first videoinput), or that none exists. */
export type CameraInUse =
  { status: 'checking' | 'none' | 'unsupported' } | { status: 'found'; label: string };

export function cameraInUse(scan: DeviceScanState): CameraInUse {
  if (scan.status === 'checking') return { status: 'checking' };
  if (scan.status !== 'done') return { status: 'unsupported' };
  const cam = scan.devices.find((d) => d.kind === 'videoinput');
  return cam ? { status: 'found', label: cam.label } : { status: 'none' };
}
