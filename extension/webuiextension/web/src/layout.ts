// Where the dashboard grid (24 columns, rows of one cell) has room.

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

// freeSlot is the first place, reading the grid left to right and top to
// bottom, where a w×h tile overlaps no other: a new tile goes beside the
// last one when that row has room, rather than always under everything,
// which left the right half of a new dashboard empty. Places are tried
// every quarter of the grid so tiles line up with those already there.
export function freeSlot(tiles: Box[], w: number, h: number): { x: number; y: number } {
  w = Math.min(24, Math.max(1, w));
  const bottom = tiles.reduce((m, t) => Math.max(m, t.y + t.h), 0);
  const free = (x: number, y: number) => tiles.every((t) => x + w <= t.x || t.x + t.w <= x || y + h <= t.y || t.y + t.h <= y);
  for (let y = 0; y < bottom; y++) {
    for (let x = 0; x + w <= 24; x += 6) {
      if (free(x, y)) return { x, y };
    }
  }
  return { x: 0, y: bottom };
}
