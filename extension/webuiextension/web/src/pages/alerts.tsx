import { useEffect, useRef, useState } from 'preact/hooks';
import { Answer, del, Evaluation, get, messageOf, post, put, Schemas, Webhook, Whole } from '../api';
import { DatadogImportButton, DatadogImportReport } from '../components/datadogimport';
import { onLink } from '../router';
import { watchedLabel } from '../tiles';
import { fmtShort } from '../time';
import './dashboards.css';

type TestResult = Answer<'/api/v2/webhooks/{id}/test', 'post'>;
type ImportedMonitor = Whole<'/api/v2/alerts/import', 'post'>;

// The lengths an alert can be muted for from the list (the API takes any
// time up to 30 days ahead).
const mutes: [string, number][] = [['1 hour', 3600e3], ['4 hours', 4 * 3600e3], ['1 day', 24 * 3600e3], ['1 week', 7 * 24 * 3600e3]];
const muted = (a: Alert) => !!a.silenced && Date.parse(a.silenced.until) > Date.now();

// Alerts and webhooks are the REST API's documents, made, changed and
// deleted through /api/v2/alerts and /api/v2/webhooks; their mistakes are
// the API's messages, shown beside the form.

// Alert is an alert as /api/v2/alerts answers it.
export type Alert = Schemas['Alert'];


// delivery says what became of an evaluation's notification: only a
// change of state (to ALERT, or back to OK) sends one.
function delivery(h: Evaluation): string {
  const tries = h.deliveryAttempts ?? 0;
  if (h.notified) return tries > 1 ? `delivered after ${tries} attempts` : 'delivered';
  if (h.deliveryError) return `failed after ${tries} attempt${tries === 1 ? '' : 's'}:`;
  return 'no change, nothing sent';
}

const usesHook = (a: Alert, id: string) => (a.channels ?? [a.channel]).some((c) => c?.webhookId === id);

function fmtValue(v: number | null): string {
  if (v === null || v === undefined) return '–';
  return Number.isInteger(v) ? String(v) : v.toPrecision(4);
}

// stateClass colours a state: NO_DATA (the query found nothing to judge)
// is a warning, not the green of OK.
const stateClass = (s?: string) => s === 'ALERT' ? 'sev err' : s === 'NO_DATA' ? 'sev warn' : s === 'PENDING' ? 'sev dbg' : 'sev info';

// shownState is an alert's state as the list shows it: a new alert is
// stored as OK, but until its first evaluation (none in its history) it
// is PENDING, not a verdict.
const shownState = (a: Alert, last: Evaluation | null | undefined) => (!a.state || (a.state === 'OK' && last === null) ? 'PENDING' : a.state);

const intervals = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'];

// The threshold types, HyperDX's, as the form words them; the ranges
// take thresholdMax.
const thresholdTypes: [Alert['thresholdType'], string][] = [
  ['above', 'at or above'], ['above_exclusive', 'above'], ['below', 'below'], ['below_or_equal', 'at or below'],
  ['equal', 'equal to'], ['not_equal', 'not equal to'], ['between', 'between'], ['not_between', 'outside'],
];
const isRange = (t?: string) => t === 'between' || t === 'not_between';

// condition words an alert's threshold.
function condition(a: Alert): string {
  const words = thresholdTypes.find(([t]) => t === a.thresholdType)?.[1] ?? a.thresholdType;
  return isRange(a.thresholdType) ? `${words} ${a.threshold} and ${a.thresholdMax}` : `${words} ${a.threshold}`;
}

function body(a: Partial<Alert> & { teamId?: unknown; executionErrors?: unknown }) {
  const { id: _i, createdAt: _c, updatedAt: _u, state: _s, silenced: _m, teamId: _t, executionErrors: _e, ...rest } = a;
  // The form picks one webhook, the first channel: the alert's other
  // channels stay.
  if (rest.channel) {
    const first = rest.channel;
    rest.channels = [first, ...(rest.channels ?? []).slice(1).filter((c) => c.webhookId !== first.webhookId)];
  }
  if (!isRange(rest.thresholdType)) delete rest.thresholdMax;
  return rest;
}

