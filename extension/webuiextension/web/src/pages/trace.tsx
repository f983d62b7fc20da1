import { useEffect, useMemo, useState } from 'preact/hooks';
import { Answer, columnsOf, get, getSources, Row, Source } from '../api';
import { AttrTable, EventPanel } from '../components/eventpanel';
import { severityClass, show } from '../fields';
import { fmtDuration, fmtTs, useZone } from '../time';

type TraceData = Answer<'/api/v2/traces/{id}', 'get'>;

const palette = ['#4f6df5', '#16a085', '#e67e22', '#8e44ad', '#2c82c9', '#c0392b', '#27ae60', '#d35400', '#7f8c8d', '#b7950b'];

interface Node {
  span: Row;
  id: string;
  depth: number;
  start: bigint; // ns
  dur: bigint;
  // descendants: how many spans its subtree holds below it (what
  // collapsing it hides).
  descendants: number;
  // critical: on the critical path (see criticalPath).
  critical: boolean;
}

// TracePage is a trace's waterfall (spans nested under their parents on
// one time axis, a colour per service, errors marked, the critical path
// highlighted, subtrees that collapse), a span's details, and the logs
// that carry the trace id.
export function TracePage({ traceId }: { traceId: string }) {
  useZone();
  const [data, setData] = useState<TraceData | null>(null);
  const [error, setError] = useState('');
  const [sel, setSel] = useState<Row | null>(null);
  const [logSel, setLogSel] = useState<Row | null>(null);
  const [logSrc, setLogSrc] = useState<Source | null>(null);
  // collapsed: the span ids whose subtrees are hidden.
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  // flame: the flame graph instead of the waterfall (a row per depth, not
  // per span), the view of a trace too big to read span by span.
  const [flame, setFlame] = useState<boolean | null>(null);

  useEffect(() => {
    setData(null);
    setError('');
    setCollapsed(new Set());
    // The trace source the link came from (the default one otherwise).
    const source = new URL(location.href).searchParams.get('source');
    get<TraceData>(`/api/v2/traces/${encodeURIComponent(traceId)}${source ? '?sourceId=' + encodeURIComponent(source) : ''}`).then(setData).catch((e) => setError(e.message));
    // Without a log source the trace is shown alone; its logs' links need one.
    getSources().then((s) => setLogSrc(s.find((x) => x.id === 'logs') ?? s.find((x) => x.kind === 'log') ?? null))
      .catch((e) => setError(e.message));
  }, [traceId]);

  const view = useMemo(() => (data ? layout(data) : null), [data]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') { setSel(null); setLogSel(null); } };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  if (error) return <div class="page"><h1>Trace {traceId}</h1><p class="error" role="alert">{error}</p></div>;
  if (!data || !view) return <div class="page muted">Loading trace…</div>;
  const src = columnsOf(data.source);
  const svcCol = src.serviceColumn || 'ServiceName';
  const nameCol = src.bodyColumn || 'SpanName';
  const statusCol = src.statusCodeColumn || 'StatusCode';
  const spanCol = src.spanIdColumn || 'SpanId';
  const total = view.end - view.start || 1n;
  const pct = (ns: bigint) => Number((ns * 100000n) / total) / 1000;
  const toggle = (id: string) => setCollapsed((c) => { const n = new Set(c); if (n.has(id)) n.delete(id); else n.add(id); return n; });
  // The rows shown: a collapsed span's subtree (the nodes after it, deeper
  // than it) is skipped.
  const shown: Node[] = [];
  let hideBelow = -1;
  for (const n of view.nodes) {
    if (hideBelow >= 0 && n.depth > hideBelow) continue;
    hideBelow = collapsed.has(n.id) && n.descendants > 0 ? n.depth : -1;
    shown.push(n);
  }
  const parents = view.nodes.filter((n) => n.descendants > 0);
  const asFlame = flame ?? view.nodes.length > FLAME_FROM;
  const open = (span: Row) => { setLogSel(null); setSel(span); };
  // How many of the trace's logs each span wrote.
  const logCounts = new Map<string, number>();
  const logSpanCol = logSrc?.spanIdColumn || 'SpanId';
  for (const l of data.logs) if (l[logSpanCol]) logCounts.set(l[logSpanCol], (logCounts.get(l[logSpanCol]) ?? 0) + 1);

  return (
    <div class={sel || logSel ? 'trace with-panel' : 'trace'}>
      <div class="trace-main">
      <div class="trace-head">
        <h1>Trace <code>{traceId}</code></h1>
        <div class="muted small">
          {plural(data.spans.length, 'span')} · {plural(view.services.size, 'service')} · {fmtDuration(Number(total))}
          {data.truncated && ' · only the first 10,000 spans are shown'}
        </div>
        <div class="legend">
          {[...view.services.entries()].map(([s, c]) => <span class="chip"><i style={{ background: c }} />{s}</span>)}
          <span class="chip crit-key" title="From the root, each time the child that ended last: the spans that set when the trace ended"><i />critical path</span>
          {parents.length > 0 && !asFlame && <>
            <button class="ghost small" data-testid="collapse-all" onClick={() => setCollapsed(new Set(parents.map((n) => n.id)))}>Collapse all</button>
            <button class="ghost small" data-testid="expand-all" onClick={() => setCollapsed(new Set())}>Expand all</button>
          </>}
          <span class="seg" role="group" aria-label="View">
            <button class={asFlame ? 'ghost small' : 'ghost small on'} data-testid="view-waterfall" aria-pressed={!asFlame} onClick={() => setFlame(false)}>Waterfall</button>
            <button class={asFlame ? 'ghost small on' : 'ghost small'} data-testid="view-flame" aria-pressed={asFlame} onClick={() => setFlame(true)}>Flame graph</button>
          </span>
        </div>
      </div>
      {asFlame ? <FlameGraph view={view} total={total} sel={sel} onOpen={open} svcCol={svcCol} nameCol={nameCol} statusCol={statusCol} /> :
      <div class="waterfall" data-testid="waterfall">
        <div class="wf-row wf-axis">
          <div class="wf-label muted small">Span</div>
          <div class="wf-track">{[0, 25, 50, 75, 100].map((p) => <span class="tick" style={{ left: p + '%' }}>{fmtDuration(Number((total * BigInt(p)) / 100n))}</span>)}</div>
        </div>
        {shown.map((n) => {
          const err = String(n.span[statusCol] ?? '').toLowerCase().includes('error');
          const closed = collapsed.has(n.id);
          return (
            <div class={'wf-row' + (sel === n.span ? ' sel' : '') + (err ? ' err' : '') + (n.critical ? ' crit' : '')} onClick={() => { setLogSel(null); setSel(n.span); }} data-span-id={n.span[spanCol]}
              data-critical={n.critical ? '1' : undefined} tabIndex={0} role="button" onKeyDown={(e) => { if (e.key === 'Enter' && e.target === e.currentTarget) { setLogSel(null); setSel(n.span); } }}>
              <div class="wf-label" style={{ paddingLeft: 8 + n.depth * 14 + 'px' }} title={n.span[nameCol]}>
                {n.descendants > 0
                  ? <button class="link caret" data-testid="toggle" aria-expanded={!closed} aria-label={(closed ? 'Expand ' : 'Collapse ') + n.span[nameCol]}
                    title={closed ? `Show the ${plural(n.descendants, 'span')} below` : 'Hide the spans below'}
                    onClick={(e) => { e.stopPropagation(); toggle(n.id); }}>{closed ? '▸' : '▾'}</button>
                  : <span class="caret-space" />}
                <i class="dot" style={{ background: view.services.get(n.span[svcCol]) }} />
                <span class="svc">{n.span[svcCol]}</span> {n.span[nameCol]}
                {err && <> <span class="sev err">error</span></>}
                {closed && <> <span class="muted small hidden-count">+{n.descendants}</span></>}
                {logCounts.get(n.id) ? <> <span class="muted small span-log-count" title="Logs written under this span (open the span to read them)">{plural(logCounts.get(n.id)!, 'log')}</span></> : null}
              </div>
              <div class="wf-track">
                <div class="bar" style={{ left: pct(n.start - view.start) + '%', width: Math.max(pct(n.dur), 0.2) + '%', background: view.services.get(n.span[svcCol]) }} />
                {pct(n.start - view.start) + pct(n.dur) > 85
                  ? <span class="bar-label small inside" style={{ right: 100 - pct(n.start - view.start) - pct(n.dur) + '%' }}>{fmtDuration(Number(n.dur))}</span>
                  : <span class="bar-label small" style={{ left: pct(n.start - view.start) + pct(n.dur) + '%' }}>{fmtDuration(Number(n.dur))}</span>}
              </div>
            </div>
          );
        })}
      </div>}
      <h2>Logs of this trace</h2>
      {data.logs.length === 0 ? <p class="muted small">No log carries this trace id.</p> : (
        <table class="rows" data-testid="trace-logs">
          <tbody>
            {data.logs.map((l) => (
              <tr tabIndex={0} onClick={() => { setSel(null); setLogSel(l); }} onKeyDown={(e) => { if (e.key === 'Enter') { setSel(null); setLogSel(l); } }}>
                <td class="ts">{fmtTs(l.Timestamp)}</td>
                <td>{l.ServiceName}</td>
                <td><span class={severityClass(l.SeverityText)}>{l.SeverityText}</span></td>
                <td class="body">{show(l.Body)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      </div>
      {sel && <SpanPanel span={sel} src={src} logs={spanLogs(data.logs, logSrc, sel[spanCol])} logSrc={logSrc} onClose={() => setSel(null)}
        onLog={(l) => { setSel(null); setLogSel(l); }} />}
      {logSel && logSrc && !sel && <EventPanel row={logSel} src={logSrc} onClose={() => setLogSel(null)} />}
    </div>
  );
}

// FLAME_FROM is the span count above which a trace opens as a flame
// graph: a waterfall of thousands of rows cannot be read.
const FLAME_FROM = 1000;

// FlameGraph draws each span as a block on the trace's time axis, one row
// per depth (children under their parent), so a trace of thousands of
// spans fits a screen; a block opens its span.
function FlameGraph({ view, total, sel, onOpen, svcCol, nameCol, statusCol }: {
  view: NonNullable<ReturnType<typeof layout>>; total: bigint; sel: Row | null; onOpen: (s: Row) => void; svcCol: string; nameCol: string; statusCol: string;
}) {
  const pct = (ns: bigint) => Number((ns * 100000n) / total) / 1000;
  const depth = view.nodes.reduce((m, n) => Math.max(m, n.depth), 0);
  return (
    <div class="flame" data-testid="flame">
      <div class="flame-axis">{[0, 25, 50, 75, 100].map((p) => <span class="tick" style={{ left: p + '%' }}>{fmtDuration(Number((total * BigInt(p)) / 100n))}</span>)}</div>
      <div class="flame-rows" style={{ height: (depth + 1) * 20 + 'px' }}>
        {view.nodes.map((n) => {
          const err = String(n.span[statusCol] ?? '').toLowerCase().includes('error');
          const label = `${n.span[svcCol]} ${n.span[nameCol]}`;
          return (
            <div class={'flame-span' + (err ? ' err' : '') + (n.critical ? ' crit' : '') + (sel === n.span ? ' sel' : '')}
              style={{ left: pct(n.start - view.start) + '%', width: Math.max(pct(n.dur), 0.1) + '%', top: n.depth * 20 + 'px', background: view.services.get(n.span[svcCol]) }}
              title={`${label} · ${fmtDuration(Number(n.dur))}${err ? ' · error' : ''}`} data-span-id={n.id} role="button" tabIndex={0}
              onClick={() => onOpen(n.span)} onKeyDown={(e) => { if (e.key === 'Enter') onOpen(n.span); }}>{label}</div>
          );
        })}
      </div>
    </div>
  );
}

function layout(d: TraceData) {
  const src = columnsOf(d.source);
  const spanCol = src.spanIdColumn || 'SpanId';
  const parentCol = src.parentSpanIdColumn || 'ParentSpanId';
  const svcCol = src.serviceColumn || 'ServiceName';
  const durCol = src.durationColumn || 'Duration';
  const ids = new Set(d.spans.map((s) => s[spanCol]));
  const children = new Map<string, Row[]>();
  const roots: Row[] = [];
  for (const s of d.spans) {
    const p = s[parentCol];
    if (p && ids.has(p) && p !== s[spanCol]) {
      if (!children.has(p)) children.set(p, []);
      children.get(p)!.push(s);
    } else roots.push(s);
  }
  const nodes: Node[] = [];
  const seen = new Set<Row>();
  const byId = new Map<string, Node>();
  const walk = (s: Row, depth: number): number => {
    if (seen.has(s)) return 0;
    seen.add(s);
    const n: Node = { span: s, id: String(s[spanCol] ?? nodes.length), depth, start: BigInt(s.__ts_ns), dur: BigInt(Math.max(0, Math.round(Number(s[durCol] ?? 0) * src.durationScale))), descendants: 0, critical: false };
    nodes.push(n);
    byId.set(n.id, n);
    for (const c of children.get(s[spanCol]) ?? []) n.descendants += 1 + walk(c, depth + 1);
    return n.descendants;
  };
  roots.forEach((r) => walk(r, 0));
  criticalPath(nodes, children, byId, spanCol);
  let start = nodes.length ? nodes[0].start : 0n;
  let end = 0n;
  for (const n of nodes) {
    if (n.start < start) start = n.start;
    if (n.start + n.dur > end) end = n.start + n.dur;
  }
  const services = new Map<string, string>();
  for (const n of nodes) {
    const s = n.span[svcCol];
    if (!services.has(s)) services.set(s, palette[services.size % palette.length]);
  }
  return { nodes, start, end, services };
}

// criticalPath marks the chain of spans that decided when the trace
// ended: from the first root, each time the child that ended last (the
// parent was waiting on it), down to a span without children.
function criticalPath(nodes: Node[], children: Map<string, Row[]>, byId: Map<string, Node>, spanCol: string) {
  let cur: Node | undefined = nodes.find((n) => n.depth === 0);
  while (cur) {
    cur.critical = true;
    let next: Node | undefined;
    for (const c of children.get(cur.span[spanCol]) ?? []) {
      const n = byId.get(String(c[spanCol]));
      if (n && !n.critical && (!next || n.start + n.dur > next.start + next.dur)) next = n;
    }
    cur = next;
  }
}

// spanLogs are the trace's logs written under one span (their span id
// column holds it).
function spanLogs(logs: Row[], logSrc: Source | null, spanId: string): Row[] {
  const col = logSrc?.spanIdColumn || 'SpanId';
  return spanId ? logs.filter((l) => l[col] === spanId) : [];
}

function SpanPanel({ span, src, logs, logSrc, onClose, onLog }: { span: Row; src: Source; logs: Row[]; logSrc: Source | null; onClose: () => void; onLog: (l: Row) => void }) {
  const sevCol = logSrc?.severityColumn || 'SeverityText';
  const bodyCol = logSrc?.bodyColumn || 'Body';
  const tsCol = logSrc?.timestampColumn || 'Timestamp';
  const names: string[] = span['Events.Name'] ?? [];
  const evTimes: string[] = span['Events.Timestamp'] ?? [];
  const evAttrs: Record<string, string>[] = span['Events.Attributes'] ?? [];
  const linkTraces: string[] = span['Links.TraceId'] ?? [];
  const linkSpans: string[] = span['Links.SpanId'] ?? [];
  return (
    <aside class="panel" data-testid="span-panel">
      <div class="panel-head"><strong>{span[src.bodyColumn || 'SpanName']}</strong><button class="link" onClick={onClose} aria-label="Close">✕</button></div>
      <dl class="kv">
        <dt>Service</dt><dd>{span[src.serviceColumn || 'ServiceName']}</dd>
        <dt>Start</dt><dd>{span[src.timestampColumn]}</dd>
        <dt>Duration</dt><dd>{fmtDuration(Number(span[src.durationColumn || 'Duration'] ?? 0) * src.durationScale)}</dd>
        <dt>Status</dt><dd>{show(span[src.statusCodeColumn || 'StatusCode'])} {show(span.StatusMessage)}</dd>
        <dt>Kind</dt><dd>{show(span.SpanKind)}</dd>
        <dt>Span ID</dt><dd>{show(span[src.spanIdColumn || 'SpanId'])}</dd>
        <dt>Parent</dt><dd>{show(span[src.parentSpanIdColumn || 'ParentSpanId']) || <span class="muted">root</span>}</dd>
      </dl>
      <h3>Logs of this span</h3>
      {logs.length === 0 ? <p class="muted small">none</p> : (
        <div class="context" data-testid="span-logs">
          {logs.map((l) => (
            <div class="context-row" role="button" tabIndex={0} onClick={() => onLog(l)} onKeyDown={(e) => { if (e.key === 'Enter') onLog(l); }}>
              <span class="ts">{fmtTs(l[tsCol])}</span>
              <span class={severityClass(l[sevCol])}>{show(l[sevCol])}</span>
              <span class="body">{show(l[bodyCol])}</span>
            </div>
          ))}
        </div>
      )}
      <h3>Attributes</h3>
      <AttrTable m={(src.attributesMap && span[src.attributesMap]) || {}} />
      <h3>Resource</h3>
      <AttrTable m={(src.resourceMap && span[src.resourceMap]) || {}} />
      <h3>Events</h3>
      {names.length === 0 ? <p class="muted small">none</p> : names.map((n, i) => (
        <div class="event"><div><strong>{n}</strong> <span class="muted small">{evTimes[i] ? fmtTs(evTimes[i]) : ''}</span></div><AttrTable m={evAttrs[i] ?? {}} /></div>
      ))}
      <h3>Links</h3>
      {linkTraces.length === 0 ? <p class="muted small">none</p> : (
        <dl class="kv">{linkTraces.map((t, i) => <><dt>trace {t}</dt><dd>span {linkSpans[i]}</dd></>)}</dl>
      )}
    </aside>
  );
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;
}
