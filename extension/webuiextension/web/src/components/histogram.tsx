import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { Histogram as Data } from '../api';
import { fmtAt, useZone } from '../time';

// Colours of the levels and statuses the API's level() names; any other
// value takes one of the spare colours.
const LEVEL_COLOURS: Record<string, string> = {
  fatal: '#7b1d1d', error: '#d64545', warn: '#e0a020', info: '#3aa76d', ok: '#27ae60', debug: '#8a94a6', trace: '#b8c0cc', unset: '#4f6df5',
};
const SPARE = ['#16a085', '#8e44ad', '#2c82c9', '#d35400', '#7f8c8d'];

function colourOf(name: string, i: number): string {
  return LEVEL_COLOURS[name] ?? SPARE[i % SPARE.length];
}

interface Tip {
  left: number;
  at: number;
  total: number;
  parts: { name: string; count: number; colour: string }[];
}

// Histogram draws matching events per bucket with uPlot, stacked by
// severity or status when the data is grouped; hovering a bucket shows
// its time and counts, and dragging across the chart selects a range,
// which onZoom turns into the search's range.
export function Histogram({ data, error, onZoom }: { data: Data | null; error?: string; onZoom: (from: number, to: number) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const zoom = useRef(onZoom);
  const [tip, setTip] = useState<Tip | null>(null);
  const zone = useZone();
  zoom.current = onZoom;

  // The plot is made again for each answer: the series are its groups.
  // A failed count draws none (empty axes would read as no events).
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const step = data?.stepMs ?? 60e3;
    const groups = data?.groups?.length ? data.groups : [{ name: 'events', counts: (data?.buckets ?? []).map((b) => b[1]) }];
    const colours = groups.map((g, i) => (data?.groups?.length ? colourOf(g.name, i) : '#4f6df5'));
    // Stacked bars: group i is drawn from 0 to the sum of groups 0..i, the
    // tallest first, so each shows as its own segment (the first group at
    // the bottom).
    const cum: number[][] = [];
    groups.forEach((g, i) => cum.push(g.counts.map((c, j) => c + (i ? cum[i - 1][j] : 0))));
    const order = groups.map((_, i) => groups.length - 1 - i);
    const xs = (data?.buckets ?? []).map((b) => b[0] / 1000);
    const opts: uPlot.Options = {
      width: el.clientWidth || 800,
      height: 110,
      // The time axis follows the zone switch.
      ...(zone === 'utc' ? { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC') } : {}),
      legend: { show: false },
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false }, y: false },
      select: { show: true, left: 0, top: 0, width: 0, height: 0 },
      // The x range ends where the last bucket does, so its bar shows.
      // The count axis runs from 0 to a step at or above the highest bar,
      // so its top is labelled.
      scales: { x: { time: true, range: (_u, min, max) => [min, max + step / 1000] }, y: { range: (_u, _min, max) => [0, COUNT_STEPS.find((v) => v >= max) ?? max] } },
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
        ...order.map((i) => ({ label: groups[i].name, stroke: colours[i], fill: colours[i] + 'cc', width: 0,
          paths: uPlot.paths.bars!({ size: [0.85, 40], align: 1 }), points: { show: false } })),
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
        // Hover: the bucket under the cursor (bars start at their
        // bucket's time), its time and counts.
        setCursor: [
          (u) => {
            const left = u.cursor.left ?? -1;
            if (left < 0 || !xs.length) { setTip(null); return; }
            const t = u.posToVal(left, 'x');
            let j = -1;
            for (let k = 0; k < xs.length; k++) if (xs[k] <= t && t < xs[k] + step / 1000) j = k;
            if (j < 0) { setTip(null); return; }
            setTip({
              left: left + u.over.offsetLeft,
              at: xs[j] * 1000,
              total: groups.reduce((a, g) => a + g.counts[j], 0),
              parts: data?.groups?.length ? groups.map((g, i) => ({ name: g.name, count: g.counts[j], colour: colours[i] })).filter((p) => p.count > 0) : [],
            });
          },
        ],
      },
    };
    plot.current = new uPlot(opts, [xs, ...order.map((i) => cum[i])] as uPlot.AlignedData, el);
    // uPlot keeps where its canvas is on the page from when it was drawn;
    // the page moves under it (the facet sidebar arriving), so the hover
    // would read another bucket. It reads the place again on entering.
    const u = plot.current;
    u.over.addEventListener('mouseenter', () => u.syncRect(), { capture: true });
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: 110 }));
    ro.observe(el);
    setTip(null);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [data, zone, !!error]);

  const total = data ? data.buckets.reduce((a, b) => a + b[1], 0) : null;
  const step = data?.stepMs ?? 60e3;
  return (
    <div class="histogram">
      <div class="histogram-head muted small">
        <span data-testid="histogram-total">{error ? `No count: ${error}` : total === null ? 'Counting…' : `${total.toLocaleString()} matching event${total === 1 ? '' : 's'}`}</span>
        {/* A level with no event in the range (an empty search's lone
            "unset") is not in the legend; colours keep their index. */}
        {data?.groups && data.groups.some((g) => g.counts.some((c) => c > 0)) && (
          <span class="histogram-legend" data-testid="histogram-legend">
            {data.groups.map((g, i) => g.counts.some((c) => c > 0) && <span data-level={g.name}><i style={{ background: colourOf(g.name, i) }} />{g.name}</span>)}
          </span>
        )}
        <span class="hint">hover for counts, drag across the chart to zoom</span>
      </div>
      {!error && <div class="histogram-wrap">
        <div ref={box} class="histogram-plot" data-testid="histogram" />
        {tip && (
          <div class={'histogram-tip' + (tip.left > (box.current?.clientWidth ?? 0) / 2 ? ' flip' : '')} data-testid="histogram-tip" style={{ left: tip.left + 'px' }}>
            <div class="when">{fmtAt(tip.at)} – {fmtAt(tip.at + step).slice(11)}</div>
            <div><strong data-testid="histogram-tip-count">{tip.total.toLocaleString()}</strong> event{tip.total === 1 ? '' : 's'}</div>
            {tip.parts.map((p) => <div data-level={p.name}><i style={{ background: p.colour }} />{p.name} <strong>{p.count.toLocaleString()}</strong></div>)}
          </div>
        )}
      </div>}
    </div>
  );
}

const COUNT_STEPS = Array.from({ length: 13 }, (_, e) => [1, 2, 5].map((m) => m * 10 ** e)).flat();

function compact(v: number): string {
  if (v >= 1e6) return (v / 1e6).toFixed(1) + 'M';
  if (v >= 1e3) return (v / 1e3).toFixed(1) + 'k';
  return String(v);
}
