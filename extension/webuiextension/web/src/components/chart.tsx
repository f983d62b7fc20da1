import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { fmtValue, Unit } from '../units';
import { palette } from '../palette';

export interface Line {
  group: string[];
  points: [number, number | null][];
}

// The time axis's labels as uPlot writes them ("2:15pm"), the day before
// them when the range spans days: what a canvas-drawn chart (the heatmap)
// writes too, so every chart reads time alike.
const clock = uPlot.fmtDate('{h}:{mm}{aa}');
const dayClock = uPlot.fmtDate('{M}/{D} {h}:{mm}{aa}');
export function timeLabel(ms: number, spanMs: number): string {
  return (spanMs > 2 * 86400_000 ? dayClock : clock)(new Date(ms));
}


// Chart draws a tile's lines (one per group) on a shared time axis, as
// lines or stacked bars, values in the tile's unit; hovering shows each
// line's value at that time in the legend. With onZoom, dragging across
// the chart selects a time span and hands it over (epoch ms). A line
// without a group is named name in the legend. With fit, height holds the
// legend too: a legend that wraps onto more rows (many series, a narrow
// tile) takes its room from the plot instead of overflowing it.
export function Chart({ lines, stepMs, bars, height = 180, unit = '', onZoom, name = 'value', fit }: { lines: Line[]; stepMs: number; bars?: boolean; height?: number; unit?: Unit; onZoom?: (from: number, to: number) => void; name?: string; fit?: boolean }) {
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
  const shape = JSON.stringify([lines.map((l) => l.group), stepMs, bars, height, unit, name, fit]);
  useEffect(() => {
    const el = box.current!;
    const series: uPlot.Series[] = [{}];
    lines.forEach((l, i) => {
      const c = palette[i % palette.length];
      series.push({
        label: l.group.length ? l.group.join(' · ') : name,
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
      // Fitting, the legend's rows are measured once it is drawn.
      height: fit ? Math.max(60, height - 30) : height,
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
    // A long series name is cut in the legend (CSS); its title holds it.
    p.root.querySelectorAll<HTMLElement>('.u-legend .u-series .u-label').forEach((e) => { e.title = e.textContent ?? ''; });
    const legend = p.root.querySelector<HTMLElement>('.u-legend');
    // The plot's height: what the legend leaves of height when fitting.
    // Setting it changes the box's height, which the observer sees again:
    // the same size is not set twice.
    const plotHeight = () => (fit ? Math.max(60, height - (legend?.offsetHeight ?? 0)) : height);
    const resize = () => {
      // A series' name is cut to what leaves room on its legend row for
      // its marker and value (a narrow tile would otherwise wrap each
      // row onto three lines).
      el.style.setProperty('--legend-label', `${Math.max(60, el.clientWidth - 120)}px`);
      const w = el.clientWidth, h = plotHeight();
      if (w !== p.width || h !== p.height) p.setSize({ width: w, height: h });
    };
    resize();
    const ro = new ResizeObserver(resize);
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
