import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { fmtValue, Unit } from '../units';

export interface Line {
  group: string[];
  points: [number, number | null][];
}

const palette = ['#4f6df5', '#16a085', '#e67e22', '#8e44ad', '#c0392b', '#2c82c9', '#27ae60', '#d35400', '#7f8c8d', '#b7950b'];

// Chart draws a tile's lines (one per group) on a shared time axis, as
// lines or stacked bars, values in the tile's unit; hovering shows each
// line's value at that time in the legend. With onZoom, dragging across
// the chart selects a time span and hands it over (epoch ms).
export function Chart({ lines, stepMs, bars, height = 180, unit = '', onZoom }: { lines: Line[]; stepMs: number; bars?: boolean; height?: number; unit?: Unit; onZoom?: (from: number, to: number) => void }) {
  const box = useRef<HTMLDivElement>(null);
  // The latest callback, read when a selection ends, so a new one does
  // not redraw the chart.
  const zoom = useRef(onZoom);
  zoom.current = onZoom;
  const plot = useRef<uPlot | null>(null);
  const aligned = (): uPlot.AlignedData => {
    const xs = (lines[0]?.points ?? []).map((p) => p[0] / 1000);
    let ys = lines.map((l) => l.points.map((p) => p[1]));
    if (bars) {
      // Stacked: each series is drawn as the sum of itself and those below.
      const acc = xs.map(() => 0);
      ys = ys.map((s) => s.map((v, i) => (acc[i] += v ?? 0)));
    }
    return [xs, ...(bars ? ys.slice().reverse() : ys)] as uPlot.AlignedData;
  };
  // The plot is made again only when its series change; new values for
  // the same series (an auto-refresh) are set on it, so a selection being
  // dragged and the hover survive a refresh.
  const shape = JSON.stringify([lines.map((l) => l.group), stepMs, bars, height, unit]);
  useEffect(() => {
    const el = box.current!;
    const series: uPlot.Series[] = [{}];
    lines.forEach((l, i) => {
      const c = palette[i % palette.length];
      series.push({
        label: l.group.length ? l.group.join(' · ') : 'value',
        stroke: c,
        width: bars ? 0 : 1.5,
        fill: bars ? c + 'cc' : undefined,
        paths: bars ? uPlot.paths.bars!({ size: [0.8, 40], align: 1 }) : undefined,
        // A line of one value (a metric sent once in the range) would
        // draw nothing: its point is shown.
        points: { show: (u, si) => !bars && Array.from(u.data[si] as ArrayLike<number | null | undefined>).filter((v) => v !== null && v !== undefined).length === 1 },
        // A gauge sampled less often than the buckets leaves empty ones
        // between its points: the line joins them instead of drawing dots.
        spanGaps: !bars,
        value: (_u, v) => fmtValue(v, unit),
      });
    });
    const opts: uPlot.Options = {
      width: el.clientWidth || 400,
      height,
      legend: { show: lines.length <= 12, live: true },
      cursor: { points: { show: true }, drag: { x: !!zoom.current, y: false, setScale: false } },
      hooks: {
        setSelect: [(u) => {
          const { left, width } = u.select;
          if (width < 3 || !zoom.current) return;
          const from = u.posToVal(left, 'x') * 1000, to = u.posToVal(left + width, 'x') * 1000;
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          zoom.current(Math.round(from), Math.round(to));
        }],
      },
      scales: { x: { time: true, range: (_u, min, max) => [min, max + stepMs / 1000] } },
      axes: [
        { stroke: '#667', grid: { show: false }, font: '11px system-ui' },
        { stroke: '#667', size: 64, grid: { stroke: '#eef0f4' }, font: '11px system-ui', values: (_u, vs) => vs.map((v) => fmtValue(v, unit)) },
      ],
      series: bars ? [series[0], ...series.slice(1).reverse()] : series,
    };
    const p = new uPlot(opts, aligned(), el);
    plot.current = p;
    const ro = new ResizeObserver(() => p.setSize({ width: el.clientWidth, height }));
    ro.observe(el);
    return () => { ro.disconnect(); p.destroy(); plot.current = null; };
  }, [shape]);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) { first.current = false; return; }
    plot.current?.setData(aligned());
  }, [lines]);
  return <div ref={box} class="chart" />;
}
