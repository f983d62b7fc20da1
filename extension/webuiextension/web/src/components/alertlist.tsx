import { useEffect, useState } from 'preact/hooks';
import { Evaluation, get, Schemas } from '../api';
import { alertListed, byState, lastFired } from '../alertlist';
import { onLink } from '../router';
import { fmtShort } from '../time';

type Alert = Schemas['Alert'];
type TileConfig = Schemas['TileConfig'];

// historyShown bounds the history reads a tile makes (one per alert, for
// its last firing); the alerts past it show their state only.
const historyShown = 50;

// AlertListTile is an alert-list tile's body: the team's alerts it
// lists, worst state first, each linking to its row on the Alerts page,
// with when it last fired. It reads again when the dashboard's range
// moves (its refresh).
export function AlertListTile({ c, from, to }: { c: TileConfig; from: number; to: number }) {
  const [alerts, setAlerts] = useState<Alert[] | null>(null);
  const [fired, setFired] = useState<Record<string, number | null>>({});
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    get<Alert[]>('/api/v2/alerts').then((l) => {
      if (!live) return;
      const shown = l.filter((a) => alertListed(c, a)).sort(byState);
      setAlerts(shown);
      setError('');
      Promise.all(shown.slice(0, historyShown).map((a) => get<Evaluation[]>(`/api/v2/alerts/${a.id}/history?limit=100`)
        .then((h) => [a.id, lastFired(h)] as const).catch(() => [a.id, null] as const)))
        .then((pairs) => { if (live) setFired(Object.fromEntries(pairs)); });
    }).catch((e) => { if (live) setError(e.message); });
    return () => { live = false; };
  }, [JSON.stringify(c), from, to]);
  if (error) return <p class="error small" data-testid="tile-error">{error}</p>;
  if (!alerts) return <p class="muted small">Loading…</p>;
  if (!alerts.length) {
    return <p class="muted small" data-testid="alert-list-empty">{c.where || c.alertStates?.length ? 'No alert matches this tile’s filter.' : 'No alert yet: the Alerts page makes one.'}</p>;
  }
  return (
    <div class="tile-scroll">
      <table class="plain small" data-testid="alert-list">
        <thead><tr><th>State</th><th>Alert</th><th>Last fired</th></tr></thead>
        <tbody>{alerts.map((a) => {
          const to2 = `/alerts?alert=${encodeURIComponent(a.id)}`;
          const f = fired[a.id];
          return (
            <tr data-alert={a.name ?? ''}>
              <td><span class={a.state === 'ALERT' ? 'sev err' : a.state === 'NO_DATA' ? 'sev warn' : 'sev info'}>{a.state}</span></td>
              <td class="wrap"><a href={to2} onClick={(e) => onLink(e, to2)}>{a.name || '(unnamed alert)'}</a></td>
              <td>{f ? fmtShort(f) : f === null ? <span class="muted" title="not in its last 100 evaluations">–</span> : ''}</td>
            </tr>
          );
        })}</tbody>
      </table>
    </div>
  );
}

const states: Alert['state'][] = ['ALERT', 'NO_DATA', 'OK'];

// AlertListFields edit an alert-list tile's filter in the tile editor.
export function AlertListFields({ c, setC }: { c: TileConfig; setC: (patch: Partial<TileConfig>) => void }) {
  const on = c.alertStates ?? [];
  return (
    <>
      <label class="wide">Name contains (every word, optional)<input name="alert-filter" placeholder="redis memory" value={c.where ?? ''} onInput={(e) => setC({ where: e.currentTarget.value })} /></label>
      <fieldset class="wide plain-fieldset"><legend class="small">States (none: all)</legend>
        {states.map((s) => (
          <label class="inline small"><input type="checkbox" name={`alert-state-${s}`} checked={on.includes(s)}
            onChange={(e) => setC({ alertStates: e.currentTarget.checked ? [...on, s] : on.filter((x) => x !== s) })} /> {s}</label>
        ))}
      </fieldset>
    </>
  );
}
