import { describe, expect, test } from 'vitest';
import { fmtValue, numberFormat, unitOf, units } from './units';

describe('units', () => {
  test('every unit survives HyperDX numberFormat and back', () => {
    for (const { value } of units) expect(unitOf(numberFormat(value))).toBe(value);
  });
  test('unknown or missing formats read as no unit', () => {
    expect(unitOf(undefined)).toBe('');
    expect(unitOf({ output: 'currency' })).toBe('');
    expect(unitOf({ output: 'time', factor: 60 })).toBe('s');
  });
  test('values are scaled to a readable size', () => {
    expect(fmtValue(1_500_000, 'ns')).toBe('1.5 ms');
    expect(fmtValue(0, 'ms')).toBe('0 s');
    expect(fmtValue(90, 's')).toBe('90 s');
    expect(fmtValue(3 * 1024 * 1024, 'bytes')).toBe('3 MB');
    expect(fmtValue(12.345, 'percent')).toBe('12.3%');
    expect(fmtValue(null)).toBe('–');
    expect(fmtValue(Number.NaN, 'count')).toBe('–');
    expect(fmtValue(0.12345)).toBe('0.123');
  });
});
