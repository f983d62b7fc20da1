import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api';
import { Chart, Line } from '../components/chart';
import { TimePicker } from '../components/timepicker';
import { navigate, onLink, useLocation } from '../router';
import { resolveRange } from '../time';

// SelectItem is one aggregated series of a chart tile (HyperDX's shape).
interface SelectItem {
  aggFn: string;
  valueExpression?: string;
  alias?: string;
  level?: number;
  where: string;
  whereLanguage: string;
}

// TileConfig is a tile as the API answers it: a chart's select items, a
// search tile's columns (select as a string), markdown, or raw SQL.
interface TileConfig {
  configType?: string;
  displayType: string;
  sourceId?: string;
  select?: SelectItem[] | string;
  groupBy?: string;
  where?: string;
  markdown?: string;
  sqlTemplate?: string;
}

interface Tile {
  id: string;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  config: TileConfig;
}

interface Dashboard {
  id: string;
  name: string;
  tags: string[];
  tiles: Tile[];
  updatedAt: string;
}

// DashboardsPage lists the team's dashboards (made through the REST API).
export function DashboardsPage() {
  const [list, setList] = useState<Dashboard[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => { get<Dashboard[]>('/api/dashboards').then(setList).catch((e) => setError(e.message)); }, []);
  return (
    <div class="page">
      <h1>Dashboards</h1>
      {error && <p class="error" role="alert">{error}</p>}
      {!list ? <p class="muted">Loading…</p> : list.length === 0 ? (
        <p class="muted">No dashboard yet. Create one with <code>POST /api/v2/dashboards</code> (see the REST API docs).</p>
      ) : (
        <table class="rows" data-testid="dashboards">
          <thead><tr><th>Name</th><th>Tiles</th><th>Tags</th></tr></thead>
          <tbody>
            {list.map((d) => (
              <tr onClick={() => navigate(`/dashboards/${d.id}`)}>
                <td><a href={`/dashboards/${d.id}`} onClick={(e) => onLink(e, `/dashboards/${d.id}`)}>{d.name}</a></td>
                <td>{d.tiles.length}</td>
                <td>{d.tags.map((t) => <span class="chip">{t}</span>)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

// DashboardPage draws a dashboard's tiles on its 24-column grid over one
// time range.
export function DashboardPage({ id }: { id: string }) {
  const loc = useLocation();
  const range = resolveRange(loc.searchParams, '1h');
  const [d, setD] = useState<Dashboard | null>(null);
  const [error, setError] = useState('');
  useEffect(() => { get<Dashboard>(`/api/dashboards/${encodeURIComponent(id)}`).then(setD).catch((e) => setError(e.message)); }, [id]);
  if (error) return <div class="page"><p class="error" role="alert">{error}</p></div>;
  if (!d) return <div class="page muted">Loading…</div>;
  return (
    <div class="page">
      <div class="row-between">
        <h1>{d.name}</h1>
        <TimePicker range={range} onChange={(r) => navigate(r.relative ? `${loc.pathname}?range=${r.relative}` : `${loc.pathname}?from=${r.from}&to=${r.to}`)} />
      </div>
      <div class="grid" data-testid="dashboard-grid">
        {d.tiles.map((t) => (
          <div class="card tile" style={{ gridColumn: `${t.x + 1} / span ${t.w}`, gridRow: `${t.y + 1} / span ${t.h}` }}>
            <TileView tile={t} from={range.from} to={range.to} />
          </div>
        ))}
      </div>
    </div>
  );
}

function label(s: SelectItem): string {
  return s.alias || `${s.aggFn}${s.valueExpression ? `(${s.valueExpression})` : ''}`;
}

function TileView({ tile, from, to }: { tile: Tile; from: number; to: number }) {
  const c = tile.config;
  const items = Array.isArray(c.select) ? c.select : [];
  const chart = !c.configType && items.length > 0;
  const [data, setData] = useState<{ stepMs: number; lines: Line[] } | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (!chart) return;
    setData(null);
    setError('');
    // One query per select item, over the tile's source and groupBy; with
    // several items each line is named by its item.
    Promise.all(items.map((s) => post<{ stepMs: number; lines: Line[] }>('/api/series', {
      sourceId: c.sourceId, startTime: from, endTime: to, where: s.where, whereLanguage: s.whereLanguage,
      aggFn: s.aggFn, field: s.valueExpression ?? '', level: s.level ?? 0, groupBy: c.groupBy ?? '', granularity: 'auto',
    }).then((d) => ({ ...d, lines: items.length > 1 ? d.lines.map((l) => ({ ...l, group: [label(s), ...l.group] })) : d.lines }))))
      .then((all) => setData({ stepMs: all[0].stepMs, lines: all.flatMap((d) => d.lines) }))
      .catch((e) => setError(e.message));
  }, [tile.id, from, to]);
  const what = chart ? items.map(label).join(', ') + (items[0].where ? ` · ${items[0].where}` : '') : c.configType ? 'SQL' : c.displayType;
  const head = <div class="tile-head"><strong>{tile.name || what}</strong><span class="muted small">{what}</span></div>;
  if (c.configType) {
    return <>{head}<p class="muted small">A raw-SQL tile: kept as written, not run here (it would run with the API's own credentials).</p><pre class="small">{c.sqlTemplate}</pre></>;
  }
  if (c.displayType === 'markdown') return <>{head}<div class="small prewrap">{c.markdown}</div></>;
  if (c.displayType === 'search') {
    const to2 = `/search/logs?q=${encodeURIComponent(c.where ?? '')}`;
    return <>{head}<p class="small"><a href={to2} onClick={(e) => onLink(e, to2)}>Open the search →</a></p></>;
  }
  if (error) return <>{head}<p class="error small">{error}</p></>;
  if (!data) return <>{head}<p class="muted small">Loading…</p></>;
  const additive = ['count', 'sum'].includes(items[0].aggFn);
  const total = (l: Line) => {
    const vs = l.points.map((p) => p[1]).filter((v): v is number => v !== null);
    if (!vs.length) return null;
    return additive ? vs.reduce((a, b) => a + b, 0) : vs[vs.length - 1];
  };
  if (c.displayType === 'number') {
    const v = data.lines.length ? total(data.lines[0]) : null;
    return <>{head}<div class="big-number">{v === null ? '–' : fmt(v)}</div><div class="muted small">{additive ? 'over the range' : 'latest bucket'}</div></>;
  }
  // Pie and categorical bar tiles are shown as the table of their groups.
  if (['table', 'pie', 'bar'].includes(c.displayType)) {
    return (
      <>{head}
        <table class="plain small">
          <tbody>{data.lines.map((l) => <tr><td>{l.group.length ? l.group.map((g) => g || '(empty)').join(' · ') : 'value'}</td><td class="num">{fmt(total(l))}</td></tr>)}</tbody>
        </table>
      </>
    );
  }
  return <>{head}<Chart lines={data.lines} stepMs={data.stepMs} bars={c.displayType === 'stacked_bar'} height={Math.max(120, tile.h * 70 - 60)} /></>;
}

function fmt(v: number | null): string {
  if (v === null) return '–';
  return Math.abs(v) >= 1000 ? Math.round(v).toLocaleString() : String(Math.round(v * 1000) / 1000);
}
