import { Row, Source } from './api';

// A column of a search table names a table column ("ServiceName"), a
// resource attribute ("Resource.host.name") or a record attribute (any
// other name): what the where translator resolves the same names to.
export function valueOf(row: Row, col: string, src: Source): Row[string] {
  if (col in row) return row[col];
  if (col.startsWith('Resource.') && src.resourceMap) return row[src.resourceMap]?.[col.slice(9)];
  if (src.attributesMap) return row[src.attributesMap]?.[col];
  return undefined;
}

export function defaultColumns(src: Source): string[] {
  const cols = [src.timestampColumn];
  if (src.serviceColumn) cols.push(src.serviceColumn);
  if (src.kind === 'log') {
    if (src.severityColumn) cols.push(src.severityColumn);
  } else if (src.kind === 'trace') {
    if (src.durationColumn) cols.push(src.durationColumn);
    cols.push(src.statusCodeColumn || 'StatusCode');
  }
  if (src.bodyColumn) cols.push(src.bodyColumn);
  return cols;
}

export function show(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function severityClass(v: string): string {
  const s = (v || '').toLowerCase();
  if (s.startsWith('err') || s.startsWith('fatal') || s.startsWith('crit') || s.startsWith('emerg') || s.startsWith('alert')) return 'sev err';
  if (s.startsWith('warn')) return 'sev warn';
  if (s.startsWith('debug') || s.startsWith('trace')) return 'sev dbg';
  return 'sev info';
}
