import { useEffect, useState } from 'preact/hooks';
import { Row, searchRows, Source } from '../api';
import { severityClass, show } from '../fields';
import { onLink } from '../router';
import { fmtDuration, fmtTs, useZone } from '../time';
import { ZoneSwitch } from './zoneswitch';

// EventPanel shows a whole event: its main fields, then every attribute
// and resource attribute, then the other columns.
// filterFor writes field:"value" for the where box. The value is always
// quoted: unquoted, field:value finds the value within the field
// (HyperDX's meaning), where a filter means the value exactly.
export function filterFor(field: string, value: unknown): string {
  const v = String(value ?? '');
  return `${field}:"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function EventPanel({ row, src, onClose, onFilter }: { row: Row; src: Source; onClose: () => void; onFilter?: (expr: string) => void }) {
  useZone();
  const traceCol = src.traceIdColumn || 'TraceId';
  const spanCol = src.spanIdColumn || 'SpanId';
  const traceId = row[traceCol];
  // Other fields lists what the sections above do not: the service,
  // severity and duration columns are shown there already.
  const shown = new Set(['__ts_ns', src.attributesMap, src.resourceMap, src.bodyColumn, src.timestampColumn, traceCol, spanCol,
    src.serviceColumn, src.severityColumn, src.durationColumn]);
  const attrs = (src.attributesMap && row[src.attributesMap]) || {};
  const res = (src.resourceMap && row[src.resourceMap]) || {};
  return (
    <aside class="panel" data-testid="event-panel" aria-label={src.kind === 'trace' ? 'Span' : 'Log event'}>
      <div class="panel-head">
        <strong>{src.kind === 'trace' ? 'Span' : 'Log event'}</strong>
        <button class="link" onClick={onClose} aria-label="Close">✕</button>
      </div>
      <dl class="kv">
        <dt>Timestamp</dt><dd>{fmtTs(row[src.timestampColumn])} <span class="muted small" data-testid="panel-zone"><ZoneSwitch /></span> <span class="muted small" title="as stored, in UTC">({row[src.timestampColumn]})</span></dd>
        {src.serviceColumn && <><dt>Service</dt><dd>{show(row[src.serviceColumn])}<Add on={onFilter} expr={filterFor('service', row[src.serviceColumn])} value={row[src.serviceColumn]} /></dd></>}
        {src.severityColumn && <><dt>Severity</dt><dd>{show(row[src.severityColumn])}<Add on={onFilter} expr={filterFor('level', row[src.severityColumn])} value={row[src.severityColumn]} /></dd></>}
        {src.durationColumn && row[src.durationColumn] !== undefined && <><dt>Duration</dt><dd>{fmtDuration(Number(row[src.durationColumn]) * src.durationScale)}</dd></>}
        <dt>Trace ID</dt>
        <dd>
          {traceId ? (
            <><span>{traceId}</span> <a class="open-trace" href={`/traces/${traceId}`} data-testid="open-trace" onClick={(e) => onLink(e, `/traces/${traceId}`)}>open trace →</a></>
          ) : <span class="muted">none</span>}
        </dd>
        <dt>Span ID</dt><dd>{show(row[spanCol]) || <span class="muted">none</span>}</dd>
      </dl>
      {src.bodyColumn && (
        <>
          <h3>{src.kind === 'trace' ? 'Name' : 'Body'}</h3>
          <pre class="body">{show(row[src.bodyColumn])}</pre>
        </>
      )}
      {src.serviceColumn && row[src.serviceColumn] && row.__ts_ns && <Context row={row} src={src} />}
      <h3>Attributes</h3>
      <AttrTable m={attrs} onFilter={onFilter} />
      <h3>Resource</h3>
      <AttrTable m={res} onFilter={onFilter} prefix="Resource." />
      <h3>Other fields</h3>
      <dl class="kv">
        {Object.keys(row).filter((k) => !shown.has(k)).sort().map((k) => (
          <><dt>{k}</dt><dd>{show(row[k])}</dd></>
        ))}
      </dl>
    </aside>
  );
}

// isoNs writes nanoseconds since the epoch as RFC 3339 with all nine
// digits (the API reads them; a Date keeps milliseconds only).
function isoNs(ns: bigint): string {
  return new Date(Number(ns / 1000000n)).toISOString().slice(0, 19) + '.' + (((ns % 1000000000n) + 1000000000n) % 1000000000n).toString().padStart(9, '0') + 'Z';
}

const CONTEXT_N = 5;
const CONTEXT_WINDOW_NS = 60n * 1000000000n;

// Context shows the same service's events just before and after this one
// (HyperDX's surrounding context): two searches within a minute either
// side, where the service column is this event's service. Asked for on
// a click, not on every panel open.
function Context({ row, src }: { row: Row; src: Source }) {
  const [open, setOpen] = useState(false);
  const [rows, setRows] = useState<{ before: Row[]; after: Row[] } | null>(null);
  const [error, setError] = useState('');
  const ns = BigInt(row.__ts_ns);
  const svc = src.serviceColumn!;
  // By the alias: the source's service may be an expression, which is
  // no field name a where takes.
  const where = filterFor('service', row[svc]);
  useEffect(() => { setOpen(false); setRows(null); setError(''); }, [row]);
  useEffect(() => {
    if (!open || rows) return;
    const ac = new AbortController();
    const q = (from: bigint, to: bigint) => ({ sourceId: src.id, startTime: isoNs(from) as unknown as number, endTime: isoNs(to) as unknown as number, where, whereLanguage: 'lucene' });
    // Before: newest first from just after this event (it and its twins
    // of the same nanosecond included); after: the oldest of the minute
    // after, as the search answers newest first.
    Promise.all([searchRows(q(ns - CONTEXT_WINDOW_NS, ns + 1n), CONTEXT_N * 2 + 1, undefined, ac.signal),
      searchRows(q(ns + 1n, ns + CONTEXT_WINDOW_NS), 200, undefined, ac.signal)])
      .then(([b, a]) => {
        const self = b.rows.findIndex((r) => r.__ts_ns === row.__ts_ns && JSON.stringify(r) === JSON.stringify(row));
        const before = b.rows.filter((_, i) => i !== self).slice(0, CONTEXT_N);
        setRows({ before, after: a.rows.slice(-CONTEXT_N) });
      })
      .catch((e) => { if (e.name !== 'AbortError') setError(e.message); });
    return () => ac.abort();
  }, [open, row]);
  const line = (r: Row, cls = '') => (
    <div class={'context-row ' + cls}>
      <span class="ts">{fmtTs(r[src.timestampColumn])}</span>
      {src.severityColumn && <span class={severityClass(r[src.severityColumn])}>{show(r[src.severityColumn])}</span>}
      <span class="body">{show(src.bodyColumn ? r[src.bodyColumn] : '')}</span>
    </div>
  );
  return (
    <>
      <h3>Surrounding events</h3>
      <p class="muted small">{show(row[svc])}'s events just before and after this one, within a minute</p>
      {!open ? <button class="ghost small" data-testid="show-context" onClick={() => setOpen(true)}>Show the events just before and after</button>
        : error ? <p class="error small">{error}</p>
        : !rows ? <p class="muted small">Loading…</p>
        : (
          <div class="context" data-testid="context">
            {rows.after.map((r) => line(r))}
            {line(row, 'this')}
            {rows.before.map((r) => line(r))}
            {rows.before.length + rows.after.length === 0 && <p class="muted small">No other event of this service within a minute.</p>}
          </div>
        )}
    </>
  );
}

export function AttrTable({ m, onFilter, prefix = '' }: { m: Row; onFilter?: (expr: string) => void; prefix?: string }) {
  const keys = Object.keys(m).sort();
  if (keys.length === 0) return <p class="muted small">none</p>;
  return (
    <dl class="kv">
      {keys.map((k) => (
        <><dt>{k}</dt><dd data-attr={prefix + k}><span class="prewrap">{pretty(m[k])}</span><Add on={onFilter} expr={filterFor(prefix + k, m[k])} value={m[k]} /></dd></>
      ))}
    </dl>
  );
}

// Add offers a value's actions: + puts field:value into the search's
// where and − puts -field:value (only where there is a where), and copy
// puts the value on the clipboard.
function Add({ on, expr, value }: { on?: (expr: string) => void; expr: string; value: unknown }) {
  const [copied, setCopied] = useState(false);
  return (
    <span class="value-actions">
      {on && <button class="link add" title={`Filter: ${expr}`} aria-label={`Filter: ${expr}`} data-filter={expr} onClick={() => on(expr)}>+</button>}
      {on && <button class="link add exclude" title={`Exclude: -${expr}`} aria-label={`Exclude: -${expr}`} data-filter={'-' + expr} onClick={() => on('-' + expr)}>−</button>}
      <button class="link add copy" title="Copy the value" aria-label={`Copy the value of ${expr.slice(0, expr.indexOf(':'))}`}
        onClick={async () => { await copyText(show(value)); setCopied(true); setTimeout(() => setCopied(false), 1200); }}>{copied ? 'copied' : 'copy'}</button>
    </span>
  );
}

// copyText writes to the clipboard; where the Clipboard API is missing
// (a page served over plain HTTP to another host), through a selection.
async function copyText(text: string) {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch { /* below */ }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  document.execCommand('copy');
  ta.remove();
}

// pretty shows a value that is a JSON object or array (how a nested
// attribute is stored) indented, and any other as it is.
function pretty(v: unknown): string {
  const s = show(v);
  if (!/^\s*[[{]/.test(s)) return s;
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
}
