import { useState } from 'preact/hooks';
import { Row, Source } from '../api';
import { show } from '../fields';
import { onLink } from '../router';
import { fmtDuration, fmtTs, zoneName } from '../time';

// EventPanel shows a whole event: its main fields, then every attribute
// and resource attribute, then the other columns.
// filterFor writes field:value for the where box, quoting a value that
// holds blanks, quotes or Lucene's own characters.
export function filterFor(field: string, value: any): string {
  const v = String(value ?? '');
  const plain = /^[^\s"():[\]{}*?\\]+$/.test(v);
  return `${field}:${plain ? v : '"' + v.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"'}`;
}

export function EventPanel({ row, src, onClose, onFilter }: { row: Row; src: Source; onClose: () => void; onFilter?: (expr: string) => void }) {
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
        <dt>Timestamp</dt><dd>{fmtTs(row[src.timestampColumn])} <span class="muted small">{zoneName()}</span> <span class="muted small" title="as stored, in UTC">({row[src.timestampColumn]})</span></dd>
        {src.serviceColumn && <><dt>Service</dt><dd>{show(row[src.serviceColumn])}<Add on={onFilter} expr={filterFor('service', row[src.serviceColumn])} value={row[src.serviceColumn]} /></dd></>}
        {src.severityColumn && <><dt>Severity</dt><dd>{show(row[src.severityColumn])}<Add on={onFilter} expr={filterFor('level', row[src.severityColumn])} value={row[src.severityColumn]} /></dd></>}
        {src.durationColumn && row[src.durationColumn] !== undefined && <><dt>Duration</dt><dd>{fmtDuration(Number(row[src.durationColumn]))}</dd></>}
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

export function AttrTable({ m, onFilter, prefix = '' }: { m: Record<string, any>; onFilter?: (expr: string) => void; prefix?: string }) {
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
function Add({ on, expr, value }: { on?: (expr: string) => void; expr: string; value: any }) {
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
function pretty(v: any): string {
  const s = show(v);
  if (!/^\s*[[{]/.test(s)) return s;
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
}
