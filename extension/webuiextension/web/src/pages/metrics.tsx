import { useEffect, useMemo, useState } from 'preact/hooks';
import { Answer, callWhole, get, messageOf, post, put } from '../api';
import { breakable } from '../components/breakable';
import { TimePicker } from '../components/timepicker';
import { navigate, onLink, useLocation } from '../router';
import { resolveRange } from '../time';
import { Chart } from '../components/chart';
import { fmtValue, numberFormat, Unit } from '../units';
import { Dashboard, runTile, Series, TileConfig } from './dashboards';
import './dashboards.css';
import './metrics.css';

// The metrics explorer: the metrics of the team's metric source (every
// metric table of its database), and a picked one charted over time with
// a Datadog metric query (agg:metric{filters} by {tags}.as_rate()) run by
// POST /api/v2/charts/series, exactly as a dashboard tile runs it, which
// is how "Add to dashboard" saves it. State lives in the URL.

type Metric = Answer<'/api/v2/metrics', 'get'>[number];
type MetricTag = Answer<'/api/v2/metrics/tags', 'get'>[number];

const sourceId = 'metrics';
const histograms = ['histogram', 'exponential_histogram'];

// unitOfMetric is how a metric's unit (OpenTelemetry's UCUM-like or the
// Agent's names) is drawn, where the chart has that unit.
function unitOfMetric(u: string): Unit {
  const m: Record<string, Unit> = { '%': 'percent', percent: 'percent', ns: 'ns', nanosecond: 'ns', us: 'us', microsecond: 'us',
    ms: 'ms', millisecond: 'ms', s: 's', second: 's', By: 'bytes', byte: 'bytes', bytes: 'bytes' };
  return m[u] ?? '';
}

// metricQuery writes the Datadog metric query of the explorer's choices.
export function metricQuery(metric: string, agg: string, filters: string[], by: string[], rate: boolean): string {
  return `${agg}:${metric}{${filters.length ? filters.join(',') : '*'}}${by.length ? ` by {${by.join(',')}}` : ''}${rate ? '.as_rate()' : ''}`;
}

