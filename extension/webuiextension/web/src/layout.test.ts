import { describe, expect, test } from 'vitest';
import { freeSlot } from './layout';

describe('freeSlot', () => {
  test('an empty dashboard starts at the top left', () => {
    expect(freeSlot([], 12, 4)).toEqual({ x: 0, y: 0 });
  });
  test('the second half-width tile goes beside the first', () => {
    expect(freeSlot([{ x: 0, y: 0, w: 12, h: 4 }], 12, 4)).toEqual({ x: 12, y: 0 });
  });
  test('a full row sends the tile under it', () => {
    const row = [{ x: 0, y: 0, w: 12, h: 4 }, { x: 12, y: 0, w: 12, h: 4 }];
    expect(freeSlot(row, 12, 4)).toEqual({ x: 0, y: 4 });
  });
  test('a hole too small for the tile is passed over', () => {
    const tiles = [{ x: 0, y: 0, w: 16, h: 4 }, { x: 0, y: 4, w: 24, h: 2 }];
    expect(freeSlot(tiles, 12, 4)).toEqual({ x: 0, y: 6 });
    expect(freeSlot(tiles, 6, 4)).toEqual({ x: 18, y: 0 });
  });
  test('a tile beside a taller one fills the row under its neighbour', () => {
    const tiles = [{ x: 0, y: 0, w: 12, h: 8 }, { x: 12, y: 0, w: 12, h: 4 }];
    expect(freeSlot(tiles, 12, 4)).toEqual({ x: 12, y: 4 });
  });
});
