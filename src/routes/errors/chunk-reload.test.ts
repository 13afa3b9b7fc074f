import { CHUNK_RELOAD_KEY, claimChunkReload, isChunkLoadError } from './chunk-reload';

describe('chunk reload guard', () => {
  it("recognises the browsers' dynamic-import failures", () => {
    expect(isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: /assets/x.js'))).toBe(
      true,
    );
    expect(isChunkLoadError(new TypeError('Importing a module script failed.'))).toBe(true);
    expect(isChunkLoadError(new Error('error loading dynamically imported module'))).toBe(true);
    expect(isChunkLoadError(new Error('boom'))).toBe(false);
    expect(isChunkLoadError('Failed to fetch dynamically imported module')).toBe(false);
  });

  it('allows one reload, then none for 60 s', () => {
    const t0 = 1_000_000;
    expect(claimChunkReload(t0)).toBe(true);
    expect(sessionStorage.getItem(CHUNK_RELOAD_KEY)).toBe(String(t0));
    expect(claimChunkReload(t0 + 1_000)).toBe(false);
    expect(claimChunkReload(t0 + 59_999)).toBe(false);
    expect(claimChunkReload(t0 + 60_000)).toBe(true);
  });
});
