-- The statements of the metrics explorer. Each starts at its `-- name:`
-- line and is a text/template over a metric table's quoted names
-- ({{.From}}, {{.TS}}) and expressions built from its real columns;
-- every value is a bound {pN:Type} parameter.

-- name: metric_names
-- The metrics of one table seen in a range, with what describes them
-- and how many series (tag sets) each has; names filtered by a
-- case-insensitive substring.
SELECT toString(MetricName) AS name, {{.Unit}} AS unit, {{.Description}} AS description,
  {{.Monotonic}} AS monotonic, uniq({{.Service}}, {{.Attrs}}, {{.Resource}}) AS series
FROM {{.From}}
WHERE {{.TS}} >= fromUnixTimestamp64Milli({{.Start}}) AND {{.TS}} < fromUnixTimestamp64Milli({{.End}})
  {{- if .Search}} AND positionCaseInsensitiveUTF8(toString(MetricName), {{.Search}}) > 0{{end}}
GROUP BY name
ORDER BY name
LIMIT {{.Limit}}

-- name: metric_keys
-- The attribute and resource attribute keys of a metric's points in a
-- range, most common first; the points read are bounded ({{.Sample}}).
SELECT f, k, count() AS c FROM (
  SELECT arrayJoin(arrayConcat(
      {{- if .Attrs}}arrayMap(x -> ('attribute', toString(x)), mapKeys({{.Attrs}})){{else}}CAST([] AS Array(Tuple(String, String))){{end}},
      {{- if .Resource}}arrayMap(x -> ('resource', toString(x)), mapKeys({{.Resource}})){{else}}CAST([] AS Array(Tuple(String, String))){{end}})) AS fk,
    fk.1 AS f, fk.2 AS k
  FROM (SELECT * FROM {{.From}}
    WHERE MetricName = {{.Metric}} AND {{.TS}} >= fromUnixTimestamp64Milli({{.Start}}) AND {{.TS}} < fromUnixTimestamp64Milli({{.End}})
    LIMIT {{.Sample}}))
{{- if .Prefix}}
WHERE startsWith(lower(k), lower({{.Prefix}})){{end}}
GROUP BY f, k
ORDER BY c DESC, k
LIMIT {{.Limit}}

-- name: metric_values
-- A tag's frequent values on a metric's points in a range, as the
-- metric query reads the tag ({{.Value}}: the Datadog tag resolution).
SELECT v, count() AS c FROM (
  SELECT {{.Value}} AS v FROM {{.From}}
  WHERE MetricName = {{.Metric}} AND {{.TS}} >= fromUnixTimestamp64Milli({{.Start}}) AND {{.TS}} < fromUnixTimestamp64Milli({{.End}})
  LIMIT {{.Sample}})
WHERE v != ''{{if .Prefix}} AND startsWith(lower(v), lower({{.Prefix}})){{end}}
GROUP BY v
ORDER BY c DESC, v
LIMIT {{.Limit}}
