-- The statements of search and the trace view. Each starts at its
-- `-- name:` line and is a text/template over the source's quoted names
-- ({{.From}}, {{.TS}}, …) and conditions compiled by the charts where
-- translator; every value is a bound {pN:Type} parameter.

-- name: rows
-- A page of events, newest first. Keyset paging: a later page starts at
-- the last timestamp seen ({{.Before}}) and skips the rows of that
-- timestamp already sent, never an OFFSET over the whole result.
-- {{.Computed}} adds the source's roles that are expressions, each
-- named by its text, beside the columns the others name.
SELECT *{{.Computed}}, toUnixTimestamp64Nano(toDateTime64({{.TS}}, 9)) AS `__ts_ns`
FROM {{.From}}
WHERE {{.TS}} >= fromUnixTimestamp64Nano({{.Start}}) AND {{.TS}} < fromUnixTimestamp64Nano({{.End}})
  {{- if .Before}} AND {{.TS}} <= fromUnixTimestamp64Nano({{.Before}}){{end}}
  AND {{.Where}}
ORDER BY {{.TS}} DESC
LIMIT {{.Limit}}{{if .Skip}} OFFSET {{.Skip}}{{end}}

-- name: trace_spans
SELECT *{{.Computed}}, toUnixTimestamp64Nano(toDateTime64({{.TS}}, 9)) AS `__ts_ns`
FROM {{.From}}
WHERE {{.TraceCol}} = {{.TraceID}}
  {{- if .Start}} AND {{.TS}} >= fromUnixTimestamp64Nano({{.Start}}) AND {{.TS}} <= fromUnixTimestamp64Nano({{.End}}){{end}}
ORDER BY {{.TS}}
LIMIT {{.Limit}}

-- name: lookup_exists
SELECT count() FROM system.tables WHERE database = {db:String} AND name = {t:String}

-- name: map_keys
-- The keys of a map column in the newest rows (what a column picker
-- offers): bounded by the rows read and the keys kept.
SELECT groupUniqArray(500)(k) FROM (
  SELECT arrayJoin(mapKeys(m)) AS k FROM (SELECT {{.Map}} AS m FROM {{.From}} ORDER BY {{.TS}} DESC LIMIT 10000))

-- name: services
-- Each service of a trace source over a range: requests, errors and
-- latency (Duration in nanoseconds, as the exporter stores it), counted
-- over its entry spans only ({{.Entry}}: server and consumer spans, and
-- roots), so a request's database and client calls are not requests.
SELECT toString({{.Service}}) AS service, count() AS requests,
  countIf(lower(toString({{.Status}})) IN ('error', 'status_code_error')) AS errors,
  {{if .Duration}}quantile(0.5)({{.Duration}}) AS p50, quantile(0.95)({{.Duration}}) AS p95, quantile(0.99)({{.Duration}}) AS p99
  {{- else}}nan AS p50, nan AS p95, nan AS p99{{end}}
FROM {{.From}}
WHERE {{.TS}} >= fromUnixTimestamp64Nano({{.Start}}) AND {{.TS}} < fromUnixTimestamp64Nano({{.End}}) AND {{.Entry}}
GROUP BY service ORDER BY requests DESC
LIMIT 500

-- name: operations
-- The same per service and entry span name, the busiest 50 of each.
SELECT toString({{.Service}}) AS service, toString({{.Name}}) AS operation, count() AS requests,
  countIf(lower(toString({{.Status}})) IN ('error', 'status_code_error')) AS errors,
  {{if .Duration}}quantile(0.5)({{.Duration}}) AS p50, quantile(0.95)({{.Duration}}) AS p95, quantile(0.99)({{.Duration}}) AS p99
  {{- else}}nan AS p50, nan AS p95, nan AS p99{{end}}
FROM {{.From}}
WHERE {{.TS}} >= fromUnixTimestamp64Nano({{.Start}}) AND {{.TS}} < fromUnixTimestamp64Nano({{.End}}) AND {{.Entry}}
GROUP BY service, operation ORDER BY requests DESC
LIMIT 50 BY service
LIMIT 5000

