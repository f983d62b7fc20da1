import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { TimePicker } from '../components/timepicker';
import { navigate, onLink, useLocation } from '../router';
import { fmtDuration, resolveRange } from '../time';

interface Service {
  service: string;
  requests: number;
  errors: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

// ServicesPage lists the services of the trace source with their request
// count, error rate and latency; a service opens its spans in search.
export function ServicesPage() {
  const loc = useLocation();
  const range = resolveRange(loc.searchParams, '1h');
  const [rows, setRows] = useState<Service[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    setRows(null);
    get<Service[]>(`/api/services?startTime=${range.from}&endTime=${range.to}`).then(setRows).catch((e) => setError(e.message));
  }, [loc.search]);
  const spans = (s: string, errorsOnly = false) =>
    `/search/traces?q=${encodeURIComponent(`ServiceName:"${s}"` + (errorsOnly ? ' StatusCode:Error' : ''))}&range=${range.relative ?? '1h'}`;
  return (
    <div class="page">
      <div class="row-between">
        <h1>Services</h1>
        <TimePicker range={range} onChange={(r) => navigate(r.relative ? `/services?range=${r.relative}` : `/services?from=${r.from}&to=${r.to}`)} />
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {!rows ? <p class="muted">Loading…</p> : rows.length === 0 ? <p class="muted">No spans in this range.</p> : (
        <table class="rows">
          <thead><tr><th>Service</th><th>Requests</th><th>Error rate</th><th>p50</th><th>p95</th><th>p99</th></tr></thead>
          <tbody>
            {rows.map((s) => (
              <tr>
                <td><a href={spans(s.service)} onClick={(e) => onLink(e, spans(s.service))}>{s.service || '(none)'}</a></td>
                <td>{s.requests.toLocaleString()}</td>
                <td>{s.errors > 0 ? <a class="sev err" href={spans(s.service, true)} onClick={(e) => onLink(e, spans(s.service, true))}>{((100 * s.errors) / s.requests).toFixed(2)}%</a> : '0%'}</td>
                <td>{s.p50 == null ? '' : fmtDuration(s.p50)}</td>
                <td>{s.p95 == null ? '' : fmtDuration(s.p95)}</td>
                <td>{s.p99 == null ? '' : fmtDuration(s.p99)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
