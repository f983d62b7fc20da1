import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api';
import { Chart, Line } from '../components/chart';
import { TimePicker } from '../components/timepicker';
import { navigate, onLink, useLocation } from '../router';
import { resolveRange } from '../time';

interface TileConfig {
  source: string;
  aggFn: string;
  field?: string;
  level?: number;
  where: string;
  whereLanguage: string;
  groupBy: string[];
  displayType: string;
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

function TileView({ tile, from, to }: { tile: Tile; from: number; to: number }) {
  const c = tile.config;
  const [data, setData] = useState<{ stepMs: number; lines: Line[] } | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (c.displayType === 'search') return;
    setData(null);
    setError('');
    post<{ stepMs: number; lines: Line[] }>('/api/series', {
      sourceId: c.source, startTime: from, endTime: to, where: c.where, whereLanguage: c.whereLanguage,
      aggFn: c.aggFn, field: c.field ?? '', level: c.level ?? 0, groupBy: c.groupBy, granularity: 'auto',
    }).then(setData).catch((e) => setError(e.message));
  }, [tile.id, from, to]);
  const head = <div class="tile-head"><strong>{tile.name || c.aggFn}</strong><span class="muted small">{c.aggFn}{c.field ? `(${c.field})` : ''}{c.where ? ` · ${c.where}` : ''}</span></div>;
  if (c.displayType === 'search') {
    const to2 = `/search/logs?q=${encodeURIComponent(c.where)}`;
    return <>{head}<p class="small"><a href={to2} onClick={(e) => onLink(e, to2)}>Open the search →</a></p></>;
  }
  if (error) return <>{head}<p class="error small">{error}</p></>;
  if (!data) return <>{head}<p class="muted small">Loading…</p></>;
  const additive = ['count', 'sum'].includes(c.aggFn);
  const total = (l: Line) => {
    const vs = l.points.map((p) => p[1]).filter((v): v is number => v !== null);
    if (!vs.length) return null;
    return additive ? vs.reduce((a, b) => a + b, 0) : vs[vs.length - 1];
  };
  if (c.displayType === 'number') {
    const v = data.lines.length ? total(data.lines[0]) : null;
    return <>{head}<div class="big-number">{v === null ? '–' : fmt(v)}</div><div class="muted small">{additive ? 'over the range' : 'latest bucket'}</div></>;
  }
  if (c.displayType === 'table') {
    return (
      <>{head}
        <table class="plain small">
          <tbody>{data.lines.map((l) => <tr><td>{l.group.join(' · ') || 'value'}</td><td class="num">{fmt(total(l))}</td></tr>)}</tbody>
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