// AlertForm makes an alert (or changes one, with an id): what it watches
// comes in initial (a tile or a saved search). Its "New webhook" swaps the
// alert's fields for the webhook form in place (the alert typed so far is
// kept) and comes back with the new webhook picked: making the webhook
// an alert needs does not send the user away from the alert.
export function AlertForm({ initial, onDone, onCancel }: { initial: Partial<Alert>; onDone: () => void; onCancel: () => void }) {
  const [a, setA] = useState<Partial<Alert>>({ threshold: 1, thresholdType: 'above', interval: '5m', channel: { type: 'webhook', webhookId: '' }, ...initial });
  const [hooks, setHooks] = useState<Webhook[]>([]);
  const [hooksRead, setHooksRead] = useState(false);
  const [searchesRead, setSearchesRead] = useState(false);
  const [searches, setSearches] = useState<{ id: string; name: string }[]>([]);
  const [error, setError] = useState('');
  const [newHook, setNewHook] = useState(false);
  const onSearch = a.source === 'saved_search';
  useEffect(() => {
    if (onSearch) {
      get<{ id: string; name: string }[]>('/api/v2/saved-searches').then((l) => {
        setSearches(l);
        setSearchesRead(true);
        if (!a.savedSearchId && l.length) setA((x) => ({ ...x, savedSearchId: l[0].id }));
      }).catch((e) => setError(e.message));
    }
    get<Webhook[]>('/api/v2/webhooks').then((l) => {
      setHooks(l);
      setHooksRead(true);
      if (!a.channel?.webhookId && l.length) setA((x) => ({ ...x, channel: { type: 'webhook', webhookId: l[0].id } }));
    }).catch((e) => setError(e.message));
  }, []);
  if (newHook) {
    return (
      <div data-testid="alert-new-webhook">
        <h3>New webhook for this alert</h3>
        <p class="muted small">Saving it returns to the alert with the webhook picked.</p>
        <WebhookForm initial={{}} onCancel={() => setNewHook(false)} onDone={(w) => {
          setHooks((l) => l.concat(w));
          setHooksRead(true);
          setA((x) => ({ ...x, channel: { type: 'webhook', webhookId: w.id } }));
          setNewHook(false);
        }} />
      </div>
    );
  }
  return (
    <form data-testid="alert-form" onSubmit={async (e) => {
      e.preventDefault();
      try {
        if (a.id) await put(`/api/v2/alerts/${a.id}`, body(a));
        else await post('/api/v2/alerts', body(a));
        onDone();
      } catch (err) { setError(messageOf(err)); }
    }}>
      <div class="form-grid">
        <label class="wide">Name<input name="alert-name" value={a.name ?? ''} onInput={(e) => setA({ ...a, name: e.currentTarget.value })} /></label>
        {onSearch && <>
          <label>Saved search<select name="savedSearch" value={a.savedSearchId ?? ''} onChange={(e) => setA({ ...a, savedSearchId: e.currentTarget.value })}>
            {searches.length === 0 && <option value="">(none yet)</option>}
            {searches.map((x) => <option value={x.id}>{x.name}</option>)}</select></label>
          <label>Group by (optional)<input name="alert-groupBy" placeholder="ServiceName" value={a.groupBy ?? ''} onInput={(e) => setA({ ...a, groupBy: e.currentTarget.value || undefined })} /></label>
          {searchesRead && searches.length === 0 && <p class="muted small wide" data-testid="alert-no-search">
            The team has no saved search yet: search on the <a href="/search/logs" onClick={(e) => onLink(e, '/search/logs')}>Logs</a> or <a href="/search/traces" onClick={(e) => onLink(e, '/search/traces')}>Traces</a> page and Save it, then come back.</p>}
          <p class="muted small wide">The value is the number of events the search matches in each interval{a.groupBy ? ', per group' : ''}.</p>
        </>}
        <label>When the value is<select name="thresholdType" value={a.thresholdType} onChange={(e) => setA({ ...a, thresholdType: e.currentTarget.value as Alert['thresholdType'] })}>
          {thresholdTypes.map(([t, words]) => <option value={t}>{words}</option>)}</select></label>
        <label>Threshold<input name="threshold" type="number" step="any" value={String(a.threshold ?? '')} onInput={(e) => setA({ ...a, threshold: e.currentTarget.value === '' ? (undefined as unknown as number) : Number(e.currentTarget.value) })} /></label>
        {isRange(a.thresholdType) && <label>and<input name="thresholdMax" type="number" step="any" value={String(a.thresholdMax ?? '')} onInput={(e) => setA({ ...a, thresholdMax: e.currentTarget.value === '' ? undefined : Number(e.currentTarget.value) })} /></label>}
        <label>Every<select name="interval" value={a.interval} onChange={(e) => setA({ ...a, interval: e.currentTarget.value as Alert['interval'] })}>
          {intervals.map((i) => <option value={i}>{i}</option>)}</select></label>
        <label>Webhook<select name="webhook" value={a.channel?.webhookId} onChange={(e) => setA({ ...a, channel: { type: 'webhook', webhookId: e.currentTarget.value } })}>
          {hooks.length === 0 && <option value="">(none yet)</option>}
          {hooks.map((h) => <option value={h.id}>{h.name}</option>)}</select></label>
        <div class="field-action"><button type="button" data-action="alert-new-webhook" onClick={() => setNewHook(true)}>New webhook</button></div>
        {hooksRead && hooks.length === 0 && <p class="muted small wide" data-testid="alert-no-webhook">
          An alert notifies a webhook, and the team has none yet: make one with New webhook.</p>}
      </div>
      {error && <p class="error small" role="alert" data-testid="alert-error">{error}</p>}
      <div class="editor-actions">
        <button type="button" onClick={onCancel}>Cancel</button>
        <button class="primary" type="submit" data-action="save-alert" disabled={(hooksRead && hooks.length === 0) || (onSearch && searchesRead && searches.length === 0)}>{a.id ? 'Save alert' : 'Create alert'}</button>
      </div>
    </form>
  );
}

