import { useEffect, useState } from 'preact/hooks';
import { get, messageOf, Source } from '../api';
import { appliesTo, DashboardFilter, metricOf, QueryFilter, queryFilters } from '../filters';
import { chartItems } from '../tiles';
import type { Schemas } from '../api';

type Tile = Schemas['Tile'];

// FilterBar shows a dashboard's filter dropdowns, each listing the values
// of its expression over the range (a log or trace source's frequent
// values; for a metric source, the tag's values on the first metric its
// tiles read). Choosing one narrows the tiles the filter applies to; the
// choice lives in the URL (f.<id>), so a filtered view is a link.
export function FilterBar({ filters, tiles, sources, from, to, chosen, onChoose, onRemove }: {
  filters: DashboardFilter[];
  tiles: Tile[];
  sources: Source[];
  from: number;
  to: number;
  chosen: Record<string, string>;
  onChoose: (id: string, value: string) => void;
  onRemove?: (id: string) => void;
}) {
  const shown = queryFilters(filters);
  if (!shown.length) return null;
  return (
    <div class="dash-filters" data-testid="dashboard-filters">
      {shown.map((f) => <FilterSelect key={f.id} f={f} tiles={tiles} kind={sources.find((s) => s.id === f.sourceId)?.kind}
        from={from} to={to} value={chosen[f.id ?? ''] ?? ''} onChoose={(v) => onChoose(f.id ?? '', v)} onRemove={onRemove && (() => onRemove(f.id ?? ''))} />)}
    </div>
  );
}

function FilterSelect({ f, tiles, kind, from, to, value, onChoose, onRemove }: {
  f: QueryFilter; tiles: Tile[]; kind?: string; from: number; to: number; value: string;
  onChoose: (v: string) => void; onRemove?: () => void;
}) {
  const [values, setValues] = useState<string[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    const ac = new AbortController();
    const range = { startTime: String(from), endTime: String(to) };
    let path: string;
    if (kind === 'metric') {
      const q = tiles.filter((t) => appliesTo(f, t.config.sourceId)).flatMap((t) => chartItems(t.config))
        .map((s) => s.query ?? '').find((q) => metricOf(q));
      if (!q) { setValues([]); return; }
      path = `/api/v2/metrics/tags?${new URLSearchParams({ sourceId: f.sourceId, metric: metricOf(q), key: f.expression, limit: '100', ...range })}`;
    } else {
      path = `/api/v2/search/values?${new URLSearchParams({ sourceId: f.sourceId, field: f.expression, limit: '100', ...range })}`;
    }
    get<{ value?: string }[]>(path, ac.signal)
      .then((l) => { setValues(l.map((x) => x.value ?? '').filter(Boolean)); setError(''); })
      .catch((e) => { if (!ac.signal.aborted) setError(messageOf(e)); });
    return () => ac.abort();
  }, [f.sourceId, f.expression, kind, from, to]);
  // A value chosen before (a link) stays offered even when the range no
  // longer holds it.
  const options = values && value && !values.includes(value) ? [value, ...values] : values ?? (value ? [value] : []);
  return (
    <label class="dash-filter" data-filter={f.name} title={error ? `Values could not be read: ${error}` : `${f.expression} on ${f.sourceId}`}>
      {f.name}
      <select name={`filter-${f.name}`} value={value} onChange={(e) => onChoose(e.currentTarget.value)}>
        <option value="">All</option>
        {options.map((v) => <option value={v}>{v}</option>)}
      </select>
      {error && <span class="error small" role="alert">!</span>}
      {onRemove && <button type="button" class="link small" aria-label={`Remove the filter ${f.name}`} data-action="remove-filter" onClick={onRemove}>×</button>}
    </label>
  );
}

// FilterForm adds a filter: a name, the source whose values it lists and
// the expression (a column or attribute, or a metric's tag).
export function FilterForm({ sources, onAdd, onCancel }: { sources: Source[]; onAdd: (f: DashboardFilter) => Promise<void>; onCancel: () => void }) {
  const [f, setF] = useState<QueryFilter>({ type: 'QUERY_EXPRESSION', name: '', expression: '', sourceId: sources[0]?.id ?? '' });
  const [error, setError] = useState('');
  const metric = sources.find((s) => s.id === f.sourceId)?.kind === 'metric';
  return (
    <form class="card filter-form" data-testid="filter-form" onSubmit={async (e) => {
      e.preventDefault();
      try { await onAdd({ ...f, name: f.name.trim(), expression: f.expression.trim() }); } catch (err) { setError(messageOf(err)); }
    }}>
      <label>Name<input name="filter-name" value={f.name} required onInput={(e) => setF({ ...f, name: e.currentTarget.value })} /></label>
      <label>Source<select name="filter-source" value={f.sourceId} onChange={(e) => setF({ ...f, sourceId: e.currentTarget.value })}>
        {sources.map((s) => <option value={s.id}>{s.name}</option>)}
      </select></label>
      <label>{metric ? 'Tag' : 'Field'}<input name="filter-expression" value={f.expression} required
        placeholder={metric ? 'host' : 'ServiceName'} onInput={(e) => setF({ ...f, expression: e.currentTarget.value })} /></label>
      <button class="primary" type="submit">Add filter</button>
      <button type="button" onClick={onCancel}>Cancel</button>
      {error && <p class="error small" role="alert">{error}</p>}
    </form>
  );
}