export function MetricsPage() {
  const loc = useLocation();
  const params = loc.searchParams;
  const search = params.toString();
  const rangeKey = ['range', 'from', 'to'].map((k) => params.get(k) ?? '').join('|');
  const range = useMemo(() => resolveRange(new URLSearchParams(search), '1h'), [rangeKey]);
  const go = (set: Record<string, string | string[] | null>) => {
    const p = new URLSearchParams(search);
    for (const [k, v] of Object.entries(set)) {
      p.delete(k);
      if (Array.isArray(v)) v.forEach((x) => p.append(k, x));
      else if (v !== null) p.set(k, v);
    }
    navigate(`/metrics?${p.toString()}`);
  };
  const picked = params.get('metric') ?? '';
  const [text, setText] = useState(params.get('q') ?? '');
  const [list, setList] = useState<Metric[] | null>(null);
  const [truncated, setTruncated] = useState(false);
  const [error, setError] = useState('');

  // The list follows the filter box (after a short pause) and the range.
  useEffect(() => {
    const ac = new AbortController();
    const t = window.setTimeout(() => {
      const q = new URLSearchParams({ sourceId, startTime: String(range.from), endTime: String(range.to) });
      if (text.trim()) q.set('search', text.trim());
      // The filter is kept in the URL too (replacing, not a new entry).
      const u = new URLSearchParams(location.search);
      if (text.trim()) u.set('q', text.trim()); else u.delete('q');
      const qs = u.toString();
      navigate(qs ? `/metrics?${qs}` : '/metrics', true);
      callWhole<{ data: Metric[]; truncated: boolean }>('GET', `/api/v2/metrics?${q}`, undefined, ac.signal)
        .then((r) => { setList(r.data); setTruncated(r.truncated); setError(''); })
        .catch((e) => { if (!ac.signal.aborted) setError(e.message); });
    }, 200);
    return () => { ac.abort(); window.clearTimeout(t); };
  }, [text, range.from, range.to]);

  // The picked metric's type and unit, kept when the filter no longer
  // lists it (read by name when the page opens on it filtered out).
  const [info, setInfo] = useState<Metric | null>(null);
  useEffect(() => {
    const inList = list?.find((m) => m.name === picked);
    if (inList) { setInfo(inList); return; }
    if (!picked || !list || info?.name === picked) return;
    const q = new URLSearchParams({ sourceId, search: picked, startTime: String(range.from), endTime: String(range.to) });
    // Best effort: without it the chart still draws, only its unit and
    // type are unknown.
    get<Metric[]>(`/api/v2/metrics?${q}`).then((l) => setInfo(l.find((m) => m.name === picked) ?? null))
      .catch((e) => console.warn('reading the metric', picked, e));
  }, [list, picked]);
  const metric = info?.name === picked ? info : null;
  return (
    <div class="metrics">
      <aside class="metrics-list">
        <div class="filter">
          <div class="row-between">
            <h1 style="margin:0;font-size:18px">Metrics</h1>
            <TimePicker range={range} onChange={(r) => go(r.relative ? { range: r.relative, from: null, to: null } : { range: null, from: String(r.from), to: String(r.to) })} />
          </div>
          <input name="metric-filter" placeholder="Filter metrics by name" value={text} aria-label="Filter metrics by name"
            onInput={(e) => setText(e.currentTarget.value)} />
          {error && <p class="error small" role="alert">{error}</p>}
          {list && <span class="muted small" data-testid="metric-count">{list.length}{truncated ? '+' : ''} metric{list.length === 1 ? '' : 's'}</span>}
        </div>
        <div class="scroll">
          {!list ? <p class="muted small" style="padding:12px">Loading…</p> : list.length === 0 ? (
            <p class="muted small" style="padding:12px">No metric{text.trim() ? ` holding “${text.trim()}”` : ''} in this range. Agents and SDKs sending metrics show here.</p>
          ) : (
            <table class="rows" data-testid="metrics">
              <thead><tr><th>Name</th><th>Type</th><th>Unit</th></tr></thead>
              <tbody>
                {list.map((m) => (
                  <tr class={m.name === picked ? 'sel' : ''} data-metric={m.name} title={m.description} tabIndex={0}
                    onClick={() => go({ metric: m.name, agg: null, filter: null, by: null, rate: null })}
                    onKeyDown={(e) => { if (e.key === 'Enter') go({ metric: m.name, agg: null, filter: null, by: null, rate: null }); }}>
                    <td class="name">{breakable(m.name)}{m.description && <div class="desc muted small">{m.description}</div>}</td>
                    <td class="small">{m.type.replace('_', ' ')}{m.monotonic ? ' (monotonic)' : ''}</td>
                    <td class="small">{m.unit}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </aside>
      <section class="metrics-main">
        {!picked ? <p class="muted">Pick a metric to chart it.</p> : (
          <Explorer key={picked} metric={picked} info={metric} from={range.from} to={range.to} params={params} go={go} />
        )}
      </section>
    </div>
  );
}

function Explorer({ metric, info, from, to, params, go }: {
  metric: string; info: Metric | null; from: number; to: number; params: URLSearchParams; go: (s: Record<string, string | string[] | null>) => void;
}) {
  const isHist = !!info && histograms.includes(info.type);
  const aggs = ['avg', 'sum', 'min', 'max', ...(isHist ? ['p50', 'p95', 'p99'] : [])];
  const agg = aggs.includes(params.get('agg') ?? '') ? params.get('agg')! : 'avg';
  const filters = params.getAll('filter');
  const by = params.getAll('by');
  const canRate = !!info && info.type === 'sum' && info.monotonic;
  const rate = canRate && params.get('rate') === '1';
  const q = metricQuery(metric, agg, filters, by, rate);
  // A rate is per second of the metric's unit: drawn as a plain number.
  const unit = rate ? '' : unitOfMetric(info?.unit ?? '');
  const config: TileConfig = { displayType: 'line', sourceId, select: [{ query: q, whereLanguage: 'lucene' }] };
  const nf = numberFormat(unit);
  if (nf) config.numberFormat = nf;
  const [data, setData] = useState<Series | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    const ac = new AbortController();
    runTile(config, from, to, ac.signal).then((d) => { setData(d); setError(''); }).catch((e) => { if (!ac.signal.aborted) setError(e.message); });
    return () => ac.abort();
  }, [q, from, to]);
  return (
    <>
      <h1>{breakable(metric)}</h1>
      {info && <p class="muted small" style="margin:0">{info.type.replace('_', ' ')}{info.unit ? ` · ${info.unit}` : ''}{info.description ? ` · ${info.description}` : ''} · {info.series} series</p>}
      <div class="metric-controls">
        <label>Aggregation
          <select name="agg" value={agg} onChange={(e) => go({ agg: e.currentTarget.value })}>
            {aggs.map((a) => <option value={a}>{a}</option>)}
          </select>
        </label>
        {canRate && (
          <label class="toggle"><input type="checkbox" name="rate" checked={rate} onChange={(e) => go({ rate: e.currentTarget.checked ? '1' : null })} /> Rate per second</label>
        )}
        <TagInput metric={metric} from={from} to={to} name="filter" label="Filter (tag:value)" pairs
          onAdd={(v) => go({ filter: [...filters, v] })} />
        <TagInput metric={metric} from={from} to={to} name="by" label="Group by"
          onAdd={(v) => !by.includes(v) && go({ by: [...by, v] })} />
      </div>
      <div class="chips" data-testid="metric-chips">
        {filters.map((f, i) => <span class="chip" data-filter={f}>{f}<button class="x" aria-label={`Remove filter ${f}`} onClick={() => go({ filter: filters.filter((_, j) => j !== i) })}>×</button></span>)}
        {by.map((b) => <span class="chip on" data-by={b}>by {b}<button class="x" aria-label={`Stop grouping by ${b}`} onClick={() => go({ by: by.filter((x) => x !== b) })}>×</button></span>)}
      </div>
      <p class="metric-query" data-testid="metric-query">{q}</p>
      <div class="card metric-chart" data-testid="metric-chart">
        {error ? <p class="error" role="alert" data-testid="metric-error">{error}</p>
          : !data ? <p class="muted small">Loading…</p>
          : <Chart lines={data.lines} stepMs={data.stepMs} height={280} unit={unit} onZoom={(f, t) => go({ range: null, from: String(f), to: String(t) })} />}
      </div>
      {data && !error && <Summary series={data} unit={unit} />}
      <AddToDashboard metric={metric} query={q} numberFormat={nf} />
    </>
  );
}

// Summary is each line's average, minimum, maximum and latest value over
// the range, so the values are read without hovering.
function Summary({ series, unit }: { series: Series; unit: Unit }) {
  const rows = series.lines.map((l) => {
    const vs = l.points.map((p) => p[1]).filter((v): v is number => v !== null);
    return { name: l.group.length ? l.group.join(' · ') : 'value', n: vs.length,
      avg: vs.length ? vs.reduce((a, b) => a + b, 0) / vs.length : null,
      min: vs.length ? Math.min(...vs) : null, max: vs.length ? Math.max(...vs) : null, last: vs.length ? vs[vs.length - 1] : null };
  });
  if (!rows.some((r) => r.n)) return <p class="muted small" data-testid="metric-summary">No data in this range.</p>;
  return (
    <div class="metric-summary">
      <table class="rows" data-testid="metric-summary">
        <thead><tr><th>Series</th><th class="num">avg</th><th class="num">min</th><th class="num">max</th><th class="num">latest</th></tr></thead>
        <tbody>{rows.slice(0, 50).map((r) => (
          <tr data-series={r.name}><td>{r.name}</td><td class="num">{fmtValue(r.avg, unit)}</td><td class="num">{fmtValue(r.min, unit)}</td>
            <td class="num">{fmtValue(r.max, unit)}</td><td class="num">{fmtValue(r.last, unit)}</td></tr>
        ))}</tbody>
      </table>
      {rows.length > 50 && <p class="muted small">{rows.length - 50} more series: filter or group by fewer tags.</p>}
    </div>
  );
}

// TagInput offers a metric's tag keys (and, with pairs, after key: its
// values) from GET /api/v2/metrics/tags as the person types.
function TagInput({ metric, from, to, name, label, pairs, onAdd }: {
  metric: string; from: number; to: number; name: string; label: string; pairs?: boolean; onAdd: (v: string) => void;
}) {
  const [text, setText] = useState('');
  const [options, setOptions] = useState<string[]>([]);
  const [why, setWhy] = useState('');
  useEffect(() => {
    const ac = new AbortController();
    const colon = text.indexOf(':');
    const q = new URLSearchParams({ sourceId, metric, startTime: String(from), endTime: String(to), limit: '50' });
    if (pairs && colon > 0) {
      q.set('key', text.slice(0, colon));
      q.set('prefix', text.slice(colon + 1));
    } else if (text) q.set('prefix', text);
    const t = window.setTimeout(() => {
      get<MetricTag[]>(`/api/v2/metrics/tags?${q}`, ac.signal)
        .then((tags) => setOptions(tags.map((g) => (g.value !== undefined ? `${text.slice(0, colon)}:${g.value}` : g.key ?? '')).filter(Boolean)))
        .catch(() => setOptions([]));
    }, 150);
    return () => { ac.abort(); window.clearTimeout(t); };
  }, [text, metric, from, to]);
  const id = `${name}-options`;
  return (
    <form data-testid={`${name}-form`} onSubmit={(e) => {
      e.preventDefault();
      const v = text.trim();
      if (!v) return;
      // Add on a filter without its value did nothing: it says why.
      if (pairs && !/^[^:\s]+:\S+$/.test(v)) { setWhy('a filter is tag:value, e.g. host:web-1'); return; }
      onAdd(v);
      setText('');
    }}>
      <label>{label}
        <input name={name} list={id} autocomplete="off" value={text} placeholder={pairs ? 'host:web-1' : 'host'} onInput={(e) => { setText(e.currentTarget.value); setWhy(''); }} />
      </label>
      <datalist id={id}>{options.map((o) => <option value={o} />)}</datalist>
      <button class="small" type="submit" disabled={!text.trim()}>Add</button>
      {why && <span class="error small" role="alert" data-testid={`${name}-error`}>{why}</span>}
    </form>
  );
}

// AddToDashboard puts the chart on a dashboard (an existing one or a new
// one by name) as a line tile whose select item carries the same query.
function AddToDashboard({ metric, query, numberFormat: nf }: { metric: string; query: string; numberFormat?: Record<string, unknown> }) {
  const [list, setList] = useState<Dashboard[]>([]);
  const [target, setTarget] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const [added, setAdded] = useState<Dashboard | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => { get<Dashboard[]>('/api/v2/dashboards').then(setList).catch((e) => setError(e.message)); }, []);
  useEffect(() => setAdded(null), [query]);
  const tile = (y: number) => ({
    name: metric, x: 0, y, w: 12, h: 4,
    config: { displayType: 'line' as const, sourceId, select: [{ query, whereLanguage: 'lucene' as const }], ...(nf ? { numberFormat: nf } : {}) },
  });
  const add = async () => {
    setBusy(true);
    try {
      let d: Dashboard;
      if (!target) {
        d = await post<Dashboard>('/api/v2/dashboards', { name: name.trim(), tags: [], tiles: [tile(0)] });
      } else {
        const cur = await get<Dashboard>(`/api/v2/dashboards/${encodeURIComponent(target)}`);
        const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = cur;
        const y = cur.tiles.reduce((m, t) => Math.max(m, t.y + t.h), 0);
        d = await put<Dashboard>(`/api/v2/dashboards/${encodeURIComponent(target)}`, { ...rest, tiles: [...cur.tiles, tile(y)] });
      }
      setAdded(d);
      setError('');
      get<Dashboard[]>('/api/v2/dashboards').then(setList).catch((e) => setError(`Added, but the list of dashboards could not be read again: ${e.message}`));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="add-dash" data-testid="add-to-dashboard" onSubmit={(e) => { e.preventDefault(); add(); }}>
      <select name="dashboard" value={target} onChange={(e) => setTarget(e.currentTarget.value)} aria-label="Dashboard">
        <option value="">New dashboard…</option>
        {list.map((d) => <option value={d.id}>{d.name}</option>)}
      </select>
      {!target && <input name="new-dashboard" placeholder="New dashboard name" value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      <button class="primary" type="submit" disabled={busy || (!target && !name.trim())}>Add to dashboard</button>
      {added && <span class="ok small" data-testid="added">Added to <a href={`/dashboards/${added.id}`} onClick={(e) => onLink(e, `/dashboards/${added.id}`)}>{added.name}</a></span>}
      {error && <span class="error small" role="alert">{error}</span>}
    </form>
  );
}
