// What a chart tile draws from POST /api/v2/charts/series: a line per
// select item and group. Pure, so the page and the metrics explorer draw
// the same lines and the unit tests hold them.

import { level, Schemas } from './api';
import type { Line } from './components/chart';

type SelectItem = Schemas['SelectItem'];

// chartItems are a chart tile's select items (none for a heatmap, a
// search or a markdown tile, whose select is of another shape).
export function chartItems(c: Schemas['TileConfig']): SelectItem[] {
  return c.displayType !== 'heatmap' && Array.isArray(c.select) ? c.select as SelectItem[] : [];
}

// label names a select item in a legend: its alias, its query, or its
// aggregation of its field.
export function label(s: SelectItem): string {
  if (s.alias) return s.alias;
  if (s.query) return s.query;
  const agg = s.aggFn === 'quantile' ? `p${Math.round((s.level ?? 0) * 1000) / 10}` : s.aggFn;
  return `${agg}${s.valueExpression ? `(${s.valueExpression})` : ''}`;
}

// alertable says whether an alert can watch a tile
// (dashboards.Config.Watched): a chart tile, a ratio one only of its two
// items (a ratio of more is nothing the tile draws); a formula tile, of
// its first formula. Not a table with a having: an alert judges every
// group, so the API refuses one there.
export function alertable(c: Schemas['TileConfig']): boolean {
  const items = chartItems(c);
  return !c.configType && items.length > 0 && ['line', 'stacked_bar', 'table', 'number', 'pie', 'bar'].includes(c.displayType)
    && (c.asRatio !== true || items.length === 2) && !(c.displayType === 'table' && c.having?.trim());
}

// watchedLabel says what an alert on a chart tile judges, as the
// scheduler reads it: the tile's first item, on a ratio tile its first
// over its second, on a formula tile its first formula over its items; a
// metric item by its metric's name.
export function watchedLabel(c: Schemas['TileConfig']): string {
  const items = chartItems(c);
  const one = (s: SelectItem) => {
    if (s.alias || !s.metricName) return label(s);
    return `${label({ ...s, valueExpression: '' })} of ${s.metricName}`;
  };
  if (c.asRatio === true && items.length === 2) return `${one(items[0])} / ${one(items[1])}`;
  const f = c.formulas?.[0];
  if (f) return `${f.alias || f.expression} (${items.map((s, i) => `${String.fromCharCode(65 + i)} = ${one(s)}`).join(', ')})`;
  return items[0] ? one(items[0]) : '';
}

// levelColumns are the columns a tile's series merge by level() when
// grouped by them: the exporter's severity and status, and their usual
// names.
const levelColumns = ['severitytext', 'statuscode', 'level', 'status', 'severity'];

// A row of the chart series answer: a bucket, its group, a value per item.
export type SeriesRow = { ts_bucket: number; group?: string[]; [value: string]: unknown };

// linesOf turns the answer's rows into each item's lines. A count or sum
// grouped by severity or status shows one series per level whatever its
// spelling (error and ERROR are one), as the search page's histogram
// does: their values add up.
export function linesOf(items: SelectItem[], rows: SeriesRow[], groupBy: string[]): Line[][] {
  const perItem: Line[][] = items.map(() => []);
  const byKey = new Map<string, { line: Line; at: Map<number, number | null> }>();
  const merge = groupBy.length === 1 && levelColumns.includes(groupBy[0].toLowerCase());
  for (const row of rows) {
    const raw: string[] = row.group ?? [];
    items.forEach((s, i) => {
      const additive = merge && !s.query && (s.aggFn === 'count' || s.aggFn === 'sum');
      const group = additive ? [level(raw[0] ?? '')] : raw;
      const key = i + '\u0000' + group.join('\u0000');
      let l = byKey.get(key);
      if (!l) {
        l = { line: { group: items.length > 1 ? [label(s), ...group] : group, points: [] }, at: new Map() };
        byKey.set(key, l);
        perItem[i].push(l.line);
      }
      // A count comes as a string (HyperDX's engine writes 64-bit
      // integers so), any other value as a number.
      const got = row[`series_${i}.data`] as number | string | null | undefined;
      const v = got == null ? null : Number(got);
      const had = l.at.get(row.ts_bucket);
      l.at.set(row.ts_bucket, had == null ? v : v == null ? had : had + v);
    });
  }
  for (const { line, at } of byKey.values()) line.points = [...at.entries()].sort((a, b) => a[0] - b[0]);
  return perItem;
}

// mergeSeries joins the rows of several answers by bucket and group, the
// k-th answer's series_N.data becoming series_(k*per+N).data.
export function mergeSeries(answers: SeriesRow[][], per: number): SeriesRow[] {
  const byKey = new Map<string, SeriesRow>();
  answers.forEach((rows, k) => {
    for (const row of rows) {
      const key = row.ts_bucket + '\u0000' + (row.group ?? []).join('\u0000');
      let out = byKey.get(key);
      if (!out) {
        out = { ts_bucket: row.ts_bucket, group: row.group ?? [] };
        byKey.set(key, out);
      }
      for (const [name, v] of Object.entries(row)) {
        const m = /^series_(\d+)\.data$/.exec(name);
        if (m) out[`series_${k * per + Number(m[1])}.data`] = v;
      }
    }
  });
  return [...byKey.values()];
}

// noData says whether a chart tile's answer holds nothing to show: no
// line, or lines without a value. The API fills a count's empty buckets
// with 0 (so its line can fall to 0), so a count or distinct count that
// is 0 in every bucket counted no event at all; any other value of 0
// (a sum, an average, a formula) is data.
export function noData(items: SelectItem[], perItem: Line[][]): boolean {
  return perItem.every((ls, i) => ls.every((l) => l.points.every(([, v]) => {
    if (v === null || v === undefined) return true;
    const s = items[i];
    return v === 0 && !!s && !s.query && (s.aggFn === 'count' || s.aggFn === 'count_distinct');
  })));
}
