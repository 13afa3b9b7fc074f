import type { RoomScan as WireRoomScan, WiderViewState as WireState } from '@contract/wider-view';
import type { DisplaySurface } from '@contract/constants/wider-view';
import { camelize, type Camelize } from '../lib/case';
import { call } from './client';

/**
 * The wider view's calls (README "The wider view"): the examinee reports its screen share and its room scans and
 * reads where they stand; the checker asks for a room scan.
 */

/** Where the sitting's screen share and room scans stand (camelCase). */
export type WiderViewState = Camelize<WireState>;
/** One room scan. */
export type RoomScan = Camelize<WireRoomScan>;

/** GET tester/wider_view: the sitting's wider view as the server knows it (after a reload, a new login). */
export async function getWiderViewState(): Promise<WiderViewState> {
  return camelize(await call<WireState>('tester/wider_view', { method: 'GET' }));
}

/** POST tester/screen_share: the entire screen is shared (with the track's surface) or the share ended. */
export async function reportScreenShare(
  state: 'shared' | 'ended',
  surface?: DisplaySurface,
  reloaded = false,
): Promise<WiderViewState> {
  const data: Record<string, unknown> = { state };
  if (surface) data.surface = surface;
  if (reloaded) data.reloaded = true;
  return camelize(await call<WireState>('tester/screen_share', { data }));
}

/** POST tester/room_scan action start: begins the scan a checker asked for, or a new one. */
export async function startRoomScan(attempt: string): Promise<RoomScan> {
  return camelize(await call<WireRoomScan>('tester/room_scan', { data: { action: 'start', attempt } }));
}

/** POST tester/room_scan action done: the scan under way is complete, with its recording when one was made. */
export async function completeRoomScan(scanId: number, recordId: number | null): Promise<RoomScan> {
  return camelize(
    await call<WireRoomScan>('tester/room_scan', {
      data: { action: 'done', scan_id: scanId, record_id: recordId },
    }),
  );
}

/** POST tester/room_scan_request (the matched checker): asks the examinee for a room scan now. */
export async function requestRoomScan(testerId: number): Promise<RoomScan> {
  return camelize(await call<WireRoomScan>('tester/room_scan_request', { data: { tester_id: testerId } }));
}