// WebhookForm makes or changes a webhook. Header values are write-only:
// the API never answers them, so they are typed anew or left as they are.
function WebhookForm({ initial, onDone, onCancel }: { initial: Partial<Webhook>; onDone: (saved: Webhook) => void; onCancel: () => void }) {
  const [w, setW] = useState<Partial<Webhook>>({ service: 'generic', ...initial });
  const [headers, setHeaders] = useState('');
  const [error, setError] = useState('');
  return (
    <form data-testid="webhook-form" onSubmit={async (e) => {
      e.preventDefault();
      const out: Partial<Webhook> & { headers?: Record<string, string> } = { name: w.name ?? '', url: w.url ?? '', service: w.service, description: w.description || undefined, body: w.body || undefined };
      if (headers.trim()) {
        out.headers = {};
        for (const line of headers.split('\n')) {
          const i = line.indexOf(':');
          if (line.trim() && i < 1) { setError(`header “${line}” is not name: value`); return; }
          if (i > 0) out.headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
        }
      }
      try {
        onDone(w.id ? await put<Webhook>(`/api/v2/webhooks/${w.id}`, out) : await post<Webhook>('/api/v2/webhooks', out));
      } catch (err) { setError(messageOf(err)); }
    }}>
      <div class="form-grid">
        <label>Name<input name="webhook-name" value={w.name ?? ''} onInput={(e) => setW({ ...w, name: e.currentTarget.value })} /></label>
        <label>Service<select name="service" value={w.service} onChange={(e) => setW({ ...w, service: e.currentTarget.value })}>
          {['generic', 'slack', 'incidentio', 'pagerduty'].map((s) => <option value={s}>{s}</option>)}</select></label>
        <label class="wide">URL<input name="webhook-url" value={w.url ?? ''} onInput={(e) => setW({ ...w, url: e.currentTarget.value })} /></label>
        <label class="wide">Headers, one “Name: value” a line{w.id ? ' (set ones are kept unless you type new ones; they are never shown)' : ''}
          <textarea name="headers" rows={3} value={headers} placeholder={w.id ? '(unchanged)' : 'Authorization: Bearer …'} onInput={(e) => setHeaders(e.currentTarget.value)} /></label>
      </div>
      {error && <p class="error small" role="alert" data-testid="webhook-error">{error}</p>}
      <div class="editor-actions">
        <button type="button" onClick={onCancel}>Cancel</button>
        <button class="primary" type="submit" data-action="save-webhook">{w.id ? 'Save webhook' : 'Create webhook'}</button>
      </div>
    </form>
  );
}

