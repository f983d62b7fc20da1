import { useEffect, useState } from 'preact/hooks';
import { post, Source } from '../api';
import { breakable } from './breakable';
import { filterFor } from './eventpanel';

interface FacetValue { value: string; count: number }
interface Facet { field: string; count: number; values: FacetValue[] }
interface FacetList { sampled: number; limit: number; facets: Facet[] }

// Facets is the sidebar of the fields that matter for the current result
// (the source's service, severity or status and span name, then the
// attributes most events carry) with their top values, counted by the
// engine in one statement over the newest matching events for the same
// where and range as the rows. A value's + adds field:value to the where,
// its − adds -field:value.
export function Facets({ src, body, onFilter }: { src: Source; body: Record<string, unknown>; onFilter: (expr: string) => void }) {
  const [data, setData] = useState<FacetList | null>(null);
  const [error, setError] = useState('');
  const [open, setOpen] = useState<Record<string, boolean>>({});
  useEffect(() => {
    const ac = new AbortController();
    setData(null);
    setError('');
    post<FacetList>('/api/v2/search/facets', body, ac.signal).then(setData)
      .catch((e) => { if (e.name !== 'AbortError') setError(e.message); });
    return () => ac.abort();
  }, [src.id, body.where, body.whereLanguage, body.startTime, body.endTime]);
  return (
    <aside class="facets" data-testid="facets" aria-label="Facets">
      <div class="facets-head">
        <strong>Fields</strong>
        {data && <span class="muted small" title="Counted over the newest matching events">{data.sampled < data.limit ? `${data.sampled.toLocaleString()} event${data.sampled === 1 ? '' : 's'}` : `newest ${data.limit.toLocaleString()}`}</span>}
      </div>
      {error ? <p class="muted small">No facets: the search did not run.</p> : !data ? <p class="muted small">Counting…</p> :
        data.facets.length === 0 ? <p class="muted small">No events.</p> : data.facets.map((f) => {
          const shown = open[f.field] ? f.values : f.values.slice(0, 5);
          return (
            <section class="facet" data-facet={f.field}>
              <h4 title={`${f.field}: in ${f.count.toLocaleString()} of ${data.sampled.toLocaleString()} events`}>{breakable(f.field)}</h4>
              <ul>
                {shown.map((v) => {
                  const expr = filterFor(f.field, v.value);
                  return (
                    <li>
                      <button class="link facet-value" title={`Filter: ${expr}`} data-filter={expr} disabled={v.value === ''} onClick={() => onFilter(expr)}>
                        <span class="facet-name">{v.value === '' ? '(empty)' : v.value}</span>
                      </button>
                      <span class="facet-count">{v.count.toLocaleString()}</span>
                      <button class="link facet-inc" aria-label={`Include ${expr}`} title={`Only ${expr}`} data-filter={expr} disabled={v.value === ''} onClick={() => onFilter(expr)}>+</button>
                      <button class="link facet-exc" aria-label={`Exclude ${expr}`} title={`Exclude: -${expr}`} data-filter={'-' + expr} disabled={v.value === ''} onClick={() => onFilter('-' + expr)}>−</button>
                    </li>
                  );
                })}
              </ul>
              {f.values.length > 5 && <button class="link small" onClick={() => setOpen({ ...open, [f.field]: !open[f.field] })}>{open[f.field] ? 'fewer' : `${f.values.length - 5} more`}</button>}
            </section>
          );
        })}
    </aside>
  );
}

// addTerm adds a filter term to a Lucene where, taking out its opposite
// (an exclusion when including, an inclusion when excluding) and not
// adding it twice.
export function addTerm(where: string, expr: string): string {
  const opposite = expr.startsWith('-') ? expr.slice(1) : '-' + expr;
  const terms = where.trim() === '' ? [] : where.trim().split(/\s+(?=(?:[^"]*"[^"]*")*[^"]*$)/);
  const kept = terms.filter((t) => t !== opposite && t !== expr);
  return kept.concat(expr).join(' ');
}
