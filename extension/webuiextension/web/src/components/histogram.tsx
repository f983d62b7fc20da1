import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { Histogram as Data } from '../api';

// Histogram draws matching events per bucket with uPlot; dragging across
// it selects a range, which onZoom turns into the search's range.
export function Histogram({ data, error, onZoom }: { data: Data | null; error?: string; onZoom: (from: number, to: number) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const zoom = useRef(onZoom);
  const step = useRef(60e3);
  zoom.current = onZoom;

  useEffect(() => {
    const el = box.current!;
    const opts: uPlot.Options = {
      width: el.clientWidth || 800,
      height: 110,
      legend: { show: false },
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
      select: { show: true, left: 0, top: 0, width: 0, height: 0 },
      // The x range ends where the last bucket does, so its bar shows.
      // The count axis runs from 0 to a step at or above the highest bar,
      // so its top is labelled.
      scales: { x: { time: true, range: (_u, min, max) => [min, max + step.current / 1000] }, y: { range: (_u, _min, max) => [0, COUNT_STEPS.find((v) => v >= max) ?? max] } },
      axes: [
        // At least 60 px between time ticks: at 1920 px uPlot's default (50)
        // chose a tick every 30 s of a 15 min range, two crowded label rows.
        { stroke: '#667', grid: { show: false }, ticks: { show: false }, font: '11px system-ui', space: 60 },
        // Counts are whole: ticks step by 1, 2 or 5 × 10ⁿ (uPlot's own steps
        // put 2.5 on an axis of three events).
        { stroke: '#667', size: 44, grid: { stroke: '#eef0f4' }, ticks: { show: false }, font: '11px system-ui', values: (_u, vs) => vs.map(compact), incrs: COUNT_STEPS },
      ],
      series: [
        {},
        { label: 'events', stroke: '#4f6df5', fill: '#4f6df5aa', width: 0, paths: uPlot.paths.bars!({ size: [0.85, 40], align: 1 }), points: { show: false } },
      ],
      hooks: {
        setSelect: [
          (u) => {
            if (u.select.width < 3) return;
            const from = u.posToVal(u.select.left, 'x') * 1000;
            const to = u.posToVal(u.select.left + u.select.width, 'x') * 1000;
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            if (to > from) zoom.current(Math.floor(from), Math.ceil(to));
          },
        ],
      },
    };
    plot.current = new uPlot(opts, [[], []], el);
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: 110 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    if (!plot.current) return;
    if (!data) {
      plot.current.setData([[], []]);
      return;
    }
    step.current = data.stepMs;
    const xs = data.buckets.map((b) => b[0] / 1000);
    const ys = data.buckets.map((b) => b[1]);
    plot.current.setData([xs, ys]);
  }, [data]);

  const total = data ? data.buckets.reduce((a, b) => a + b[1], 0) : null;
  return (
    <div class="histogram">
      <div class="histogram-head muted small">
        <span data-testid="histogram-total">{error ? `No count: ${error}` : total === null ? 'Counting…' : `${total.toLocaleString()} matching event${total === 1 ? '' : 's'}`}</span>
        <span class="hint">drag across the chart to zoom</span>
      </div>
      <div ref={box} class="histogram-plot" data-testid="histogram" />
    </div>
  );
}

const COUNT_STEPS = Array.from({ length: 13 }, (_, e) => [1, 2, 5].map((m) => m * 10 ** e)).flat();

function compact(v: number): string {
  if (v >= 1e6) return (v / 1e6).toFixed(1) + 'M';
  if (v >= 1e3) return (v / 1e3).toFixed(1) + 'k';
  return String(v);
}
