import { useEffect, useState } from 'preact/hooks';
import { get, Schemas, Service } from '../api';
import { TimePicker } from '../components/timepicker';
import { navigate, onLink, useLocation } from '../router';
import { fmtDuration, resolveRange } from '../time';


// ServicesPage lists the services of the trace source with their request
// count, error rate and latency, counted over the requests each served
// (entry spans: server and consumer kinds, and roots), with a row per
// operation; a service or operation opens its spans in search.
export function ServicesPage() {
  const loc = useLocation();
  const range = resolveRange(loc.searchParams, '1h');
  const [rows, setRows] = useState<Service[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    setRows(null);
    get<Service[]>(`/api/v2/services?startTime=${range.from}&endTime=${range.to}`).then(setRows).catch((e) => setError(e.message));
  }, [loc.search]);
  const rangeQ = range.relative ? `range=${range.relative}` : `from=${range.from}&to=${range.to}`;
  const q = (v: string) => '"' + v.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  const spans = (s: string, errorsOnly = false, op?: string) =>
    `/search/traces?q=${encodeURIComponent(`ServiceName:${q(s)}` + (op !== undefined ? ` SpanName:${q(op)}` : '') + (errorsOnly ? ' StatusCode:Error' : ''))}&${rangeQ}`;
  const cells = (s: Schemas['ServiceStats'], errLink: string) => (
    <>
      <td class="num">{s.requests.toLocaleString()}</td>
      <td class="num">{s.errors > 0 ? <a class="sev err" href={errLink} onClick={(e) => onLink(e, errLink)}>{((100 * s.errors) / s.requests).toFixed(2)}%</a> : '0%'}</td>
      <td class="num">{s.p50 == null ? '' : fmtDuration(s.p50)}</td>
      <td class="num">{s.p95 == null ? '' : fmtDuration(s.p95)}</td>
      <td class="num">{s.p99 == null ? '' : fmtDuration(s.p99)}</td>
    </>
  );
  return (
    <div class="page">
      <div class="row-between">
        <h1>Services</h1>
        <TimePicker range={range} onChange={(r) => navigate(r.relative ? `/services?range=${r.relative}` : `/services?from=${r.from}&to=${r.to}`)} />
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {!rows ? <p class="muted">Loading…</p> : rows.length === 0 ? <p class="muted">No spans in this range.</p> : (
        <table class="rows" data-testid="services">
          <thead><tr><th>Service / operation</th><th class="num">Requests</th><th class="num">Error rate</th><th class="num">p50</th><th class="num">p95</th><th class="num">p99</th></tr></thead>
          <tbody>
            {rows.map((s) => (
              <>
                <tr class="svc-row" data-service={s.service}>
                  <td><a href={spans(s.service)} onClick={(e) => onLink(e, spans(s.service))}><strong>{s.service || '(none)'}</strong></a></td>
                  {cells(s, spans(s.service, true))}
                </tr>
                {(s.operations ?? []).map((o) => (
                  <tr class="op-row" data-service={s.service} data-operation={o.operation}>
                    <td class="op"><a href={spans(s.service, false, o.operation)} onClick={(e) => onLink(e, spans(s.service, false, o.operation))}>{o.operation || '(unnamed)'}</a></td>
                    {cells(o, spans(s.service, true, o.operation))}
                  </tr>
                ))}
              </>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
