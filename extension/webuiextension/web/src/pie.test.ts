import { describe, expect, it } from 'vitest';
import { arcPath, otherColor, pieSlices, shareText } from './pie';
import { palette } from './palette';

const full = 2 * Math.PI;

describe('pieSlices', () => {
  it('orders groups largest first with their shares and angles', () => {
    const p = pieSlices([{ name: 'b', value: 1 }, { name: 'a', value: 3 }]);
    expect(p.total).toBe(4);
    expect(p.left).toEqual([]);
    expect(p.slices.map((s) => [s.name, s.value, s.share, s.folded])).toEqual([['a', 3, 0.75, 0], ['b', 1, 0.25, 0]]);
    expect(p.slices[0].start).toBe(0);
    expect(p.slices[0].end).toBeCloseTo(1.5 * Math.PI);
    expect(p.slices[1].start).toBeCloseTo(1.5 * Math.PI);
    expect(p.slices[1].end).toBe(full);
    expect(p.slices.map((s) => s.color)).toEqual([palette[0], palette[1]]);
  });

  it('draws one group as the whole circle', () => {
    const p = pieSlices([{ name: 'only', value: 7 }]);
    expect(p.slices).toHaveLength(1);
    expect(p.slices[0]).toMatchObject({ share: 1, start: 0, end: full });
  });

  it('has no slice for no group', () => {
    expect(pieSlices([])).toEqual({ slices: [], total: 0, left: [] });
  });

  it('leaves out groups at or below zero and without a value', () => {
    const p = pieSlices([{ name: 'up', value: 2 }, { name: 'zero', value: 0 }, { name: 'down', value: -5 }, { name: 'none', value: null }, { name: 'nan', value: NaN }]);
    expect(p.slices.map((s) => s.name)).toEqual(['up']);
    expect(p.slices[0].share).toBe(1);
    expect(p.left.map((g) => g.name)).toEqual(['zero', 'down', 'none', 'nan']);
  });

  it('folds the smallest groups past the maximum into Other', () => {
    const groups = Array.from({ length: 14 }, (_, i) => ({ name: `g${i}`, value: i + 1 }));
    const p = pieSlices(groups, 10);
    expect(p.slices).toHaveLength(10);
    expect(p.slices.slice(0, 9).map((s) => s.name)).toEqual(['g13', 'g12', 'g11', 'g10', 'g9', 'g8', 'g7', 'g6', 'g5']);
    const other = p.slices[9];
    // g0..g4: 1+2+3+4+5
    expect(other).toMatchObject({ name: 'Other', value: 15, folded: 5, color: otherColor });
    expect(p.total).toBe(105);
    expect(other.share).toBeCloseTo(15 / 105);
    expect(p.slices.reduce((a, s) => a + s.share, 0)).toBeCloseTo(1);
    expect(other.end).toBe(full);
    // Each slice starts where the one before ends.
    p.slices.slice(1).forEach((s, i) => expect(s.start).toBe(p.slices[i].end));
  });

  it('does not fold exactly the maximum', () => {
    const p = pieSlices(Array.from({ length: 10 }, (_, i) => ({ name: `g${i}`, value: 1 })), 10);
    expect(p.slices.map((s) => s.folded)).toEqual(Array(10).fill(0));
    // Equal values keep the names' order.
    expect(p.slices[0].name).toBe('g0');
    expect(p.slices[0].share).toBeCloseTo(0.1);
  });
});

describe('shareText', () => {
  it('writes a percentage, one decimal when small', () => {
    expect(shareText(0.75)).toBe('75%');
    expect(shareText(0.0512)).toBe('5.1%');
    expect(shareText(1)).toBe('100%');
  });
});

describe('arcPath', () => {
  it('draws a wedge from the centre', () => {
    expect(arcPath(1, 0, 0, Math.PI / 2)).toBe('M 0 -1 A 1 1 0 0 1 1 0 L 0 0 Z');
  });
  it('marks an arc past a half circle as large', () => {
    expect(arcPath(1, 0, 0, 1.5 * Math.PI)).toBe('M 0 -1 A 1 1 0 1 1 -1 0 L 0 0 Z');
  });
  it('draws a ring slice between two radii', () => {
    expect(arcPath(1, 0.5, 0, Math.PI / 2)).toBe('M 0 -1 A 1 1 0 0 1 1 0 L 0.5 0 A 0.5 0.5 0 0 0 0 -0.5 Z');
  });
  it('draws a whole ring as two halves', () => {
    const d = arcPath(1, 0.5, 0, full);
    expect(d.match(/M /g)).toHaveLength(2);
    expect(d).toContain('M 0 -1 A 1 1 0 0 1 0 1');
  });
});
