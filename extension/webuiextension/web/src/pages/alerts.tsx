import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { onLink } from '../router';
import { fmtShort } from '../time';

interface Alert {
  id: string;
  name: string;
  message: string;
  source: string;
  dashboardId: string;
  tileId: string;
  savedSearchId?: string;
  groupBy?: string;
  threshold: number;
  thresholdType: string;
  interval: string;
  state: string;
  channel: { type: string; webhookId: string };
}

interface Evaluation {
  windowStart: string;
  state: string;
  value: number | null;
  group: string;
  notified: boolean;
  deliveryError: string;
}

// AlertsPage lists the team's alerts with their state, and an alert's
// recent evaluations.
export function AlertsPage() {
  const [list, setList] = useState<Alert[] | null>(null);
  const [open, setOpen] = useState('');
  const [history, setHistory] = useState<Evaluation[] | null>(null);
  const [error, setError] = useState('');
  const [saved, setSaved] = useState<Record<string, string>>({});
  useEffect(() => { get<Alert[]>('/api/alerts').then(setList).catch((e) => setError(e.message)); }, []);
  useEffect(() => {
    get<{ id: string; name: string }[]>('/api/saved-searches')
      .then((l) => setSaved(Object.fromEntries(l.map((x) => [x.id, x.name])))).catch(() => {});
  }, []);
  useEffect(() => {
    setHistory(null);
    if (open) get<Evaluation[]>(`/api/alerts/${open}/history`).then(setHistory).catch((e) => setError(e.message));
  }, [open]);
  return (
    <div class="page">
      <h1>Alerts</h1>
      {error && <p class="error" role="alert">{error}</p>}
      {!list ? <p class="muted">Loading…</p> : list.length === 0 ? (
        <p class="muted">No alert yet. Alerts watch a dashboard tile or a saved search: create one with <code>POST /api/v2/alerts</code>.</p>
      ) : (
        <table class="rows" data-testid="alerts">
          <thead><tr><th>State</th><th>Name</th><th>Condition</th><th>Every</th><th>Watches</th></tr></thead>
          <tbody>
            {list.map((a) => (
              <>
                <tr onClick={() => setOpen(open === a.id ? '' : a.id)}>
                  <td><span class={a.state === 'ALERT' ? 'sev err' : 'sev info'}>{a.state}</span></td>
                  <td>{a.name}</td>
                  <td>{a.thresholdType} {a.threshold}</td>
                  <td>{a.interval}</td>
                  <td>{a.source === 'saved_search'
                    ? <span>saved search “{saved[a.savedSearchId ?? ''] ?? a.savedSearchId}”{a.groupBy ? ` by ${a.groupBy}` : ''}</span>
                    : <a href={`/dashboards/${a.dashboardId}`} onClick={(e) => { e.stopPropagation(); onLink(e, `/dashboards/${a.dashboardId}`); }}>dashboard tile</a>}</td>
                </tr>
                {open === a.id && (
                  <tr class="detail"><td colSpan={5}>
                    {!history ? <span class="muted small">Loading…</span> : history.length === 0 ? <span class="muted small">Not evaluated yet.</span> : (
                      <table class="plain small">
                        <tbody>{history.map((h) => (
                          <tr>
                            <td>{fmtShort(Date.parse(h.windowStart))}</td>
                            <td><span class={h.state === 'ALERT' ? 'sev err' : 'sev info'}>{h.state}</span></td>
                            <td>{h.value ?? '–'}</td>
                            <td>{h.group}</td>
                            <td>{h.notified ? 'notified' : ''}{h.deliveryError && <span class="error"> {h.deliveryError}</span>}</td>
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
    </div>
  );
}
