import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, countHistogram, del, Fields, get, getSources, Histogram as HistData, messageOf, post, Row, SavedSearch, SearchQuery, searchRows, Source, Whole } from '../api';
import { Histogram } from '../components/histogram';
import { TimePicker } from '../components/timepicker';
import { EventPanel } from '../components/eventpanel';
import { addTerm, Facets } from '../components/facets';
import { WhereBox } from '../components/wherebox';
import { TraceList } from '../components/tracelist';
import { defaultColumns, severityClass, show, valueOf } from '../fields';
import { navigate, onLink, useLocation } from '../router';
import { fmtDuration, fmtTs, resolveRange, useZone } from '../time';
import { useWhenVisible } from '../paging';
import { ZoneSwitch } from '../components/zoneswitch';
import { DatadogImportButton, DatadogImportReport } from '../components/datadogimport';

type ImportedView = Whole<'/api/v2/saved-searches/import', 'post'>;

const PAGE = 100;
const TAIL_EVERY_MS = 3000;
// Live tail asks each time for the last TAIL_LATE_MS, not only what is
// newer than the newest row shown: agents batch, so an event can arrive
// with a timestamp well in the past. Rows already shown are skipped by
// key; a late one is placed by its timestamp and marked.
const TAIL_LATE_MS = 5 * 60e3;
const TAIL_LIMIT = 1000;

// rowKey tells rows apart across tail polls (the same event answers the
// same columns each time).
const rowKey = (r: Row) => r.__ts_ns + '\u0000' + JSON.stringify(r);
const newestFirst = (a: Row, b: Row) => { const x = BigInt(a.__ts_ns), y = BigInt(b.__ts_ns); return x > y ? -1 : x < y ? 1 : 0; };

// SearchPage is one search per kind of source: the where box (Lucene or
// SQL), the range, the histogram, the results newest first with more on
// scroll (keyset pages), the event panel and live tail. Its state is the
// URL's query string.
export function SearchPage({ kind }: { kind: 'log' | 'trace' }) {
  const loc = useLocation();
  const params = loc.searchParams;
  const [sources, setSources] = useState<Source[] | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    getSources().then(setSources).catch((e) => setError(e.message));
  }, []);

  const ofKind = (sources ?? []).filter((s) => s.kind === kind);
  const src = ofKind.find((s) => s.id === params.get('source')) ?? ofKind[0];
  if (error) return <div class="page"><p class="error">{error}</p></div>;
  if (!sources) return <div class="page muted">Loading sources…</div>;
  if (!src) return <div class="page"><h1>No {kind} source</h1><p>Add one through the REST API (<code>POST /api/v2/sources</code>).</p></div>;
  return <Search key={src.id + kind} kind={kind} src={src} sources={ofKind} params={params} />;
}

// countStacked counts for the histogram, split by stackBy; a source whose
// severity or status column cannot be grouped (a custom table) is still
// counted, in one series.
function countStacked(q: SearchQuery, signal: AbortSignal | undefined, stackBy: string | undefined): Promise<HistData> {
  if (!stackBy) return countHistogram(q, signal);
  return countHistogram(q, signal, stackBy).catch((e) => {
    if (e.name === 'AbortError' || !(e instanceof ApiError) || e.status !== 400) throw e;
    return countHistogram(q, signal);
  });
}

function setParams(update: Record<string, string | null>) {
  const u = new URL(location.href);
  for (const [k, v] of Object.entries(update)) {
    if (v === null || v === '') u.searchParams.delete(k);
    else u.searchParams.set(k, v);
  }
  navigate(u.pathname + u.search);
}

// langOf is a where language the search accepts (Lucene unless told sql
// or datadog): saved searches imported from Datadog views carry datadog.
function langOf(v: string | null | undefined): string {
  return v === 'sql' || v === 'datadog' ? v : 'lucene';
}

