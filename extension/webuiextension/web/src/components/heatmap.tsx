import { useEffect, useRef, useState } from 'preact/hooks';
import { fmtValue, Unit } from '../units';
import { timeLabel } from './chart';

// Cells are POST /api/v2/charts/heatmap's answer: each time bucket's
// start, the value buckets' edges (lowest first) and counts[t][r].
export interface Cells { times: number[]; bounds: number[]; counts: number[][] }

const left = 64, bottom = 20, top = 10, right = 12;

// shade is a cell's colour: the share of the busiest cell's count, on a
// log scale so a few slow events still show beside many fast ones.
export function shade(n: number, max: number): string {
  if (n <= 0 || max <= 0) return '';
  const t = Math.log1p(n) / Math.log1p(max);
  const light = Math.round(92 - t * 57);
  return `hsl(228 80% ${light}%)`;
}

// Heatmap draws the cells on a canvas: time across, the value's buckets
// up (their edges labelled in the tile's unit), each cell shaded by how
// many events it holds; hovering a cell says what it holds.
export function Heatmap({ cells, stepMs, height, unit }: { cells: Cells; stepMs: number; height: number; unit: Unit }) {
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  const [hover, setHover] = useState('');
  useEffect(() => {
    const el = box.current!;
    setWidth(el.clientWidth);
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const rows = Math.max(0, cells.bounds.length - 1);
  const plotW = Math.max(10, width - left - right), plotH = Math.max(10, height - top - bottom);
  useEffect(() => {
    const cv = canvas.current;
    if (!cv || !width) return;
    const dpr = window.devicePixelRatio || 1;
    cv.width = width * dpr;
    cv.height = height * dpr;
    const g = cv.getContext('2d')!;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = '11px system-ui';
    g.fillStyle = '#667';
    const n = cells.times.length;
    if (!n || !rows) return;
    let max = 0;
    for (const col of cells.counts) for (const v of col) max = Math.max(max, v);
    const cw = plotW / n, ch = plotH / rows;
    cells.counts.forEach((col, t) => col.forEach((v, r) => {
      const c = shade(v, max);
      if (!c) return;
      g.fillStyle = c;
      // A cell a little wider than its share, so no seams show.
      g.fillRect(left + t * cw, top + plotH - (r + 1) * ch, Math.ceil(cw) + 0.5, Math.ceil(ch) + 0.5);
    }));
    g.strokeStyle = '#c9cfda';
    g.strokeRect(left + 0.5, top + 0.5, plotW, plotH);
    // The value axis: a few of the bucket edges.
    g.fillStyle = '#667';
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    const yTicks = Math.min(rows, Math.max(1, Math.floor(plotH / 28)));
    for (let i = 0; i <= yTicks; i++) {
      const r = Math.round((i * rows) / yTicks);
      g.fillText(fmtValue(cells.bounds[r], unit), left - 6, top + plotH - r * ch);
    }
    // The time axis.
    g.textAlign = 'center';
    g.textBaseline = 'top';
    const span = cells.times[n - 1] - cells.times[0] + stepMs;
    const xTicks = Math.max(1, Math.floor(plotW / 90));
    for (let i = 0; i <= xTicks; i++) {
      const t = Math.min(n - 1, Math.round((i * (n - 1)) / xTicks));
      const label = timeLabel(cells.times[t], span);
      // The end labels stay inside the plot's width.
      const half = g.measureText(label).width / 2;
      g.fillText(label, Math.min(left + plotW - half, Math.max(left + half, left + (t + 0.5) * cw)), top + plotH + 4);
    }
  }, [cells, width, height, unit]);
  const onMove = (e: MouseEvent) => {
    const n = cells.times.length;
    if (!n || !rows) return;
    const rect = (e.currentTarget as HTMLCanvasElement).getBoundingClientRect();
    const x = e.clientX - rect.left - left, y = e.clientY - rect.top - top;
    if (x < 0 || y < 0 || x >= plotW || y >= plotH) { setHover(''); return; }
    const t = Math.floor((x / plotW) * n), r = rows - 1 - Math.floor((y / plotH) * rows);
    const v = cells.counts[t]?.[r] ?? 0;
    setHover(`${timeLabel(cells.times[t], 0)} · ${fmtValue(cells.bounds[r], unit)} – ${fmtValue(cells.bounds[r + 1], unit)} · ${v.toLocaleString()} events`);
  };
  const total = cells.counts.reduce((a, col) => a + col.reduce((b, v) => b + v, 0), 0);
  return (
    <div ref={box} class="heatmap" data-testid="heatmap" data-events={total}>
      <canvas ref={canvas} style={{ width: `${width}px`, height: `${height}px`, display: 'block' }} onMouseMove={onMove} onMouseLeave={() => setHover('')}
        aria-label={`heatmap of ${total} events`} />
      <div class="muted small heatmap-hover">{hover || (rows ? `${total.toLocaleString()} events; darker cells hold more` : 'No events in the range')}</div>
    </div>
  );
}
