import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { callWhole, del, get, getSources, messageOf, post, put, Schemas, Source, Whole } from '../api';
import { alertable, chartItems, label, linesOf, mergeSeries, noData, watchedLabel } from '../tiles';
import { Chart, Line } from '../components/chart';
import { Cells, Heatmap } from '../components/heatmap';
import { PieChart } from '../components/pie';
import { groupPatterns, Pattern } from '../patterns';
import { TimePicker } from '../components/timepicker';
import { Markdown } from '../markdown';
import { AlertListFields, AlertListTile } from '../components/alertlist';
import { alertListConfig } from '../alertlist';
import { navigate, onLink, useLocation } from '../router';
import { goDuration, resolveRange } from '../time';
import { fmtValue, numberFormat, Unit, unitOf, units } from '../units';
import { AlertForm } from './alerts';
import { FilterBar, FilterForm } from '../components/dashfilters';
import { narrowTile } from '../filters';
import { freeSlot } from '../layout';
import { DatadogImportButton, DatadogImportReport } from '../components/datadogimport';
import './dashboards.css';

// Dashboards are the REST API's documents: listed, made, changed and
// deleted through /api/v2/dashboards, and every chart tile runs through
// /api/v2/charts/series, the endpoints scripts call.

// SelectItem is one aggregated series of a chart tile (HyperDX's shape).
// A dashboard, its tiles and their select items as /api/v2/dashboards
// answers them (types generated from the API's OpenAPI document).
export type Dashboard = Schemas['Dashboard'];
export type Tile = Schemas['Tile'];
export type TileConfig = Schemas['TileConfig'];
export type SelectItem = Schemas['SelectItem'];
export type HeatmapItem = Schemas['HeatmapSelectItem'];

// heatmapItem is a heatmap tile's one select item.
function heatmapItem(c: TileConfig): HeatmapItem {
  const s = Array.isArray(c.select) ? c.select[0] as HeatmapItem | undefined : undefined;
  return { valueExpression: s?.valueExpression ?? '', ...(s?.countExpression ? { countExpression: s.countExpression } : {}), ...(s?.heatmapScaleType ? { heatmapScaleType: s.heatmapScaleType } : {}) };
}

// The aggregations /api/v2 takes (dashboards.AggFns).
const aggFns = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'quantile', 'last_value'];
const languages = ['lucene', 'sql', 'datadog'];
const displays: [string, string][] = [['line', 'Line'], ['stacked_bar', 'Stacked bar'], ['number', 'Number'], ['table', 'Table'], ['pie', 'Pie'], ['heatmap', 'Heatmap'], ['search', 'Search'], ['event_patterns', 'Event patterns'], ['markdown', 'Markdown'], ['alerts', 'Alert list']];
const granularities = ['auto', '30s', '1m', '5m', '10m', '15m', '30m', '1h', '2h', '6h', '12h', '1d'];

// A dashboard written back: what the API answers, without what it sets.
function body(d: Dashboard) {
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = d;
  return rest;
}