// TileWatched names a tile alert's dashboard and tile (a link to the
// dashboard) and what of the tile it judges; before the dashboards are
// read, or for a tile gone, just a link. An unnamed tile is known by what
// it draws, which follows: not called "tile".
function TileWatched({ a, d }: { a: Alert; d?: Schemas['Dashboard'] }) {
  const tile = d?.tiles.find((t) => t.id === a.tileId);
  const href = `/dashboards/${a.dashboardId}`;
  return (
    <span data-testid="alert-tile">
      <a href={href} onClick={(e) => { e.stopPropagation(); onLink(e, href); }}>{d && tile ? (tile.name ? `“${d.name}” › “${tile.name}”` : `“${d.name}”`) : 'dashboard tile'}</a>
      {tile && <span class="muted small" data-testid="alert-watched">: {watchedLabel(tile.config)}</span>}
    </span>
  );
}

// AlertsPage lists the team's alerts with their state, an alert's recent
// evaluations, and the webhooks they deliver to.
export function AlertsPage() {
  const [list, setList] = useState<Alert[] | null>(null);
  const [hooks, setHooks] = useState<Webhook[]>([]);
  // ?alert=<id> (an alert-list tile's link) opens that alert's row.
  const [open, setOpen] = useState(() => new URL(location.href).searchParams.get('alert') ?? '');
  const [history, setHistory] = useState<Evaluation[] | null>(null);
  const [error, setError] = useState('');
  const [saved, setSaved] = useState<Record<string, string>>({});
  // dashboards name a tile alert's dashboard and tile, and say what of
  // the tile it judges (a ratio, a metric).
  const [dashboards, setDashboards] = useState<Record<string, Schemas['Dashboard']>>({});
  const [editAlert, setEditAlert] = useState<Alert | null>(null);
  const [editHook, setEditHook] = useState<Partial<Webhook> | null>(null);
  // The modal holds one form: opening one closes the other (an alert read
  // before it opens may arrive after a webhook's Edit).
  const openAlert = (a: Alert) => { setEditHook(null); setEditAlert(a); };
  const openHook = (h: Partial<Webhook>) => { setEditAlert(null); setEditHook(h); };
  const [confirm, setConfirm] = useState('');
  const [last, setLast] = useState<Record<string, Evaluation | null>>({});
  // tests holds each webhook's last "Send test": under way, or what its
  // receiver answered.
  const [tests, setTests] = useState<Record<string, TestResult | 'sending'>>({});
  const sendTest = (id: string) => {
    setTests((t) => ({ ...t, [id]: 'sending' }));
    post<TestResult>(`/api/v2/webhooks/${id}/test`, {})
      .then((r) => setTests((t) => ({ ...t, [id]: r })))
      .catch((e) => setTests((t) => ({ ...t, [id]: { delivered: false, status: 0, attempts: 0, durationMs: 0, error: e.message } })));
  };
  // hookError is the API's refusal to delete a webhook, shown on its row.
  const [hookError, setHookError] = useState<{ id: string; msg: string } | null>(null);
  // A monitor imported from Datadog is delivered to the webhook chosen
  // here (the first one unless another is picked).
  const [importHook, setImportHook] = useState('');
  const [imported, setImported] = useState<ImportedMonitor | null>(null);
  // A failed import's message, where its report would be (the page's
  // error line is out of sight at the top of a long page).
  const [importError, setImportError] = useState('');
  useEffect(() => { if (!hooks.some((h) => h.id === importHook)) setImportHook(hooks[0]?.id ?? ''); }, [hooks]);
  const load = () => {
    get<Alert[]>('/api/v2/alerts').then((l) => {
      setList(l);
      // Each alert's last evaluation, beside its state.
      Promise.all(l.map((a) => get<Evaluation[]>(`/api/v2/alerts/${a.id}/history?limit=1`).then((h) => [a.id, h[0] ?? null] as const).catch(() => [a.id, null] as const)))
        .then((pairs) => setLast(Object.fromEntries(pairs)));
    }).catch((e) => setError(e.message));
    get<Webhook[]>('/api/v2/webhooks').then(setHooks).catch((e) => setError(e.message));
  };
  useEffect(load, []);
  // The row a link opened is brought into view once the list is there.
  const linked = useRef(open);
  useEffect(() => {
    if (!list || !linked.current) return;
    document.querySelector(`tr[data-alert-id="${CSS.escape(linked.current)}"]`)?.scrollIntoView({ block: 'center' });
    linked.current = '';
  }, [list]);
  // States change as the scheduler evaluates: the list follows them.
  useEffect(() => {
    const t = window.setInterval(() => { if (!document.hidden) load(); }, 10_000);
    return () => window.clearInterval(t);
  }, []);
  useEffect(() => {
    get<Schemas['Dashboard'][]>('/api/v2/dashboards')
      .then((l) => setDashboards(Object.fromEntries(l.map((d) => [d.id, d]))))
      .catch((e) => setError(`Dashboards could not be read (tile alerts' tiles are not named): ${e.message}`));
  }, []);
  useEffect(() => {
    get<{ id: string; name: string }[]>('/api/v2/saved-searches')
      .then((l) => setSaved(Object.fromEntries(l.map((x) => [x.id, x.name]))))
      .catch((e) => setError(`Saved searches could not be read (their names are missing): ${e.message}`));
  }, []);
  useEffect(() => {
    setHistory(null);
    if (open) get<Evaluation[]>(`/api/v2/alerts/${open}/history`).then(setHistory).catch((e) => setError(e.message));
  }, [open, last]);
  const act = (p: Promise<unknown>) => p.then(() => { setError(''); setHookError(null); load(); }).catch((e) => setError(e.message));
  const hookName = Object.fromEntries(hooks.map((h) => [h.id, h.name]));
  return (
    <div class="page">
      <h1>Alerts</h1>
      {error && <p class="error" role="alert" data-testid="alerts-error">{error}</p>}
      {!list ? <p class="muted">Loading…</p> : list.length === 0 ? (
        <p class="muted">No alert yet. “Alert” on a dashboard's chart tile, or on a saved search, makes one.</p>
      ) : (
        <table class="rows" data-testid="alerts">
          <thead><tr><th>State</th><th>Name</th><th>Condition</th><th>Every</th><th>Last evaluated</th><th>Watches</th><th>Webhook</th><th /></tr></thead>
          <tbody>
            {list.map((a) => (
              <>
                <tr data-alert={a.name} data-alert-id={a.id} class={open === a.id ? 'open' : undefined} onClick={() => setOpen(open === a.id ? '' : a.id)}>
                  <td data-testid="alert-state"><span class={stateClass(shownState(a, last[a.id]))} title={shownState(a, last[a.id]) === 'PENDING' ? 'not evaluated yet' : undefined}>{shownState(a, last[a.id])}</span>
                    {muted(a) && <span class="muted small" data-testid="alert-muted" title={`muted by ${a.silenced!.by}`}> muted until {fmtShort(Date.parse(a.silenced!.until))}</span>}</td>
                  <td class="wrap">{a.name}</td>
                  <td>{condition(a)}{a.numConsecutiveWindows && a.numConsecutiveWindows > 1 ? `, ${a.numConsecutiveWindows} windows in a row` : ''}</td>
                  <td>{a.interval}</td>
                  <td class="small wrap" data-testid="alert-last">{last[a.id] ? `${fmtShort(last[a.id]!.evaluatedAt)} (value ${fmtValue(last[a.id]!.value ?? null)})` : <span class="muted">not yet</span>}</td>
                  <td class="wrap">{a.source === 'saved_search'
                    ? <span>saved search “{saved[a.savedSearchId ?? ''] ?? a.savedSearchId}”{a.groupBy ? ` by ${a.groupBy}` : ''}</span>
                    : a.source === 'inline' ? <span data-testid="alert-inline">its own chart (made through the API)</span>
                    : <TileWatched a={a} d={dashboards[a.dashboardId ?? '']} />}</td>
                  <td>{(a.channels ?? [a.channel]).map((c) => hookName[c.webhookId] ?? c.webhookId).join(', ')}</td>
                  <td class="actions" onClick={(e) => e.stopPropagation()}>{confirm === a.id ? (
                    <span class="confirm" role="alertdialog">Delete?{' '}
                      <button class="small danger" data-action="confirm-delete" onClick={() => { setConfirm(''); act(del(`/api/v2/alerts/${a.id}`)); }}>Delete</button>{' '}
                      <button class="small" onClick={() => setConfirm('')}>Cancel</button></span>
                  ) : (<>
                    {muted(a)
                      ? <button class="small" data-action="unmute-alert" onClick={() => act(del(`/api/v2/alerts/${a.id}/silenced`))}>Unmute</button>
                      : <select class="small" name="mute" aria-label={`Mute ${a.name}`} data-action="mute-alert" value=""
                        onChange={(e) => { const ms = Number(e.currentTarget.value); if (ms) act(post(`/api/v2/alerts/${a.id}/silenced`, { mutedUntil: Date.now() + ms })); }}>
                        <option value="">Mute…</option>
                        {mutes.map(([label, ms]) => <option value={ms}>for {label}</option>)}
                      </select>}{' '}
                    <button class="small" data-action="edit-alert" onClick={() => {
                      // A list leaves an inline alert's chart out; the form
                      // sends it back, so it edits the alert as one GET has it.
                      if (a.source === 'inline') get<Alert>(`/api/v2/alerts/${a.id}`).then(openAlert).catch((e) => setError(messageOf(e)));
                      else openAlert(a);
                    }}>Edit</button>{' '}
                    <button class="small" data-action="delete-alert" onClick={() => setConfirm(a.id)}>Delete</button>
                  </>)}</td>
                </tr>
                {open === a.id && (
                  <tr class="detail"><td colSpan={8}>
                    {!history ? <span class="muted small">Loading…</span> : history.length === 0 ? <span class="muted small">Not evaluated yet.</span> : (
                      <table class="plain small" data-testid="alert-history">
                        <thead><tr><th>Window</th><th>State</th><th>Value</th><th>Group</th><th>Notification</th><th>Evaluated</th></tr></thead>
                        <tbody>{history.map((h) => (
                          <tr data-window={h.windowStart}>
                            <td>{fmtShort(h.windowStart)} – {fmtShort(h.windowEnd)}</td>
                            <td><span class={stateClass(h.state)}>{h.state}</span></td>
                            <td data-testid="history-value">{fmtValue(h.value ?? null)}</td>
                            <td>{h.group && h.group !== '[]' ? h.group : '–'}</td>
                            <td data-testid="history-delivery">{delivery(h)}{h.deliveryError && <span class="error"> {h.deliveryError}</span>}</td>
                            <td>{fmtShort(h.evaluatedAt)}</td>
                          </tr>
                        ))}</tbody>
                      </table>
                    )}
                  </td></tr>
                )}
              </>
            ))}
          </tbody>
        </table>
      )}
      <div class="editor-actions">
        <button data-action="new-search-alert" onClick={() => openAlert({ source: 'saved_search', name: '' } as Alert)}>New alert on a saved search</button>
        <span class="import-monitor">
          {hooks.length === 0 ? <span class="muted small" data-testid="import-needs-webhook">An imported monitor delivers to a webhook: make one below first.</span> : (
            <label class="small">Deliver imports to{' '}
              <select name="import-webhook" value={importHook} onChange={(e) => setImportHook(e.currentTarget.value)}>
                {hooks.map((h) => <option value={h.id}>{h.name}</option>)}
              </select></label>)}{' '}
          <DatadogImportButton<ImportedMonitor> path={`/api/v2/alerts/import?webhookId=${encodeURIComponent(importHook)}`} what="monitor" label="Import Datadog monitor"
            disabled={!importHook} disabledWhy="An imported monitor delivers to a webhook: make one first"
            onStart={() => { setImported(null); setImportError(''); }}
            onImported={(r) => { setImported(r); setError(''); load(); }} onError={setImportError} />
        </span>
      </div>
      {importError && <p class="error" role="alert" data-testid="import-error">The monitor was not imported: {importError}</p>}
      {imported && <DatadogImportReport report={imported.report} onClose={() => setImported(null)} heading={<>
        Imported alert “{imported.data.name}”{imported.alerts.length > 1 && <> and, for its warning threshold, “{imported.alerts.slice(1).map((a) => a.name).join('”, “')}”</>}, watching {imported.dashboard
          ? <a href={`/dashboards/${imported.dashboard.id}`} onClick={(e) => onLink(e, `/dashboards/${imported.dashboard!.id}`)}>dashboard “{imported.dashboard.name}”</a>
          : <>saved search “{imported.savedSearch?.name}”</>}</>} />}
      <div class="row-between">
        <h2>Webhooks</h2>
        <button class="primary" data-action="new-webhook" onClick={() => openHook({})}>New webhook</button>
      </div>
      {hooks.length === 0 ? <p class="muted">No webhook yet: alerts deliver to one.</p> : (
        <table class="rows" data-testid="webhooks">
          <thead><tr><th>Name</th><th>Service</th><th>URL</th><th /></tr></thead>
          <tbody>{hooks.map((h) => (<>
            <tr data-webhook={h.name}>
              <td>{h.name}</td><td>{h.service}</td><td class="mono small">{h.url}</td>
              <td class="actions">{confirm === h.id ? (
                <span class="confirm" role="alertdialog">Delete?{' '}
                  <button class="small danger" data-action="confirm-delete" onClick={() => {
                    setConfirm('');
                    setHookError(null);
                    del(`/api/v2/webhooks/${h.id}`).then(load).catch((e) => setHookError({ id: h.id, msg: e.message }));
                  }}>Delete</button>{' '}
                  <button class="small" onClick={() => setConfirm('')}>Cancel</button></span>
              ) : (<>
                <button class="small" data-action="test-webhook" disabled={tests[h.id] === 'sending'} onClick={() => sendTest(h.id)}>Send test</button>{' '}
                <button class="small" data-action="edit-webhook" onClick={() => openHook(h)}>Edit</button>{' '}
                <button class="small" data-action="delete-webhook" onClick={() => setConfirm(h.id)}>Delete</button>
              </>)}</td>
            </tr>
            {tests[h.id] && tests[h.id] !== 'sending' && (() => {
              const r = tests[h.id] as TestResult;
              return (
                <tr class="detail" data-webhook-test={h.name}><td colSpan={4}>
                  <p class={r.delivered ? 'small' : 'error small'} role="status" data-testid="webhook-test-result">
                    {r.delivered ? 'Delivered' : 'Not delivered'}: {r.status ? `HTTP ${r.status}` : 'no answer'} in {r.durationMs} ms{r.error ? ` (${r.error})` : ''}
                  </p>
                </td></tr>
              );
            })()}
            {hookError?.id === h.id && (
              <tr class="detail" data-webhook-error={h.name}><td colSpan={4}>
                <p class="error small" role="alert" data-testid="webhook-delete-error">{hookError.msg}
                  {(list ?? []).some((a) => usesHook(a, h.id)) && <>. Used by: {(list ?? []).filter((a) => usesHook(a, h.id)).map((a) => `“${a.name}”`).join(', ')}.</>}</p>
              </td></tr>
            )}
          </>))}</tbody>
        </table>
      )}
      {(editAlert || editHook) && (
        <div class="modal-back">
          <div class="modal card" role="dialog">
            {editAlert ? <><h2>{editAlert.id ? `Alert “${editAlert.name}”` : 'New alert on a saved search'}</h2><AlertForm initial={editAlert} onDone={() => { setEditAlert(null); load(); }} onCancel={() => { setEditAlert(null); load(); }} /></> : editHook && <><h2>{editHook.id ? `Webhook “${editHook.name}”` : 'New webhook'}</h2><WebhookForm initial={editHook} onDone={() => { setEditHook(null); load(); }} onCancel={() => setEditHook(null)} /></>}
          </div>
        </div>
      )}
    </div>
  );
}
