import { palette } from './palette';

// A pie tile's maths, apart from its drawing: which groups become slices,
// each one's share and angles, and the arc that draws it.

export interface PieGroup {
  name: string;
  value: number | null;
}

export interface Slice {
  name: string;
  value: number;
  // share of the drawn total, 0..1
  share: number;
  // radians clockwise from twelve o'clock
  start: number;
  end: number;
  color: string;
  // how many groups an "Other" slice holds (0 for a group's own slice)
  folded: number;
}

export interface Pie {
  slices: Slice[];
  total: number;
  // groups at or below zero (or without a value): a pie cannot draw them,
  // so they are left out and named apart.
  left: PieGroup[];
}

// Other's grey is outside the palette: it is the rest, not one more group.
export const otherColor = '#b8bec9';

// pieSlices turns a tile's groups into slices, the largest first; past
// max slices the smallest groups fold into one "Other" slice, so a pie
// of a thousand hosts still reads.
export function pieSlices(groups: PieGroup[], max = 10): Pie {
  const drawn: { name: string; value: number }[] = [];
  const left: PieGroup[] = [];
  for (const g of groups) {
    if (g.value !== null && Number.isFinite(g.value) && g.value > 0) drawn.push({ name: g.name, value: g.value });
    else left.push(g);
  }
  // Ties keep a stable order (by name) so a refresh does not swap colours.
  drawn.sort((a, b) => b.value - a.value || a.name.localeCompare(b.name));
  let parts: { name: string; value: number; folded: number }[] = drawn.map((d) => ({ ...d, folded: 0 }));
  if (drawn.length > max) {
    const kept = drawn.slice(0, max - 1);
    const rest = drawn.slice(max - 1);
    parts = [...kept.map((d) => ({ ...d, folded: 0 })), { name: 'Other', value: rest.reduce((a, d) => a + d.value, 0), folded: rest.length }];
  }
  const total = parts.reduce((a, p) => a + p.value, 0);
  let at = 0;
  const slices = parts.map((p, i) => {
    const share = p.value / total;
    const start = at;
    // The last slice closes the circle exactly, whatever rounding left.
    at = i === parts.length - 1 ? 2 * Math.PI : at + share * 2 * Math.PI;
    return { ...p, share, start, end: at, color: p.folded ? otherColor : palette[i % palette.length] };
  });
  return { slices, total, left };
}

// shareText writes a share as a percentage, one decimal under 10%.
export function shareText(share: number): string {
  const pct = share * 100;
  return pct < 10 ? `${Math.round(pct * 10) / 10}%` : `${Math.round(pct)}%`;
}

const point = (r: number, a: number) => `${round(r * Math.sin(a))} ${round(-r * Math.cos(a))}`;
const round = (v: number) => Math.round(v * 10000) / 10000;

// arcPath is the SVG path of a ring's slice around (0, 0), outer radius r,
// inner radius r0 (0 for a pie's wedge), between two angles. A whole ring
// is drawn as two halves: one SVG arc cannot start and end at one point.
export function arcPath(r: number, r0: number, start: number, end: number): string {
  if (end - start >= 2 * Math.PI - 1e-9) {
    const mid = start + Math.PI;
    return `${arcPath(r, r0, start, mid)} ${arcPath(r, r0, mid, start + 2 * Math.PI)}`;
  }
  const large = end - start > Math.PI ? 1 : 0;
  const outer = `M ${point(r, start)} A ${r} ${r} 0 ${large} 1 ${point(r, end)}`;
  if (r0 <= 0) return `${outer} L 0 0 Z`;
  return `${outer} L ${point(r0, end)} A ${r0} ${r0} 0 ${large} 0 ${point(r0, start)} Z`;
}