// DashboardsPage lists the team's dashboards; each can be opened,
// renamed, duplicated or deleted, and a new one made.
export function DashboardsPage() {
  const [list, setList] = useState<Dashboard[] | null>(null);
  const [error, setError] = useState('');
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const [confirm, setConfirm] = useState('');
  const [imported, setImported] = useState<Imported | null>(null);
  // alerts says, before a delete, which alerts go with a dashboard (the
  // API deletes a dashboard's alerts with it).
  const [alerts, setAlerts] = useState<{ dashboardId?: string }[]>([]);
  const load = () => {
    // Only the delete confirmation's count: the list itself does not
    // depend on it, and its own error would clear a message here.
    get<{ dashboardId?: string }[]>('/api/v2/alerts').then(setAlerts)
      .catch((e) => console.warn('dashboards: the alerts for the delete confirmation could not be read:', e));
    return get<Dashboard[]>('/api/v2/dashboards').then((l) => { setList(l); setError(''); }).catch((e) => setError(e.message));
  };
  useEffect(() => { load(); }, []);
  const alertsOf = (id: string) => alerts.filter((a) => a.dashboardId === id).length;
  const act = (p: Promise<unknown>) => p.then(load).catch((e) => setError(e.message));
  return (
    <div class="page">
      <div class="row-between">
        <h1>Dashboards</h1>
        <form class="inline" data-testid="new-dashboard" onSubmit={async (e) => {
          e.preventDefault();
          try {
            const d = await post<Dashboard>('/api/v2/dashboards', { name: name.trim(), tags: [], tiles: [] });
            navigate(`/dashboards/${d.id}?edit=1`);
          } catch (err) { setError(messageOf(err)); }
        }}>
          <input name="dashboard-name" placeholder="New dashboard name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button class="primary" type="submit" disabled={!name.trim()}>Create dashboard</button>
          <DatadogImportButton<Imported> path="/api/v2/dashboards/import" what="dashboard" label="Import from Datadog"
            onStart={() => setImported(null)} onImported={(r) => { setImported(r); setError(''); load(); }} onError={setError} />
        </form>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {imported && <DatadogImportReport report={imported.report} onClose={() => setImported(null)}
        heading={<>Imported “<a href={`/dashboards/${imported.data.id}`} onClick={(e) => onLink(e, `/dashboards/${imported.data.id}`)}>{imported.data.name}</a>”</>} />}
      {!list ? <p class="muted">Loading…</p> : list.length === 0 ? (
        <p class="muted">No dashboard yet: name one above and add tiles to it.</p>
      ) : (
        <table class="rows" data-testid="dashboards">
          <thead><tr><th>Name</th><th>Tiles</th><th>Tags</th><th /></tr></thead>
          <tbody>
            {list.map((d) => (
              <tr data-dashboard={d.name}>
                <td>{renaming?.id === d.id ? (
                  <form class="inline" onSubmit={(e) => { e.preventDefault(); setRenaming(null); act(put(`/api/v2/dashboards/${d.id}`, { ...body(d), name: renaming.name })); }}>
                    <input name="rename" value={renaming.name} onInput={(e) => setRenaming({ id: d.id, name: e.currentTarget.value })} />
                    <button class="small primary" type="submit">Save</button>
                    <button class="small" type="button" onClick={() => setRenaming(null)}>Cancel</button>
                  </form>
                ) : <a href={`/dashboards/${d.id}`} onClick={(e) => onLink(e, `/dashboards/${d.id}`)}>{d.name}</a>}</td>
                <td>{d.tiles.length}</td>
                <td>{d.tags.map((t) => <span class="chip">{t}</span>)}</td>
                <td class="actions">{confirm === d.id ? (
                  <span class="confirm" role="alertdialog">Delete “{d.name}”{alertsOf(d.id) ? ` and its ${alertsOf(d.id) === 1 ? 'alert' : `${alertsOf(d.id)} alerts`}` : ''}?{' '}
                    <button class="small danger" data-action="confirm-delete" onClick={() => { setConfirm(''); act(del(`/api/v2/dashboards/${d.id}`)); }}>Delete</button>{' '}
                    <button class="small" onClick={() => setConfirm('')}>Cancel</button>
                  </span>
                ) : (
                  <>
                    <button class="small" data-action="rename" onClick={() => setRenaming({ id: d.id, name: d.name })}>Rename</button>{' '}
                    <button class="small" data-action="duplicate" onClick={() => act(post('/api/v2/dashboards', { ...body(d), name: `${d.name} (copy)` }))}>Duplicate</button>{' '}
                    <button class="small" data-action="delete" onClick={() => setConfirm(d.id)}>Delete</button>
                  </>
                )}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

type Imported = Whole<'/api/v2/dashboards/import', 'post'>;
type Formula = Schemas['TileFormula'];

// DashboardPage draws a dashboard's tiles on its 24-column grid over one
// time range; in edit mode tiles are added, edited and removed, each
// change saved with PUT /api/v2/dashboards/{id}.
export function DashboardPage({ id }: { id: string }) {
  const loc = useLocation();
  // The one range every tile shows: resolved when the URL changes or the
  // auto-refresh ticks, not on every render (a relative range would move
  // and every tile run again).
  const [tick, setTick] = useState(0);
  const search = loc.searchParams.toString();
  const rangeKey = ['range', 'from', 'to'].map((k) => loc.searchParams.get(k) ?? '').join('|');
  const range = useMemo(() => resolveRange(new URLSearchParams(search), '1h'), [rangeKey, tick]);
  const refresh = refreshes.find((r) => r.value === loc.searchParams.get('refresh')) ?? refreshes[0];
  useEffect(() => {
    if (!refresh.ms) return;
    const t = window.setInterval(() => { if (!document.hidden) setTick((n) => n + 1); }, refresh.ms);
    return () => window.clearInterval(t);
  }, [refresh.ms]);
  // go keeps the other parameters (the refresh with a new range).
  const go = (set: Record<string, string | null>) => {
    const p = new URLSearchParams(search);
    for (const [k, v] of Object.entries(set)) if (v === null) p.delete(k); else p.set(k, v);
    const q = p.toString();
    navigate(q ? `${loc.pathname}?${q}` : loc.pathname);
  };
  const zoomTo = (from: number, to: number) => go({ range: null, from: String(from), to: String(to) });
  const [d, setD] = useState<Dashboard | null>(null);
  const [error, setError] = useState('');
  const [editing, setEditing] = useState<Tile | null>(null);
  const [alerting, setAlerting] = useState<Tile | null>(null);
  const [removing, setRemoving] = useState('');
  // layout is the tiles as arranged and not saved yet (null: not arranging).
  const [layout, setLayout] = useState<Tile[] | null>(null);
  const gridRef = useRef<HTMLDivElement>(null);
  const [sources, setSources] = useState<Source[]>([]);
  const [addingFilter, setAddingFilter] = useState(false);
  // The filters' chosen values, from the URL (f.<filter id>=value).
  const chosen = useMemo(() => {
    const out: Record<string, string> = {};
    new URLSearchParams(search).forEach((v, k) => { if (k.startsWith('f.')) out[k.slice(2)] = v; });
    return out;
  }, [search]);
  useEffect(() => { get<Dashboard>(`/api/v2/dashboards/${encodeURIComponent(id)}`).then(setD).catch((e) => setError(e.message)); }, [id]);
  useEffect(() => { getSources().then(setSources).catch((e) => setError(`Sources could not be read: ${e.message}`)); }, []);
  // A tile's alerts go with it (the API drops alerts whose tile is gone):
  // the removal's confirmation says so.
  const [tileAlerts, setTileAlerts] = useState<{ dashboardId?: string; tileId?: string }[]>([]);
  useEffect(() => {
    get<{ dashboardId?: string; tileId?: string }[]>('/api/v2/alerts').then(setTileAlerts)
      .catch((e) => setError(`Alerts could not be read (a tile's removal may take alerts not counted here): ${e.message}`));
  }, [id]);
  const alertsOn = (tileId: string) => tileAlerts.filter((a) => a.dashboardId === id && a.tileId === tileId).length;
  if (error && !d) return <div class="page"><p class="error" role="alert">{error}</p></div>;
  if (!d) return <div class="page muted">Loading…</div>;
  const save = async (next: Dashboard) => {
    const saved = await put<Dashboard>(`/api/v2/dashboards/${encodeURIComponent(d.id)}`, body(next));
    setD(saved);
    setError('');
    return saved;
  };
  const newTile = (): Tile => ({
    id: '', name: '', ...freeSlot(d.tiles, 12, 4), w: 12, h: 4,
    config: { displayType: 'line', sourceId: sources.find((s) => s.kind === 'log')?.id ?? sources[0]?.id ?? '', select: [{ aggFn: 'count', where: '', whereLanguage: 'lucene' }] },
  });
  const tiles = layout ?? d.tiles;
  const arrange = (id: string, f: (t: Tile) => Tile) => setLayout((l) => (l ?? d.tiles).map((t) => (t.id === id ? f(t) : t)));
  const move = (id: string, dx: number, dy: number) => arrange(id, (t) => place(t, t.x + dx, t.y + dy, t.w, t.h));
  const resize = (id: string, dw: number, dh: number) => arrange(id, (t) => place(t, t.x, t.y, t.w + dw, t.h + dh, true));
  // drag follows the pointer in whole grid cells from where it went down:
  // the tile's corner moves (or, resizing, its size changes) by as many
  // columns and rows as the pointer has travelled.
  const drag = (e: PointerEvent, t: Tile, sizing: boolean) => {
    const grid = gridRef.current;
    if (!grid || e.button !== 0) return;
    e.preventDefault();
    const handle = e.currentTarget as HTMLElement;
    handle.setPointerCapture(e.pointerId);
    const gap = 12, rowH = 70;
    const colW = (grid.getBoundingClientRect().width + gap) / 24;
    const sx = e.clientX, sy = e.clientY;
    const onMove = (m: PointerEvent) => {
      const dc = Math.round((m.clientX - sx) / colW), dr = Math.round((m.clientY - sy) / (rowH + gap));
      arrange(t.id, () => (sizing ? place(t, t.x, t.y, t.w + dc, t.h + dr, true) : place(t, t.x + dc, t.y + dr, t.w, t.h)));
    };
    const onUp = () => { handle.removeEventListener('pointermove', onMove); handle.removeEventListener('pointerup', onUp); };
    handle.addEventListener('pointermove', onMove);
    handle.addEventListener('pointerup', onUp);
  };
  // Keys on a focused tile: arrows move it, Shift+arrows resize it.
  const onKey = (e: KeyboardEvent, t: Tile) => {
    const step: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    const s = step[e.key];
    if (!s || e.target !== e.currentTarget) return;
    e.preventDefault();
    if (e.shiftKey) resize(t.id, s[0], s[1]); else move(t.id, s[0], s[1]);
  };
  return (
    <div class="page">
      <div class="row-between dash-head">
        <h1>{d.name}</h1>
        <div class="dash-tools">
          {layout ? (<>
            <span class="muted small">Drag a tile's ⠿ to move it and its corner to resize it, or use its buttons, or focus it and press the arrows (Shift: resize).</span>
            <button type="button" data-action="cancel-layout" onClick={() => setLayout(null)}>Cancel</button>
            <button class="primary" data-action="save-layout" onClick={() => save({ ...d, tiles: layout }).then(() => setLayout(null)).catch((e) => setError(e.message))}>Save layout</button>
          </>) : d.tiles.length > 0 && <button data-action="arrange" onClick={() => { setRemoving(''); setLayout(d.tiles); }}>Arrange</button>}
          <button data-action="add-filter" onClick={() => setAddingFilter(true)} disabled={!sources.length || !!layout}>Add filter</button>
          <button class="primary" data-action="add-tile" onClick={() => setEditing(newTile())} disabled={!sources.length || !!layout}>Add tile</button>
          <label class="refresh" title="Auto-refresh">↻<select name="refresh" aria-label="Auto-refresh" value={refresh.value} onChange={(e) => go({ refresh: e.currentTarget.value || null })}>
            {refreshes.map((r) => <option value={r.value}>{r.label}</option>)}
          </select></label>
          <TimePicker range={range} onChange={(r) => go(r.relative ? { range: r.relative, from: null, to: null } : { range: null, from: String(r.from), to: String(r.to) })} />
        </div>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {addingFilter && <FilterForm sources={sources} onCancel={() => setAddingFilter(false)}
        onAdd={async (f) => { await save({ ...d, filters: [...d.filters, f] }); setAddingFilter(false); }} />}
      <FilterBar filters={d.filters} tiles={d.tiles} sources={sources} from={range.from} to={range.to} chosen={chosen}
        onChoose={(fid, v) => go({ [`f.${fid}`]: v || null })}
        onRemove={layout ? (fid) => save({ ...d, filters: d.filters.filter((f) => f.id !== fid) }).then(() => go({ [`f.${fid}`]: null })).catch((e) => setError(e.message)) : undefined} />
      {d.tiles.length === 0 && <p class="muted">No tile yet: “Add tile” makes a chart, a number, a table or a note.</p>}
      <div class={layout ? 'grid arranging' : 'grid'} data-testid="dashboard-grid" ref={gridRef}>
        {tiles.map((t) => (
          <div class="card tile" data-tile={t.name} style={{ gridColumn: `${t.x + 1} / span ${t.w}`, gridRow: `${t.y + 1} / span ${t.h}` }}
            tabIndex={layout ? 0 : undefined} aria-label={layout ? `${t.name || 'tile'}: column ${t.x + 1}, row ${t.y + 1}, ${t.w} wide, ${t.h} high` : undefined}
            onKeyDown={layout ? (e) => onKey(e, t) : undefined}>
            {layout && <span class="resize-handle" data-action="resize-tile" title="Drag to resize" onPointerDown={(e) => drag(e, t, true)} />}
            <TileView tile={layout ? t : { ...t, config: narrowTile(t.config, d.filters, chosen) }} from={range.from} to={range.to} onZoom={layout ? undefined : zoomTo} tools={layout ? (
              <span class="tile-tools arrange" role="group" aria-label="Move and resize">
                <span class="drag-handle" data-action="drag-tile" title="Drag to move" onPointerDown={(e) => drag(e, t, false)}>⠿</span>
                <button class="small ghost" data-action="move-left" aria-label="Move left" onClick={() => move(t.id, -1, 0)}>←</button>
                <button class="small ghost" data-action="move-right" aria-label="Move right" onClick={() => move(t.id, 1, 0)}>→</button>
                <button class="small ghost" data-action="move-up" aria-label="Move up" onClick={() => move(t.id, 0, -1)}>↑</button>
                <button class="small ghost" data-action="move-down" aria-label="Move down" onClick={() => move(t.id, 0, 1)}>↓</button>
                <button class="small ghost" data-action="narrower" aria-label="Narrower" onClick={() => resize(t.id, -1, 0)}>−W</button>
                <button class="small ghost" data-action="wider" aria-label="Wider" onClick={() => resize(t.id, 1, 0)}>+W</button>
                <button class="small ghost" data-action="shorter" aria-label="Shorter" onClick={() => resize(t.id, 0, -1)}>−H</button>
                <button class="small ghost" data-action="taller" aria-label="Taller" onClick={() => resize(t.id, 0, 1)}>+H</button>
                <span class="muted small" data-testid="tile-place">{t.w}×{t.h} at {t.x},{t.y}</span>
              </span>
            ) : removing === t.id ? (
              <span class="confirm" role="alertdialog">{alertsOn(t.id) ? `Remove it and its ${alertsOn(t.id) === 1 ? 'alert' : `${alertsOn(t.id)} alerts`}?` : 'Remove?'}{' '}
                <button class="small danger" data-action="confirm-remove" onClick={() => { setRemoving(''); save({ ...d, tiles: d.tiles.filter((x) => x.id !== t.id) }).catch((e) => setError(e.message)); }}>Remove</button>{' '}
                <button class="small" onClick={() => setRemoving('')}>Cancel</button>
              </span>
            ) : (
              <span class="tile-tools">
                {alertable(t.config) && <button class="small ghost" data-action="alert-tile" onClick={() => setAlerting(t)}>Alert</button>}
                <button class="small ghost" data-action="edit-tile" onClick={() => setEditing(t)}>Edit</button>
                <button class="small ghost" data-action="remove-tile" onClick={() => setRemoving(t.id)}>Remove</button>
              </span>
            )} />
          </div>
        ))}
      </div>
      {editing && (
        <TileEditor tile={editing} sources={sources} from={range.from} to={range.to} onCancel={() => setEditing(null)} onSave={async (t) => {
          const tiles = editing.id ? d.tiles.map((x) => (x.id === editing.id ? t : x)) : [...d.tiles, t];
          await save({ ...d, tiles });
          setEditing(null);
        }} />
      )}
      {alerting && (
        <div class="modal-back" onClick={(e) => { if (e.target === e.currentTarget) setAlerting(null); }}>
          <div class="modal card" role="dialog" aria-label="New alert">
            <h2>Alert on “{tileName(alerting)}”</h2>
            <AlertForm initial={{ source: 'tile', dashboardId: d.id, tileId: alerting.id, name: `${d.name}: ${tileName(alerting)}` }}
              onDone={() => { setAlerting(null); navigate('/alerts'); }} onCancel={() => setAlerting(null)} />
          </div>
        </div>
      )}
    </div>
  );
}

// tileName names a tile as its header does: an unnamed one by what it
// draws (an alert on it was called just "tile").
const tileName = (t: Tile) => t.name || watchedLabel(t.config) || 'tile';

// place keeps a tile on the 24-column grid: at least a cell, no wider than
// the grid, never left of its first column or above its first row.
// A tile resized at the right edge grows no wider (rather than moving).
function place(t: Tile, x: number, y: number, w: number, h: number, sizing = false): Tile {
  x = Math.min(23, Math.max(0, x));
  w = Math.min(sizing ? 24 - x : 24, Math.max(1, w));
  x = Math.min(24 - w, x);
  return { ...t, x, y: Math.max(0, y), w, h: Math.max(1, h) };
}

// The auto-refresh choices (the URL's refresh=).
const refreshes = [
  { value: '', label: 'Off', ms: 0 },
  { value: '10s', label: '10 s', ms: 10_000 },
  { value: '30s', label: '30 s', ms: 30_000 },
  { value: '1m', label: '1 m', ms: 60_000 },
  { value: '5m', label: '5 m', ms: 300_000 },
];

function isChart(c: TileConfig) {
  return !c.configType && chartItems(c).length > 0 && ['line', 'stacked_bar', 'table', 'number', 'pie', 'bar'].includes(c.displayType);
}

// asRatio: the tile draws its first select item over its second.
function isRatio(c: TileConfig) {
  return isChart(c) && c.asRatio === true && chartItems(c).length === 2;
}

// formulasOf are a chart tile's formulas: series the API computes from
// its select items (A the first).
function formulasOf(c: TileConfig): Formula[] {
  return isChart(c) && !isRatio(c) ? c.formulas ?? [] : [];
}

// operandsShown: whether a formula tile draws its select items beside its
// formulas (a number tile shows its one formula alone).
function operandsShown(c: TileConfig) {
  return !formulasOf(c).length || (c.displayType !== 'number' && c.showOperandSeries !== false);
}

// formulaItem stands for a formula's series: named by its alias or its
// expression, and not additive (its summary is its latest bucket).
function formulaItem(f: Formula): SelectItem {
  return { alias: f.alias || f.expression, where: '', whereLanguage: 'lucene' };
}

// drawnItems are what a chart tile draws, a line (or column) each: its
// select items, its formulas' series, or both.
function drawnItems(c: TileConfig): SelectItem[] {
  const fs = formulasOf(c).map(formulaItem);
  return operandsShown(c) ? [...chartItems(c), ...fs] : fs;
}

// ratioItem stands for a ratio tile's one line: named after both items,
// and not additive (a ratio's summary is its latest bucket).
function ratioItem(items: SelectItem[]): SelectItem {
  return { alias: `${label(items[0])} / ${label(items[1])}`, where: '', whereLanguage: 'lucene' };
}


// splitGroupBy splits a tile's groupBy at its top-level commas (a
// function's arguments keep theirs), as dashboards.SplitGroupBy does.
function splitGroupBy(s?: string): string[] {
  const out: string[] = [];
  let depth = 0, quote = '', cur = '';
  for (const ch of s ?? '') {
    if (quote) { if (ch === quote) quote = ''; }
    else if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) { if (cur.trim()) out.push(cur.trim()); cur = ''; continue; }
    cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

export interface Series { stepMs: number; lines: Line[]; perItem: Line[][] }

// seriesPerRequest is how many series the API takes in one request
// (HyperDX's bound); a tile may have more select items.
const seriesPerRequest = 5;

// runTile asks /api/v2/charts/series for a chart tile's select items over
// the range, one series per item (five to a request, their rows merged by
// bucket and group), and turns its rows (one per bucket and group) into a
// line per item and group.
export async function runTile(c: TileConfig, from: number, to: number, signal?: AbortSignal): Promise<Series> {
  const items = chartItems(c);
  const groupBy = splitGroupBy(c.groupBy);
  const one = (s: SelectItem) => s.query ? { sourceId: c.sourceId, query: s.query }
    : {
      sourceId: c.sourceId, aggFn: s.aggFn, field: s.valueExpression ?? '', level: s.level ?? 0, where: s.where ?? '', whereLanguage: s.whereLanguage || 'lucene', groupBy,
      ...(s.metricName ? { metricName: s.metricName, metricDataType: s.metricType ?? '' } : {}),
      ...(s.periodAggFn ? { periodAggFn: s.periodAggFn } : {}),
      ...(s.alias ? { alias: s.alias } : {}),
    };
  const having = c.displayType === 'table' ? c.having?.trim() ?? '' : '';
  if (having) {
    // A table's having keeps the groups whose values over the whole
    // range satisfy it: the API answers those values, one row per group
    // kept, in one request (the having may name any item's alias).
    if (items.length > seriesPerRequest) throw new Error(`a table's having is applied over at most ${seriesPerRequest} select items; this one has ${items.length}`);
    // A ratio is the formula A / B there.
    const ratio = isRatio(c);
    const computed = ratio ? [{ expression: 'A / B' }] : formulasOf(c).map((f) => ({ expression: f.expression }));
    const a = await callWhole<{ data: Parameters<typeof linesOf>[1]; granularity: string }>('POST', '/api/v2/charts/series', {
      startTime: from, endTime: to, having, series: items.map(one), ...(computed.length ? { formulas: computed } : {}),
    }, signal);
    let perItem = linesOf([...items, ...(ratio ? [ratioItem(items)] : formulasOf(c).map(formulaItem))], a.data ?? [], groupBy);
    if (ratio || !operandsShown(c)) perItem = perItem.slice(items.length);
    if ((ratio ? 1 : drawnItems(c).length) === 1 && items.length + computed.length > 1) {
      // One column: its rows named by the group alone, as a one-item tile's.
      perItem = perItem.map((ls) => ls.map((l) => ({ ...l, group: l.group.slice(1) })));
    }
    return { stepMs: to - from, lines: perItem.flat(), perItem };
  }
  if (isRatio(c)) {
    // The API divides the first series by the second per bucket and
    // group (HyperDX's seriesReturnType ratio): one line per group.
    const a = await callWhole<{ data: Parameters<typeof linesOf>[1]; granularity: string }>('POST', '/api/v2/charts/series', {
      startTime: from, endTime: to, granularity: c.granularity || 'auto', fill: true, seriesReturnType: 'ratio', series: items.map(one),
    }, signal);
    const perItem = linesOf([ratioItem(items)], a.data ?? [], groupBy);
    return { stepMs: goDuration(a.granularity ?? ''), lines: perItem.flat(), perItem };
  }
  const formulas = formulasOf(c);
  if (formulas.length) {
    // The API computes the formulas over the series of one request, which
    // takes all of a tile's select items when it carries formulas.
    const a = await callWhole<{ data: Parameters<typeof linesOf>[1]; granularity: string }>('POST', '/api/v2/charts/series', {
      startTime: from, endTime: to, granularity: c.granularity || 'auto', fill: true, series: items.map(one),
      formulas: formulas.map((f) => ({ expression: f.expression })),
    }, signal);
    const drawn = drawnItems(c);
    let perItem = linesOf([...items, ...formulas.map(formulaItem)], a.data ?? [], groupBy);
    if (!operandsShown(c)) perItem = perItem.slice(items.length);
    if (drawn.length === 1 && items.length + formulas.length > 1) {
      // One line per group: named by the group alone, as a one-item tile's.
      perItem = perItem.map((ls) => ls.map((l) => ({ ...l, group: l.group.slice(1) })));
    }
    return { stepMs: goDuration(a.granularity ?? ''), lines: perItem.flat(), perItem };
  }
  const chunks: SelectItem[][] = [];
  for (let i = 0; i < items.length; i += seriesPerRequest) chunks.push(items.slice(i, i + seriesPerRequest));
  const answers = await Promise.all(chunks.map((chunk) => callWhole<{ data: Parameters<typeof linesOf>[1]; granularity: string }>('POST', '/api/v2/charts/series', {
    // fill: every bucket of the range, so a count's line falls to 0.
    startTime: from, endTime: to, granularity: c.granularity || 'auto', fill: true,
    // A Datadog query carries its own grouping (by {…}): the API takes it
    // in place of aggFn, field, where and groupBy.
    series: chunk.map(one),
  }, signal)));
  const rows = answers.length === 1 ? answers[0].data ?? [] : mergeSeries(answers.map((a) => a.data ?? []), seriesPerRequest);
  const perItem = linesOf(items, rows, groupBy);
  return { stepMs: goDuration(answers[0]?.granularity ?? ''), lines: perItem.flat(), perItem };
}

// runHeatmap asks /api/v2/charts/heatmap for a heatmap tile's cells.
export async function runHeatmap(c: TileConfig, from: number, to: number, signal?: AbortSignal): Promise<{ cells: Cells; stepMs: number }> {
  const s = heatmapItem(c);
  const a = await callWhole<{ data: Cells; granularity: string }>('POST', '/api/v2/charts/heatmap', {
    startTime: from, endTime: to, granularity: c.granularity || 'auto', sourceId: c.sourceId, valueExpression: s.valueExpression,
    ...(s.countExpression ? { countExpression: s.countExpression } : {}), heatmapScaleType: s.heatmapScaleType || 'log',
    where: c.where ?? '', whereLanguage: c.whereLanguage || 'lucene',
  }, signal);
  return { cells: a.data, stepMs: goDuration(a.granularity ?? '') };
}

// patternSample is how many of the newest events an event-patterns tile
// groups.
const patternSample = 1000;

// runPatterns groups the newest events of an event-patterns tile by the
// shape of their message (the select's first column, else the source's
// body: a span's name on a trace source), through POST /api/v2/search.
export async function runPatterns(c: TileConfig, from: number, to: number, signal?: AbortSignal): Promise<{ patterns: Pattern[]; events: number; field: string }> {
  const src = (await getSources()).find((x) => x.id === c.sourceId);
  const chosen = typeof c.select === 'string' ? c.select.split(',')[0].trim() : '';
  const field = chosen || src?.bodyColumn || 'Body';
  const r = await callWhole<{ data: Record<string, unknown>[] }>('POST', '/api/v2/search', {
    sourceId: c.sourceId, startTime: from, endTime: to, where: c.where ?? '', whereLanguage: c.whereLanguage || 'lucene', select: field, maxResults: patternSample,
  }, signal);
  const rows = r.data ?? [];
  const messages = rows.map((row) => row[field]).filter((v) => v !== undefined && v !== null && v !== '').map(String);
  return { patterns: groupPatterns(messages), events: messages.length, field };
}

// TileView draws one tile, its title always on top; tables scroll
// inside the tile.
// displayWords names a tile's kind as the editor's Display menu does
// (“event patterns”, not the config's event_patterns).
const displayWords = (t: string) => (displays.find(([v]) => v === t)?.[1] ?? t).toLowerCase();

export function TileView({ tile, from, to, tools, onZoom }: { tile: Tile; from: number; to: number; tools?: ComponentChildren; onZoom?: (from: number, to: number) => void }) {
  const c = tile.config;
  const items = chartItems(c);
  const chart = isChart(c);
  const heat = c.displayType === 'heatmap' && !c.configType;
  const hm = heatmapItem(c);
  // A heatmap of a span's Duration without a unit is in nanoseconds,
  // what the exporter writes.
  const unit = unitOf(c.numberFormat ?? (items[0] as { numberFormat?: unknown } | undefined)?.numberFormat) || (heat && hm.valueExpression === 'Duration' ? 'ns' : '');
  const [data, setData] = useState<Series | null>(null);
  const [cells, setCells] = useState<{ cells: Cells; stepMs: number } | null>(null);
  const patterned = c.displayType === 'event_patterns' && !c.configType;
  const [patterns, setPatterns] = useState<Awaited<ReturnType<typeof runPatterns>> | null>(null);
  const [error, setError] = useState('');
  const key = JSON.stringify(c);
  useEffect(() => {
    if (!chart && !heat && !patterned) return;
    // The last answer stays drawn until the next arrives (an auto-refresh
    // does not blank the board).
    const ac = new AbortController();
    const done = (e: Error) => { if (!ac.signal.aborted) setError(e.message); };
    if (heat) runHeatmap(c, from, to, ac.signal).then((d) => { setCells(d); setError(''); }).catch(done);
    else if (patterned) runPatterns(c, from, to, ac.signal).then((d) => { setPatterns(d); setError(''); }).catch(done);
    else runTile(c, from, to, ac.signal).then((d) => { setData(d); setError(''); }).catch(done);
    return () => ac.abort();
  }, [key, from, to]);
  // A formula drawn alone is not its first operand's where.
  const what = chart ? (isRatio(c) ? label(ratioItem(items)) : drawnItems(c).map(label).join(', ')) + (items[0].where && operandsShown(c) ? ` · ${items[0].where}` : '')
    : heat ? `count by ${hm.valueExpression}${c.where ? ` · ${c.where}` : ''}` : c.configType ? 'SQL' : displayWords(c.displayType);
  // An unnamed tile's title is already what it draws: not said twice.
  const head = <div class="tile-head"><strong class="tile-title" title={tile.name || what}>{tile.name || what}</strong><span class="muted small tile-what">{tile.name ? what : ''}</span>{tools}</div>;
  let content: ComponentChildren;
  if (c.configType) {
    content = <><p class="muted small">A raw-SQL tile: kept as written, not run here (it would run with the API's own credentials).</p><pre class="small">{c.sqlTemplate}</pre></>;
  } else if (c.displayType === 'alerts') {
    content = <AlertListTile c={c} from={from} to={to} />;
  } else if (c.displayType === 'markdown') {
    content = <Markdown source={c.markdown ?? ''} />;
  } else if (c.displayType === 'search') {
    const to2 = `/search/logs?q=${encodeURIComponent(c.where ?? '')}`;
    content = <p class="small"><a href={to2} onClick={(e) => onLink(e, to2)}>Open the search →</a></p>;
  } else if (error) {
    content = <p class="error small" data-testid="tile-error">{error}</p>;
  } else if (patterned) {
    content = patterns ? <PatternTable p={patterns} /> : <p class="muted small">Loading…</p>;
  } else if (heat) {
    content = cells ? <Heatmap cells={cells.cells} stepMs={cells.stepMs} unit={unit} height={Math.max(100, tile.h * 82 - 70 - 20)} /> : <p class="muted small">Loading…</p>;
  } else if (!data) {
    content = <p class="muted small">Loading…</p>;
  } else {
    // A formula drawn alone is in its own unit (A / B * 100 is no longer
    // the items' bytes).
    const drawnUnit = isRatio(c) ? '' : operandsShown(c) ? unit : unitOf(c.numberFormat ?? formulasOf(c)[0].numberFormat);
    const drawn = isRatio(c) ? [ratioItem(items)] : drawnItems(c);
    // An answer without a value would draw bare axes (or an empty table):
    // the tile says so instead. A number tile's count of 0 is its number.
    content = c.displayType !== 'number' && noData(drawn, data.perItem) ? <NoData />
      // A line or bar chart's legend (its series and hover values) sits
      // under the plot, inside the tile: the chart fits both in its height.
      : <TileData c={c} items={drawn} data={data} unit={drawnUnit} height={Math.max(100, tile.h * 82 - 70)} onZoom={onZoom} />;
  }
  return <>{head}<div class="tile-body">{content}</div></>;
}

// PatternTable lists an event-patterns tile's shapes, the most frequent
// first, each with its count, its share and a message of that shape.
function PatternTable({ p }: { p: Awaited<ReturnType<typeof runPatterns>> }) {
  if (!p.events) return <p class="muted small" data-testid="patterns-empty">No events in the range.</p>;
  return (
    <div class="tile-scroll">
      <p class="muted small" data-testid="patterns-note">{`${p.patterns.length.toLocaleString()} patterns in the newest ${p.events.toLocaleString()} events' ${p.field} (numbers, ids and quoted values masked as <*>)`}</p>
      <table class="plain small" data-testid="patterns">
        <thead><tr><th>Pattern</th><th class="num">Events</th><th class="num">Share</th></tr></thead>
        <tbody>{p.patterns.map((x) => (
          <tr title={x.sample}><td class="mono">{x.pattern}</td><td class="num">{x.count.toLocaleString()}</td><td class="num">{`${Math.round((x.count / p.events) * 1000) / 10}%`}</td></tr>
        ))}</tbody>
      </table>
    </div>
  );
}

// summary is a line's one value: count and sum add up over the range;
// any other aggregation cannot be added, so it is the latest bucket's.
function summary(aggFn: string, l?: Line): number | null {
  const vs = (l?.points ?? []).map((p) => p[1]).filter((v): v is number => v !== null);
  if (!vs.length) return null;
  return ['count', 'sum'].includes(aggFn) ? vs.reduce((a, b) => a + b, 0) : vs[vs.length - 1];
}

function NoData() {
  return <p class="muted tile-empty" data-testid="tile-empty">No data in this range</p>;
}

function TileData({ c, items, data, unit, height, onZoom }: { c: TileConfig; items: SelectItem[]; data: Series; unit: Unit; height: number; onZoom?: (from: number, to: number) => void }) {
  const additive = ['count', 'sum'].includes(items[0].aggFn ?? '');
  if (c.displayType === 'number') {
    const v = summary(items[0].aggFn ?? '', data.perItem[0][0]);
    if (v === null) return <NoData />;
    return <><div class="big-number" data-testid="number">{fmtValue(v, unit)}</div><div class="muted small">{additive ? 'total over the range' : 'latest bucket'}</div></>;
  }
  if (['table', 'pie', 'bar'].includes(c.displayType)) {
    // A row per group, a column per select item.
    const groups = new Map<string, string[]>();
    data.perItem.forEach((ls) => ls.forEach((l) => {
      const g = items.length > 1 ? l.group.slice(1) : l.group;
      groups.set(g.join('\u0000'), g);
    }));
    const cell = (i: number, g: string[]) => {
      const l = data.perItem[i].find((x) => (items.length > 1 ? x.group.slice(1) : x.group).join('\u0000') === g.join('\u0000'));
      return fmtValue(summary(items[i].aggFn ?? '', l), unit);
    };
    const groupCols = splitGroupBy(c.groupBy);
    // Without a groupBy a row is named by its groups' labels: a Datadog
    // query's by {…} groups it itself.
    const rowName = (g: string[]) => groupCols.length ? g.map((x) => x || '(empty)').join(', ') : g.join(', ') || label(items[0]);
    if (c.displayType === 'pie') {
      // A pie is HyperDX's one select item over the range: the table's
      // first column of numbers as slices. When no group is above zero
      // there is nothing to draw, and the table shows the numbers.
      const slices = [...groups.values()].map((g) => {
        const l = data.perItem[0].find((x) => (items.length > 1 ? x.group.slice(1) : x.group).join('\u0000') === g.join('\u0000'));
        return { name: rowName(g), value: summary(items[0].aggFn ?? '', l) };
      });
      if (slices.some((x) => x.value !== null && x.value > 0)) return <PieChart groups={slices} unit={unit} />;
    }
    return (
      <div class="tile-scroll">
        <table class="plain small" data-testid="tile-table">
          <thead><tr>{groupCols.length ? groupCols.map((g) => <th>{g}</th>) : <th />}{items.map((s) => <th class="num">{label(s)}</th>)}</tr></thead>
          <tbody>{[...groups.values()].map((g) => (
            <tr>{groupCols.length ? g.map((x) => <td>{x || '(empty)'}</td>) : <td>{g.join(', ') || 'value'}</td>}{items.map((_, i) => <td class="num">{cell(i, g)}</td>)}</tr>
          ))}</tbody>
        </table>
      </div>
    );
  }
  // A line without a group is the tile's one drawn item (a ratio's
  // "errors / spans"): the legend names it so.
  return <Chart lines={data.lines} stepMs={data.stepMs} bars={c.displayType === 'stacked_bar'} height={height} unit={unit} onZoom={onZoom} name={label(items[0])} fit />;
}

// TileEditor edits one tile's config with a live preview of what it will
// show; Save writes the dashboard through the API, whose message (a where
// the translator refuses, a missing field) is shown beside the form.
function TileEditor({ tile, sources, from, to, onSave, onCancel }: { tile: Tile; sources: Source[]; from: number; to: number; onSave: (t: Tile) => Promise<void>; onCancel: () => void }) {
  const [t, setT] = useState<Tile>(() => JSON.parse(JSON.stringify(tile)));
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<Tile>(t);
  const c = t.config;
  const item: SelectItem = chartItems(c)[0] ?? { aggFn: 'count', where: '', whereLanguage: 'lucene' };
  const markdown = c.displayType === 'markdown';
  // An event-patterns tile takes what a search tile does: a source, a
  // where, the column read.
  const search = c.displayType === 'search' || c.displayType === 'event_patterns';
  const heat = c.displayType === 'heatmap';
  const hm = heatmapItem(c);
  // A metric source's tile may carry a Datadog metric query, which
  // replaces the aggregation, field, where and group by.
  const metric = sources.find((x) => x.id === c.sourceId)?.kind === 'metric';
  const byQuery = metric && item.query !== undefined;
  // The preview follows the form after a pause in typing.
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => {
    clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setPreview(tileOut(t)), 400);
    return () => clearTimeout(timer.current);
  }, [JSON.stringify(t)]);
  const setC = (patch: Partial<TileConfig>) => setT({ ...t, config: { ...c, ...patch } });
  const setItem = (patch: Partial<SelectItem>) => {
    const rest = chartItems(c).slice(1);
    setC({ select: [{ ...item, ...patch }, ...rest] });
  };
  const unit = unitOf(c.numberFormat);
  return (
    <div class="modal-back">
      <div class="modal card tile-editor" role="dialog" aria-label="Tile editor" data-testid="tile-editor">
        <form onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          try {
            // The dashboard API stores a where as written; the chart API
            // checks it, so a tile it would refuse is not saved.
            const out = tileOut(t);
            if (isChart(out.config)) await runTile(out.config, from, to);
            if (out.config.displayType === 'heatmap') await runHeatmap(out.config, from, to);
            await onSave(out);
          } catch (err) { setError(messageOf(err)); } finally { setBusy(false); }
        }}>
          <div class="editor-cols">
            <div class="editor-form">
              <label>Title<input name="tile-name" value={t.name} onInput={(e) => setT({ ...t, name: e.currentTarget.value })} /></label>
              <label>Display<select name="display" value={c.displayType} onChange={(e) => {
                const v = e.currentTarget.value;
                // A having is a table's only (the API refuses it elsewhere).
                const having = v === 'table' ? c.having : undefined;
                if (v === 'markdown') setC({ displayType: v, markdown: c.markdown ?? '', having });
                else if (v === 'alerts') setC({ displayType: v, having });
                // A search tile lists events: its select is the columns.
                else if (v === 'search' || v === 'event_patterns') setC({ displayType: v, select: '', where: item.where ?? '', whereLanguage: item.whereLanguage || 'lucene', sourceId: c.sourceId || sources[0]?.id, having });
                // A heatmap counts a trace source's spans by a value.
                else if (v === 'heatmap') setC({ displayType: v, select: [{ valueExpression: 'Duration' }], where: item.where ?? '', whereLanguage: item.whereLanguage || 'lucene', sourceId: sources.find((x) => x.kind === 'trace')?.id ?? c.sourceId, groupBy: undefined, asRatio: undefined, having });
                else setC({ displayType: v as TileConfig['displayType'], select: chartItems(c).length ? chartItems(c) : [item], sourceId: c.sourceId || sources[0]?.id, having });
              }}>{displays.map(([v, l]) => <option value={v}>{l}</option>)}</select></label>
              {heat ? (
                <>
                  <label>Source<select name="source" value={c.sourceId} onChange={(e) => setC({ sourceId: e.currentTarget.value })}>
                    {sources.filter((x) => x.kind === 'trace').map((x) => <option value={x.id}>{x.name}</option>)}
                  </select></label>
                  <div class="pair">
                    <label>Value<input name="valueExpression" placeholder="Duration" value={hm.valueExpression} onInput={(e) => setC({ select: [{ ...hm, valueExpression: e.currentTarget.value }] })} /></label>
                    <label>Scale<select name="heatmapScaleType" value={hm.heatmapScaleType || 'log'} onChange={(e) => setC({ select: [{ ...hm, heatmapScaleType: e.currentTarget.value as HeatmapItem['heatmapScaleType'] }] })}>
                      <option value="log">log</option><option value="linear">linear</option>
                    </select></label>
                  </div>
                  <label class="wide">Where
                    <span class="where-row">
                      <select name="whereLanguage" aria-label="Where language" value={c.whereLanguage || 'lucene'} onChange={(e) => setC({ whereLanguage: e.currentTarget.value as TileConfig['whereLanguage'] })}>
                        {languages.map((l) => <option value={l}>{l}</option>)}
                      </select>
                      <input name="where" class="mono" placeholder="ServiceName:api" value={c.where ?? ''} onInput={(e) => setC({ where: e.currentTarget.value })} />
                    </span>
                  </label>
                </>
              ) : markdown ? (
                <label class="wide">Markdown<textarea name="markdown" rows={10} value={c.markdown ?? ''} onInput={(e) => setC({ markdown: e.currentTarget.value })} /></label>
              ) : c.displayType === 'alerts' ? (
                <AlertListFields c={c} setC={setC} />
              ) : search ? (
                <>
                  <label>Source<select name="source" value={c.sourceId} onChange={(e) => setC({ sourceId: e.currentTarget.value })}>
                    {sources.filter((x) => x.kind !== 'metric').map((x) => <option value={x.id}>{x.name}</option>)}
                  </select></label>
                  <label class="wide">Where
                    <span class="where-row">
                      <select name="whereLanguage" aria-label="Where language" value={c.whereLanguage || 'lucene'} onChange={(e) => setC({ whereLanguage: e.currentTarget.value as TileConfig['whereLanguage'] })}>
                        {languages.map((l) => <option value={l}>{l}</option>)}
                      </select>
                      <input name="where" class="mono" placeholder="level:error service:api" value={c.where ?? ''} onInput={(e) => setC({ where: e.currentTarget.value })} />
                    </span>
                  </label>
                  {c.displayType === 'search'
                    ? <label class="wide">Columns<input name="columns" placeholder="Timestamp, ServiceName, Body" value={typeof c.select === 'string' ? c.select : ''} onInput={(e) => setC({ select: e.currentTarget.value })} /></label>
                    : <label class="wide">Message column (the source's body when empty)<input name="columns" placeholder="Body" value={typeof c.select === 'string' ? c.select : ''} onInput={(e) => setC({ select: e.currentTarget.value })} /></label>}
                </>
              ) : (
                <>
                  <label>Source<select name="source" value={c.sourceId} onChange={(e) => setC({ sourceId: e.currentTarget.value })}>
                    {sources.map((s) => <option value={s.id}>{s.name}</option>)}
                  </select></label>
                  {metric && (
                    <label class="wide">Metric query (Datadog syntax, optional)<input name="query" class="mono" placeholder="avg:system.cpu.user{env:prod} by {host}"
                      value={item.query ?? ''} onInput={(e) => { const q = e.currentTarget.value; setItem(q ? { query: q } : { query: undefined }); }} /></label>
                  )}
                  {!byQuery && <>
                  <div class="pair">
                    <label>Aggregation<select name="aggFn" value={item.aggFn} onChange={(e) => {
                      const v = e.currentTarget.value;
                      setItem({ aggFn: v as SelectItem['aggFn'], level: v === 'quantile' ? item.level || 0.95 : undefined, valueExpression: v === 'count' ? undefined : item.valueExpression });
                    }}>{aggFns.map((a) => <option value={a}>{a}</option>)}</select></label>
                    {item.aggFn === 'quantile' && (
                      <label>Level<select name="level" value={String(item.level ?? 0.95)} onChange={(e) => setItem({ level: Number(e.currentTarget.value) })}>
                        {[0.5, 0.75, 0.9, 0.95, 0.99, 0.999].map((l) => <option value={String(l)}>p{l * 100}</option>)}
                      </select></label>
                    )}
                  </div>
                  {item.metricName && item.metricType === 'gauge' && (
                    <label class="check"><input type="checkbox" name="periodAggFn" checked={item.periodAggFn === 'delta'}
                      onChange={(e) => setItem({ periodAggFn: e.currentTarget.checked ? 'delta' : undefined })} />
                      {`Change of ${item.metricName} over each bucket (delta), not its value`}</label>
                  )}
                  {item.aggFn !== 'count' && (
                    <label>Field<input name="field" placeholder="Duration, LogAttributes['bytes'], …" value={item.valueExpression ?? ''} onInput={(e) => setItem({ valueExpression: e.currentTarget.value })} /></label>
                  )}
                  <label>Alias (its name in the legend, a formula or a having)<input name="alias" placeholder="errors" value={item.alias ?? ''}
                    onInput={(e) => setItem({ alias: e.currentTarget.value || undefined })} /></label>
                  <label class="wide">Where
                    <span class="where-row">
                      <select name="whereLanguage" aria-label="Where language" value={item.whereLanguage || 'lucene'} onChange={(e) => setItem({ whereLanguage: e.currentTarget.value as SelectItem['whereLanguage'] })}>
                        {languages.map((l) => <option value={l}>{l}</option>)}
                      </select>
                      <input name="where" class="mono" placeholder={item.whereLanguage === 'sql' ? "SeverityText = 'ERROR'" : 'level:error service:api'} value={item.where} onInput={(e) => setItem({ where: e.currentTarget.value })} />
                    </span>
                  </label>
                  <label>Group by<input name="groupBy" placeholder="ServiceName, SeverityText" value={c.groupBy ?? ''} onInput={(e) => setC({ groupBy: e.currentTarget.value })} /></label>
                  {c.displayType === 'table' && (
                    <label class="wide">Having: the groups shown (SQL over aggregates and item aliases, optional)
                      <input name="having" class="mono" placeholder="count() > 10" value={c.having ?? ''} onInput={(e) => setC({ having: e.currentTarget.value || undefined })} /></label>
                  )}
                  </>}
                  {['line', 'stacked_bar', 'table', 'number'].includes(c.displayType) && !c.asRatio && (
                    <>
                      <label class="wide">{`Formula over ${chartItems(c).map((s, i) => `${String.fromCharCode(65 + i)} = ${label(s)}`).join(', ')} (optional)`}
                        <input name="formula" class="mono" placeholder="A * 100" value={c.formulas?.[0]?.expression ?? ''} onInput={(e) => {
                          const expression = e.currentTarget.value;
                          const rest = (c.formulas ?? []).slice(1);
                          setC({ formulas: expression ? [{ ...c.formulas?.[0], expression }, ...rest] : rest.length ? rest : undefined });
                        }} /></label>
                      {c.formulas?.length && c.displayType !== 'number' ? (
                        <label class="check"><input type="checkbox" name="showOperandSeries" checked={c.showOperandSeries !== false}
                          onChange={(e) => setC({ showOperandSeries: e.currentTarget.checked ? undefined : false })} />Draw the select items beside the formula</label>
                      ) : null}
                    </>
                  )}
                  <div class="pair">
                    <label>Granularity<select name="granularity" value={c.granularity || 'auto'} onChange={(e) => setC({ granularity: e.currentTarget.value === 'auto' ? undefined : e.currentTarget.value as TileConfig['granularity'] })}>
                      {granularities.map((g) => <option value={g}>{g}</option>)}
                    </select></label>
                    <label>Unit<select name="unit" value={unit} onChange={(e) => setC({ numberFormat: numberFormat(e.currentTarget.value as Unit) })}>
                      {units.map((u) => <option value={u.value}>{u.label}</option>)}
                    </select></label>
                  </div>
                </>
              )}
              {error && <p class="error small" role="alert" data-testid="editor-error">{error}</p>}
            </div>
            <div class="editor-preview card tile" data-testid="tile-preview">
              <TileView tile={preview} from={from} to={to} />
            </div>
          </div>
          <div class="editor-actions">
            <button type="button" onClick={onCancel}>Cancel</button>
            <button class="primary" type="submit" data-action="save-tile" disabled={busy}>{busy ? 'Saving…' : 'Save tile'}</button>
          </div>
        </form>
      </div>
    </div>
  );
}

// tileOut is the tile as the API takes it: a markdown tile keeps only its
// text, a chart drops what it does not use.
function tileOut(t: Tile): Tile {
  const c = t.config;
  if (c.displayType === 'markdown') return { ...t, config: { displayType: 'markdown', markdown: c.markdown ?? '' } };
  if (c.displayType === 'alerts') return { ...t, config: alertListConfig(c) };
  if (c.displayType === 'search' || c.displayType === 'event_patterns') {
    return { ...t, config: { displayType: c.displayType, sourceId: c.sourceId, select: typeof c.select === 'string' ? c.select : '', where: c.where ?? '', whereLanguage: c.whereLanguage || 'lucene' } };
  }
  if (c.displayType === 'heatmap') {
    const hm = heatmapItem(c);
    return { ...t, config: { displayType: 'heatmap', sourceId: c.sourceId, select: [hm], where: c.where ?? '', whereLanguage: c.whereLanguage || 'lucene', ...(c.numberFormat ? { numberFormat: c.numberFormat } : {}) } };
  }
  // What the editor does not change is kept as it came.
  if (c.configType) return t;
  const out: TileConfig = { ...c };
  delete out.markdown;
  if (!out.granularity || out.granularity === 'auto') delete out.granularity; // auto is the default
  if (!out.numberFormat) delete out.numberFormat;
  if (!out.groupBy) delete out.groupBy;
  if (!out.formulas?.length) { delete out.formulas; delete out.showOperandSeries; }
  out.select = chartItems(c).map((s) => {
    // A Datadog metric query (a tile from the metrics explorer) is kept
    // whole: it replaces aggFn, field and where.
    if (s.query) return { query: s.query, whereLanguage: s.whereLanguage || 'lucene', ...(s.alias ? { alias: s.alias } : {}) };
    const o: SelectItem = { aggFn: s.aggFn, where: s.where ?? '', whereLanguage: s.whereLanguage || 'lucene' };
    if (s.aggFn !== 'count' && s.valueExpression) o.valueExpression = s.valueExpression;
    if (s.aggFn === 'quantile') o.level = s.level ?? 0.95;
    if (s.alias) o.alias = s.alias;
    if (s.metricName) { o.metricName = s.metricName; o.metricType = s.metricType; }
    // A gauge's delta per bucket (HyperDX's periodAggFn) is what the tile
    // draws and its alert judges: saving the tile keeps it.
    if (s.periodAggFn) o.periodAggFn = s.periodAggFn;
    return o;
  });
  return { ...t, config: out };
}