function Search({ kind, src, sources, params }: { kind: string; src: Source; sources: Source[]; params: URLSearchParams }) {
  useZone(); // the table's times follow the zone switch
  const where = params.get('q') ?? '';
  const lang = langOf(params.get('lang'));
  const live = params.get('live') === '1';
  // A trace source shows its spans, or its traces one row each.
  const traceView = kind === 'trace' && params.get('view') === 'traces';
  const cols = params.get('cols')?.split(',').filter(Boolean) ?? defaultColumns(src);
  const rangeKey = [params.get('range'), params.get('from'), params.get('to')].join('|');
  const [refreshTick, setRefreshTick] = useState(0);
  const range = useMemo(() => resolveRange(params), [rangeKey, refreshTick]);

  const [draft, setDraft] = useState(where);
  useEffect(() => setDraft(where), [where]);

  const [rows, setRows] = useState<Row[]>([]);
  // rowsFor is the where the rows shown answer (tests and people can tell
  // a finished search from the previous one's rows).
  const [rowsFor, setRowsFor] = useState<string | null>(null);
  const [cursor, setCursor] = useState<string | undefined>();
  const [hist, setHist] = useState<HistData | null>(null);
  const [histError, setHistError] = useState('');
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState('');
  const [selected, setSelected] = useState<Row | null>(null);
  const [picker, setPicker] = useState(false);
  const body = { sourceId: src.id, startTime: range.from, endTime: range.to, where, whereLanguage: lang };
  // The histogram's bars stack by severity (logs) or status (spans).
  const stackBy = kind === 'log' ? src.severityColumn || undefined : src.statusCodeColumn || 'StatusCode';

  // A new search: histogram and the first page, the older ones cancelled.
  useEffect(() => {
    const ac = new AbortController();
    setLoading(true);
    setError('');
    setRows([]);
    setCursor(undefined);
    setHist(null);
    setHistError('');
    late.current = new Set();
    // The traces view lists traces itself (and shows its own error).
    if (!traceView) searchRows(body, PAGE, undefined, ac.signal)
      .then((p) => { setRows(p.rows); setCursor(p.nextCursor); setRowsFor(where); })
      .catch((e) => { if (e.name !== 'AbortError') { setError(e.message); setRowsFor(where); } })
      .finally(() => setLoading(false));
    else setLoading(false);
    // A failed count says so (the search's own error is shown above it),
    // rather than "Counting…" for ever.
    countStacked(body, ac.signal, stackBy).then(setHist)
      .catch((e) => { if (e.name !== 'AbortError') setHistError(e.message); });
    return () => ac.abort();
  }, [src.id, where, lang, range.from, range.to, traceView]);

  const more = async () => {
    if (!cursor || loading) return;
    setLoading(true);
    try {
      const p = await searchRows(body, PAGE, cursor);
      setRows((r) => r.concat(p.rows));
      setCursor(p.nextCursor);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setLoading(false);
    }
  };

  // More rows when the end of the table scrolls into view.
  const sentinel = useWhenVisible(more);

  // Live tail: the range follows now; each poll reads the last few
  // minutes again and adds the rows not shown yet, in timestamp order
  // (a late one, older than the newest shown when it came, is marked).
  const late = useRef<Set<Row>>(new Set());
  const rowsRef = useRef<Row[]>(rows);
  rowsRef.current = rows;
  useEffect(() => {
    if (!live) return;
    const t = setInterval(async () => {
      const now = Date.now();
      try {
        const p = await searchRows({ ...body, startTime: now - TAIL_LATE_MS, endTime: now + 1 }, TAIL_LIMIT);
        const cur = rowsRef.current;
        const seen = new Set(cur.map(rowKey));
        const fresh = p.rows.filter((r) => !seen.has(rowKey(r)));
        if (fresh.length) {
          const top = cur.length ? BigInt(cur[0].__ts_ns) : null;
          for (const r of fresh) if (top !== null && BigInt(r.__ts_ns) < top) late.current.add(r);
          setRows(cur.concat(fresh).sort(newestFirst));
          setRowsFor(where);
        }
        countStacked({ ...body, startTime: now - (range.to - range.from), endTime: now }, undefined, stackBy).then(setHist)
          .catch((e) => setHistError(e.message));
      } catch { /* the next tick tries again */ }
    }, TAIL_EVERY_MS);
    return () => clearInterval(t);
  }, [live, src.id, where, lang]);

  // Keyboard: "/" goes to the where box, Esc closes the panel or the
  // column picker.
  const whereBox = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLElement && (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA' || e.target.tagName === 'SELECT');
      if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        whereBox.current?.focus();
        whereBox.current?.select();
      } else if (e.key === 'Escape') {
        if (selected) setSelected(null);
        else if (picker) setPicker(false);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [selected, picker]);

  // A span's waterfall is read from this trace source; a log's from the
  // default one.
  const traceHref = (tid: string) => `/traces/${encodeURIComponent(tid)}` + (kind === 'trace' ? `?source=${encodeURIComponent(src.id)}` : '');
  const submit = (e: Event) => { e.preventDefault(); setParams({ q: draft }); setRefreshTick((n) => n + 1); };
  // A filter from a facet or the panel joins the where (Lucene: a SQL
  // where is replaced by the term alone, as the languages do not mix).
  const filter = (expr: string) => { setParams({ q: lang === 'lucene' ? addTerm(where, expr) : expr, lang: null }); };

  return (
    <div class={selected ? 'search with-panel' : 'search'}>
      {!live && <Facets src={src} body={body} onFilter={filter} />}
      <div class="search-main">
      <div class="searchbar">
        {sources.length > 1 && (
          <select value={src.id} onChange={(e) => setParams({ source: e.currentTarget.value, cols: null })}>
            {sources.map((s) => <option value={s.id}>{s.name}</option>)}
          </select>
        )}
        <form class="where" onSubmit={submit}>
          <select class="lang" value={lang} onChange={(e) => setParams({ lang: langOf(e.currentTarget.value) === 'lucene' ? null : e.currentTarget.value })} title="Query language">
            <option value="lucene">Lucene</option>
            <option value="sql">SQL</option>
            <option value="datadog">Datadog</option>
          </select>
          <WhereBox src={src} value={draft} onInput={setDraft} inputRef={whereBox} range={range} lucene={lang === 'lucene'}
            placeholder={lang === 'sql' ? "SQL condition, e.g. SeverityText = 'error'" : lang === 'datadog' ? 'Datadog search, e.g. service:web status:error @http.status_code:>=500' : (kind === 'trace' ? 'Search spans, e.g. service:checkout StatusCode:Error Duration:>100000000  ( / to focus)' : 'Search, e.g. service:checkout level:error "timed out"  ( / to focus)')} />
          <button class="primary" type="submit">Search</button>
        </form>
        <TimePicker range={range} onChange={(r) => r.relative ? setParams({ range: r.relative, from: null, to: null }) : setParams({ range: null, from: String(r.from), to: String(r.to) })} />
        <SavedMenu kind={kind} src={src} sources={sources} where={where} lang={lang} cols={cols} />
        <label class="toggle" title="New events appear on top every few seconds">
          <input type="checkbox" checked={live} onChange={(e) => setParams({ live: e.currentTarget.checked ? '1' : null, view: null, range: e.currentTarget.checked ? (range.relative ?? '15m') : params.get('range'), ...(e.currentTarget.checked ? { from: null, to: null } : {}) })} />
          Live
        </label>
      </div>
 {error && <p class="error where-error" role="alert" data-testid="search-error">{error}</p>}
      <Histogram data={hist} error={error ? 'the search failed' : histError} onZoom={(from, to) => setParams({ range: null, from: String(from), to: String(to), live: null })} />
      {kind === 'trace' && (
        <div class="view-toggle" role="group" aria-label="Show">
          <button class={traceView ? 'ghost small' : 'ghost small on'} aria-pressed={!traceView} data-testid="view-spans" onClick={() => setParams({ view: null })}>Spans</button>
          <button class={traceView ? 'ghost small on' : 'ghost small'} aria-pressed={traceView} data-testid="view-traces" onClick={() => setParams({ view: 'traces', live: null })}>Traces</button>
        </div>
      )}
      {traceView ? <TraceList body={body} /> : <>
      <div class="results-head">
        <span class="muted small">{rows.length ? `${rows.length.toLocaleString()} shown${cursor ? ', more on scroll' : ''}` : loading ? 'Searching…' : error ? 'The search did not run: see the message above' : live ? 'No matching events in this range' : 'No matching events in this range: try a wider one'}</span>
        <button class="ghost small" onClick={() => setPicker(!picker)}>Columns</button>
      </div>
      {picker && <ColumnPicker src={src} cols={cols} onChange={(c) => setParams({ cols: c.join(',') })} />}
      <div class="results">
        <table class="rows" data-testid="results" data-rows-for={rowsFor ?? undefined}>
          <thead>
            <tr>
              <th class="actions"><span class="sr-only">Trace</span></th>
              {cols.map((c) => <th>{c}{c === src.timestampColumn && <span class="muted zone"> (<ZoneSwitch />)</span>}<button class="link x" title={`Remove column ${c}`} aria-label={`Remove column ${c}`} onClick={() => setParams({ cols: cols.filter((x) => x !== c).join(',') })}>×</button></th>)}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => {
              const tid = r[src.traceIdColumn || 'TraceId'];
              return (
                <tr class={(selected === r ? 'sel' : '') + (late.current.has(r) ? ' late' : '')} tabIndex={0} aria-selected={selected === r}
                  onClick={() => setSelected(r)} onKeyDown={(e) => { if (e.key === 'Enter' && e.target === e.currentTarget) setSelected(r); }}>
                  <td class="actions">
                    {tid ? <a href={traceHref(tid)} data-testid="row-trace" title="Open this trace's waterfall" aria-label="Open this trace's waterfall"
                      onClick={(e) => { e.stopPropagation(); onLink(e, traceHref(tid)); }}>⤷</a> : null}
                  </td>
                  {cols.map((c, i) => (
                    <td class={c === src.bodyColumn ? 'body' : ''}>
                      {i === 0 && late.current.has(r) && <span class="late-mark" title="Arrived after newer events were shown">late</span>}
                      <Cell row={r} col={c} src={src} />
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
        <div ref={sentinel} class="sentinel">{loading && rows.length > 0 ? 'Loading more…' : ''}</div>
      </div>
      </>}
      </div>
      {selected && <EventPanel row={selected} src={src} onClose={() => setSelected(null)}
        onFilter={(expr) => { setSelected(null); filter(expr); }} />}
      <span hidden data-kind={kind} />
    </div>
  );
}

function Cell({ row, col, src }: { row: Row; col: string; src: Source }) {
  const v = valueOf(row, col, src);
  if (col === src.timestampColumn) return <span class="ts">{fmtTs(v)}</span>;
  if (col === src.severityColumn) return <span class={severityClass(v)}>{show(v)}</span>;
  if (col === src.durationColumn && v !== undefined) return <span>{fmtDuration(Number(v) * src.durationScale)}</span>;
  if (col === (src.statusCodeColumn || 'StatusCode') && String(v).toLowerCase().includes('error')) return <span class="sev err">{show(v)}</span>;
  return <span>{show(v)}</span>;
}

function ColumnPicker({ src, cols, onChange }: { src: Source; cols: string[]; onChange: (c: string[]) => void }) {
  const [fields, setFields] = useState<Fields | null>(null);
  const [filter, setFilter] = useState('');
  const [fieldsError, setFieldsError] = useState('');
  useEffect(() => { get<Fields>(`/api/v2/sources/${encodeURIComponent(src.id)}/columns`).then(setFields).catch((e) => setFieldsError(e.message)); }, [src.id]);
  if (fieldsError) return <div class="picker error small">Could not list the fields: {fieldsError}</div>;
  if (!fields) return <div class="picker muted small">Loading fields…</div>;
  const all = [
    // The exporter's __otel_materialized_* columns are its own (copies of
    // attributes for speed); the attribute itself is offered instead.
    ...fields.columns.map((c) => c.name).filter((n) => n !== src.attributesMap && n !== src.resourceMap && !n.startsWith('__')),
    ...fields.attributes,
    ...fields.resource.map((k) => 'Resource.' + k),
  ].filter((n) => n.toLowerCase().includes(filter.toLowerCase()));
  return (
    <div class="picker">
      <input placeholder="Filter fields" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      <div class="picker-list">
        {all.map((n) => (
          <label class="small picker-item">
            <input type="checkbox" checked={cols.includes(n)} onChange={(e) => onChange(e.currentTarget.checked ? cols.concat(n) : cols.filter((c) => c !== n))} /> {n}
          </label>
        ))}
      </div>
    </div>
  );
}


// SavedMenu saves the search as it stands (source, where, columns) under a
// name, and opens the team's saved searches of this kind of source: the
// REST API's /api/v2/saved-searches, shared by the whole team.
function SavedMenu({ kind, src, sources, where, lang, cols }: { kind: string; src: Source; sources: Source[]; where: string; lang: string; cols: string[] }) {
  const [list, setList] = useState<SavedSearch[] | null>(null);
  const [open, setOpen] = useState(false);
  const [naming, setNaming] = useState(false);
  // The menus open toward the room there is: right-aligned under the
  // buttons, unless the bar has wrapped them to its left edge, where a
  // right-aligned popover would reach under the Fields sidebar.
  const box = useRef<HTMLDivElement>(null);
  const [leftward, setLeftward] = useState(true);
  const place = () => {
    const el = box.current;
    const bar = el?.closest('.searchbar')?.getBoundingClientRect();
    if (el && bar) setLeftward(el.getBoundingClientRect().right - 400 >= bar.left);
  };
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const [confirm, setConfirm] = useState('');
  const [imported, setImported] = useState<ImportedView | null>(null);
  const load = () => { get<SavedSearch[]>('/api/v2/saved-searches').then(setList).catch((e) => setError(e.message)); };
  useEffect(load, []);
  const mine = (list ?? []).filter((x) => sources.some((y) => y.id === x.sourceId));
  const save = async (e: Event) => {
    e.preventDefault();
    // Two saved searches of one name cannot be told apart in the list:
    // the team's names are unique, any case, whatever the kind.
    const taken = (list ?? []).find((x) => x.name.trim().toLowerCase() === name.trim().toLowerCase());
    if (taken) { setError(`A saved search is already named “${taken.name}”: choose another name.`); return; }
    try {
      await post('/api/v2/saved-searches', { name: name.trim(), sourceId: src.id, where, whereLanguage: lang, select: cols.join(', ') });
      setNaming(false);
      setName('');
      setError('');
      load();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const path = kind === 'log' ? '/search/logs' : '/search/traces';
  // A saved search keeps no range: opening one keeps the range on screen
  // (relative or absolute) rather than going back to the default.
  const openSaved = (x: SavedSearch) => {
    const q = new URLSearchParams({ source: x.sourceId, q: x.where });
    const here = new URLSearchParams(location.search);
    for (const k of ['range', 'from', 'to']) { const v = here.get(k); if (v) q.set(k, v); }
    if (langOf(x.whereLanguage) !== 'lucene') q.set('lang', langOf(x.whereLanguage));
    const cols = x.select.split(',').map((c) => c.trim()).filter(Boolean);
    if (cols.length) q.set('cols', cols.join(','));
    setOpen(false);
    navigate(`${path}?${q}`);
  };
  return (
    <div class={leftward ? 'saved' : 'saved rightward'} ref={box}>
      <button type="button" class="ghost" onClick={() => { place(); setOpen(!open); }} data-testid="saved-menu">Saved ({mine.length})</button>
      <button type="button" class="ghost" onClick={() => { place(); setNaming(!naming); }}>Save</button>
      {naming && (
        <form class="popover saved-form" onSubmit={save}>
          <label>Name this search<input name="saved-name" value={name} onInput={(e) => setName(e.currentTarget.value)} required /></label>
          <button class="primary" type="submit">Save for the team</button>
          {error && <p class="error small">{error}</p>}
        </form>
      )}
      {open && (
        <div class="popover saved-list">
          {error && !naming && <p class="error small">{error}</p>}
          {mine.length === 0 ? <p class="muted small">No saved search yet.</p> : mine.map((x) => (
            <div class="saved-item" data-saved={x.name}>
              <a href="#" onClick={(e) => { e.preventDefault(); openSaved(x); }}>{x.name}</a>
              <code class="small">{x.where || '(everything)'}</code>
              {confirm === x.id ? (
                <span class="confirm small" role="alertdialog">Delete for the whole team?{' '}
                  <button class="small danger" data-action="confirm-delete" onClick={async () => {
                    setConfirm('');
                    try { await del(`/api/v2/saved-searches/${x.id}`); } catch (err) { setError(messageOf(err)); }
                    load();
                  }}>Delete</button>{' '}
                  <button class="small" onClick={() => setConfirm('')}>Cancel</button>
                </span>
              ) : <button class="link" title="Delete" aria-label={`Delete ${x.name}`} data-action="delete" onClick={() => setConfirm(x.id)}>×</button>}
            </div>
          ))}
          <div class="saved-import">
            <DatadogImportButton<ImportedView> path="/api/v2/saved-searches/import" what="saved view" label="Import Datadog view"
              onStart={() => setImported(null)} onImported={(r) => { setImported(r); setError(''); load(); }} onError={setError} />
          </div>
          {imported && <DatadogImportReport report={imported.report} onClose={() => setImported(null)} heading={<>
            Imported “<a href="#" onClick={(e) => { e.preventDefault(); setImported(null); openSaved(imported.data); }}>{imported.data.name}</a>”</>} />}
        </div>
      )}
    </div>
  );
}
