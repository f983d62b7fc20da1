import { describe, expect, test, vi } from 'vitest';
import { fmtDuration, fromLocalInput, presets, rangeLabel, resolveRange, toLocalInput } from './time';

describe('time', () => {
  test('an absolute range in the URL wins over the preset', () => {
    expect(resolveRange(new URLSearchParams('from=1000&to=2000'))).toEqual({ from: 1000, to: 2000 });
  });
  test('a relative range ends now; an unknown one falls back to 15 minutes', () => {
    vi.useFakeTimers({ now: 10_000_000 });
    try {
      expect(resolveRange(new URLSearchParams('range=1h'))).toEqual({ relative: '1h', from: 10_000_000 - 3600e3, to: 10_000_000 });
      expect(resolveRange(new URLSearchParams('range=nope')).relative).toBe('15m');
      expect(resolveRange(new URLSearchParams('from=2000&to=1000')).relative).toBe('15m');
    } finally {
      vi.useRealTimers();
    }
  });
  test('labels', () => {
    expect(rangeLabel({ relative: '24h', from: 0, to: 0 })).toBe(presets.find((p) => p.value === '24h')!.label);
  });
  test('datetime-local inputs round-trip to the second', () => {
    const ms = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(fromLocalInput(toLocalInput(ms))).toBe(ms);
  });
  test('durations in ns, µs, ms and s', () => {
    expect(fmtDuration(999)).toBe('999 ns');
    expect(fmtDuration(1500)).toBe('1.5 µs');
    expect(fmtDuration(2_500_000)).toBe('2.50 ms');
    expect(fmtDuration(25_000_000)).toBe('25.0 ms');
    expect(fmtDuration(3_000_000_000)).toBe('3.00 s');
  });
});
