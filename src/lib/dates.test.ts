import { describe, expect, it } from 'vitest';
import { formatLocalDateTime } from './dates';

describe('formatLocalDateTime', () => {
  it('formats as yyyy-MM-dd HH:mm:ss with zero padding', () => {
    expect(formatLocalDateTime(new Date(2026, 0, 2, 3, 4, 5))).toBe('2026-01-02 03:04:05');
    expect(formatLocalDateTime(new Date(2026, 11, 31, 23, 59, 59))).toBe('2026-12-31 23:59:59');
  });
});