-- name: facets
-- The facet sidebar in one statement: the newest {{.Sample}} matching
-- events, each turned by arrayJoin into (rank, field, value) pairs: one
-- empty pair per event (rank 0, whose count is the sample's size), the
-- chosen columns (rank 1, 2, … in the order asked) and every record
-- and resource attribute (rank 100). Grouped by field and value; a field's coverage is the events
-- that carry it (a window over the groups). The first {{.Values}} values
-- of each field, the chosen columns first, then the most common fields.
SELECT rank, f, v, count() AS c, sum(count()) OVER (PARTITION BY f) AS with_field
FROM (
  SELECT arrayJoin(arrayConcat([(0, '', '')]
    {{- range .Columns}}, [({{.Rank}}, {{.Name}}, toString({{.Expr}}))]{{end}}
    {{- if .Attrs}}, arrayMap((k, x) -> (100, toString(k), toString(x)), mapKeys({{.Attrs}}), mapValues({{.Attrs}})){{end}}
    {{- if .Resource}}, arrayMap((k, x) -> (100, concat('Resource.', toString(k)), toString(x)), mapKeys({{.Resource}}), mapValues({{.Resource}})){{end}})) AS kv,
    kv.1 AS rank, kv.2 AS f, kv.3 AS v
  FROM (
    SELECT {{range $i, $c := .Read}}{{if $i}}, {{end}}{{$c}}{{end}}
    FROM {{.From}}
    WHERE {{.TS}} >= fromUnixTimestamp64Nano({{.Start}}) AND {{.TS}} < fromUnixTimestamp64Nano({{.End}}) AND {{.Where}}
    ORDER BY {{.TS}} DESC
    LIMIT {{.Sample}}))
GROUP BY rank, f, v
ORDER BY rank, with_field DESC, f, c DESC, v
LIMIT {{.Values}} BY f
LIMIT {{.Rows}}

-- name: field_keys
-- The attribute and resource keys of the newest rows, in one statement
-- (what autocomplete offers beside the columns; cached briefly).
SELECT {{if .Attrs}}groupUniqArrayArray(1000)(mapKeys({{.Attrs}})){{else}}[]{{end}} AS attrs,
  {{if .Resource}}groupUniqArrayArray(1000)(mapKeys({{.Resource}})){{else}}[]{{end}} AS resource
FROM (SELECT {{if .Attrs}}{{.Attrs}}{{end}}{{if and .Attrs .Resource}}, {{end}}{{if .Resource}}{{.Resource}}{{end}}
  FROM {{.From}} ORDER BY {{.TS}} DESC LIMIT 10000)

-- name: field_values
-- The most frequent values of one field (the expression the where
-- compares) in the newest matching events, those starting with a prefix.
SELECT v, count() AS c FROM (
  SELECT toString({{.Expr}}) AS v FROM {{.From}}
  WHERE {{.TS}} >= fromUnixTimestamp64Nano({{.Start}}) AND {{.TS}} < fromUnixTimestamp64Nano({{.End}}) AND {{.Where}}
  ORDER BY {{.TS}} DESC
  LIMIT {{.Sample}})
WHERE v != ''{{if .Prefix}} AND startsWith(lower(v), lower({{.Prefix}})){{end}}
GROUP BY v ORDER BY c DESC, v
LIMIT {{.Limit}}

-- name: trace_ids
-- The trace list's page: the traces with a span matching the where,
-- newest first by their newest matching span, grouped from the spans of
-- [{{.Start}}, {{.End}}). The caller starts with the newest slice of the
-- range and widens it while the page is not full: a trace's newest span
-- lies in the slice if it is newer than the slice's start, so a full
-- page from a slice is the page of the whole range. A later page keeps
-- the spans up to the last trace sent ({{.Before}}, {{.BeforeID}}) and
-- leaves out the traces with a span after it, which earlier pages listed.
SELECT toString({{.TraceCol}}) AS tid, toUnixTimestamp64Nano(toDateTime64(max({{.TS}}), 9)) AS last_ns
FROM {{.From}}
WHERE {{.TS}} >= fromUnixTimestamp64Nano({{.Start}}) AND {{.TS}} < fromUnixTimestamp64Nano({{.End}})
  AND {{.TraceCol}} != '' AND {{.Where}}
  {{- if .Before}}
  AND {{.TS}} <= fromUnixTimestamp64Nano({{.Before}})
  AND {{.TraceCol}} NOT IN (SELECT {{.TraceCol}} FROM {{.From}}
    WHERE {{.TS}} > fromUnixTimestamp64Nano({{.Before}}) AND {{.TS}} < fromUnixTimestamp64Nano({{.End}}) AND {{.TraceCol}} != '' AND {{.Where}})
  {{- end}}
GROUP BY tid
{{- if .Before}}
HAVING (last_ns, tid) < ({{.Before}}, {{.BeforeID}})
{{- end}}
ORDER BY last_ns DESC, tid DESC
LIMIT {{.Limit}}

-- name: traces_bounds
-- When a trace, or the traces of a page, ran: from the exporter's lookup
-- table (its primary key is the trace id), so their spans are read from
-- those days only.
SELECT min(Start), max(End), uniqExact(TraceId) FROM {{.Lookup}} WHERE TraceId IN {{.IDs}}

-- name: trace_summaries
-- Each trace of a page summarised over all its spans (not only those
-- matching): its root (the span without a parent; the first span when
-- the root is missing), when it started, how long it ran, its spans,
-- errors and services.
SELECT toString({{.TraceCol}}) AS traceId,
  toUnixTimestamp64Nano(toDateTime64(min({{.TS}}), 9)) AS start_ns,
  {{- if .Parent}}
  if(countIf(empty({{.Parent}})) > 0, argMinIf(toString({{.Name}}), {{.TS}}, empty({{.Parent}})), argMin(toString({{.Name}}), {{.TS}})) AS rootName,
  if(countIf(empty({{.Parent}})) > 0, argMinIf(toString({{.Service}}), {{.TS}}, empty({{.Parent}})), argMin(toString({{.Service}}), {{.TS}})) AS rootService,
  {{- else}}
  argMin(toString({{.Name}}), {{.TS}}) AS rootName, argMin(toString({{.Service}}), {{.TS}}) AS rootService,
  {{- end}}
  {{- if .Duration}}
  toInt64(max(toUnixTimestamp64Nano(toDateTime64({{.TS}}, 9)) + toInt64({{.Duration}})) - min(toUnixTimestamp64Nano(toDateTime64({{.TS}}, 9)))) AS duration,
  {{- else}}
  toInt64(max(toUnixTimestamp64Nano(toDateTime64({{.TS}}, 9))) - min(toUnixTimestamp64Nano(toDateTime64({{.TS}}, 9)))) AS duration,
  {{- end}}
  count() AS spans,
  countIf(lower(toString({{.Status}})) IN ('error', 'status_code_error')) AS errors,
  arraySort(groupUniqArray(50)(toString({{.Service}}))) AS services
FROM {{.From}}
WHERE {{.TraceCol}} IN {{.IDs}}
  AND {{.TS}} >= fromUnixTimestamp64Nano({{.From0}}) AND {{.TS}} <= fromUnixTimestamp64Nano({{.To0}})
GROUP BY {{.TraceCol}}
