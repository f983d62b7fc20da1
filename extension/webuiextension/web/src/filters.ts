import type { Schemas } from './api';

// A dashboard's filter dropdowns (HyperDX's QUERY_EXPRESSION filters): a
// value chosen in one narrows the tiles it applies to, each in its own
// language, before the tile runs. Pure functions, so the rules are tested
// apart from the page.

export type DashboardFilter = Schemas['DashboardFilter'];

// QueryFilter is a filter whose dropdown lists a source's values; a
// STATIC_LIST filter (a variable over its options) reads no source and
// narrows no tile here.
export type QueryFilter = DashboardFilter & { expression: string; sourceId: string };

export function queryFilters(filters: DashboardFilter[]): QueryFilter[] {
  return filters.filter((f): f is QueryFilter => f.type === 'QUERY_EXPRESSION' && !!f.expression && !!f.sourceId);
}
type TileConfig = Schemas['TileConfig'];
type SelectItem = Schemas['SelectItem'];

// appliesTo: the tiles of the sources the filter names, or of its own
// source when it names none.
export function appliesTo(f: DashboardFilter, sourceId: string | undefined): boolean {
  if (!sourceId) return false;
  return f.appliesToSourceIds?.length ? f.appliesToSourceIds.includes(sourceId) : f.sourceId === sourceId;
}

// quoteTerm writes value as a quoted Lucene or Datadog term, quotes and
// backslashes escaped: quoted, a value matches exactly (unquoted, Lucene
// reads field:value as a substring, as HyperDX does).
function quoteTerm(v: string): string {
  return '"' + v.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}

// narrowWhere adds field = value to a where in its language.
export function narrowWhere(where: string, lang: string, field: string, value: string): string {
  const cond = lang === 'sql'
    ? `${field} = '${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
    : `${field}:${quoteTerm(value)}`;
  return where.trim() ? `(${where}) AND ${cond}` : cond;
}

// narrowQuery adds tag:value to every metric's scope in a Datadog metric
// query or formula ({*} becomes {tag:value}, {a:b} becomes
// {a:b,tag:value}); the braces of "by {…}" are a grouping and stay.
export function narrowQuery(q: string, tag: string, value: string): string {
  let out = '';
  for (let i = 0; i < q.length; i++) {
    const ch = q[i];
    out += ch;
    if (ch !== '{' || /\bby\s*$/.test(q.slice(0, i))) continue;
    const end = q.indexOf('}', i);
    if (end < 0) continue;
    const scope = q.slice(i + 1, end).trim();
    out += (scope === '*' || scope === '' ? '' : scope + ',') + `${tag}:${value}}`;
    i = end;
  }
  return out;
}

// narrowTile is a tile's config with the chosen values of the filters
// that apply to it (chosen: filter id to value; an empty value is "all").
export function narrowTile(c: TileConfig, filters: DashboardFilter[], chosen: Record<string, string>): TileConfig {
  const active = queryFilters(filters).filter((f) => f.id && chosen[f.id] && appliesTo(f, c.sourceId));
  if (!active.length) return c;
  if (!Array.isArray(c.select) || c.displayType === 'heatmap') {
    // A search or heatmap tile: its where is the config's own.
    let where = c.where ?? '';
    for (const f of active) where = narrowWhere(where, c.whereLanguage ?? 'lucene', f.expression, chosen[f.id!]);
    return { ...c, where };
  }
  const select = (c.select as SelectItem[]).map((s) => {
    let item = { ...s };
    for (const f of active) {
      const v = chosen[f.id!];
      item = item.query
        ? { ...item, query: narrowQuery(item.query, f.expression, v) }
        : { ...item, where: narrowWhere(item.where ?? '', item.whereLanguage || 'lucene', f.expression, v) };
    }
    return item;
  });
  return { ...c, select };
}

// metricOf is the first metric a Datadog metric query reads, for listing
// a tag's values (avg:system.cpu.user{*} by {host} reads system.cpu.user).
export function metricOf(q: string): string {
  const m = /(?:^|[\s(,])(?:[a-z0-9]+:)?([A-Za-z_][\w.]*)\s*\{/.exec(q);
  return m ? m[1] : '';
}
