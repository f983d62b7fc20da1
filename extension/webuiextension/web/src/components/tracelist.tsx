import { useEffect, useState } from 'preact/hooks';
import { messageOf, SearchQuery, searchTraces, TraceSummary } from '../api';
import { navigate, onLink } from '../router';
import { fmtDuration, fmtTs, useZone } from '../time';
import { useWhenVisible } from '../paging';
import { ZoneSwitch } from './zoneswitch';

const PAGE = 50;

// TraceList is the trace search's "Traces" view: one row per trace with a
// span matching the where in the range (its root span and service, start,
// duration, spans, errors and services), newest first, more on scroll;
// a row opens the trace's waterfall.
export function TraceList({ body }: { body: SearchQuery }) {
  useZone();
  const [traces, setTraces] = useState<TraceSummary[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState(false);

  useEffect(() => {
    const ac = new AbortController();
    setTraces([]);
    setCursor(undefined);
    setError('');
    setDone(false);
    setLoading(true);
    searchTraces(body, PAGE, undefined, ac.signal)
      .then((p) => { setTraces(p.traces); setCursor(p.nextCursor); setDone(true); })
      .catch((e) => { if (e.name !== 'AbortError') { setError(e.message); setDone(true); } })
      .finally(() => setLoading(false));
    return () => ac.abort();
  }, [body.sourceId, body.where, body.whereLanguage, body.startTime, body.endTime]);

  const more = async () => {
    if (!cursor || loading) return;
    setLoading(true);
    try {
      const p = await searchTraces(body, PAGE, cursor);
      setTraces((t) => t.concat(p.traces));
      setCursor(p.nextCursor);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setLoading(false);
    }
  };
  const sentinel = useWhenVisible(more);

  return (
    <>
      <div class="results-head">
        <span class="muted small" data-testid="trace-list-count">
          {traces.length ? `${traces.length.toLocaleString()} trace${traces.length === 1 ? '' : 's'} shown${cursor ? ', more on scroll' : ''}`
            : loading ? 'Listing traces…' : error ? 'The trace list did not load' : 'No matching trace in this range'}
        </span>
      </div>
      {error && <p class="error where-error" role="alert">{error}</p>}
      <div class="results">
        <table class="rows trace-list" data-testid="trace-list" data-done={done ? '1' : undefined}>
          <thead>
            <tr>
              <th>Start <span class="muted zone">(<ZoneSwitch />)</span></th>
              <th>Root span</th>
              <th class="num">Duration</th>
              <th class="num">Spans</th>
              <th class="num">Errors</th>
              <th>Services</th>
            </tr>
          </thead>
          <tbody>
            {traces.map((t) => {
              const href = `/traces/${encodeURIComponent(t.traceId)}?source=${encodeURIComponent(body.sourceId)}`;
              return (
                <tr data-trace-id={t.traceId} class={t.errors ? 'has-errors' : ''} onClick={() => navigate(href)}>
                  <td class="ts">{fmtTs(t.start)}</td>
                  <td class="root">
                    <a href={href} data-testid="trace-link" title={`Open trace ${t.traceId}`} onClick={(e) => { e.stopPropagation(); onLink(e, href); }}>
                      <span class="svc">{t.rootService}</span> {t.rootName || <span class="muted">(unnamed)</span>}
                    </a>
                  </td>
                  <td class="num">{fmtDuration(t.duration)}</td>
                  <td class="num">{t.spans.toLocaleString()}</td>
                  <td class="num">{t.errors ? <span class="sev err">{t.errors}</span> : <span class="muted">0</span>}</td>
                  <td class="services">{t.services.map((s) => <span class="chip small">{s}</span>)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <div ref={sentinel} class="sentinel">{loading && traces.length > 0 ? 'Loading more…' : ''}</div>
      </div>
    </>
  );
}
