-- The statements of a chart's range totals (totals.go). Each starts at
-- its `-- name:` line and is a text/template over the source's quoted
-- names and expressions built from its real columns; every value is a
-- bound {pN:Type} parameter.

-- name: totals
-- One row per group over the whole range: each series' aggregate of the
-- rows its own condition keeps ({{.Values}}, named __sN), the groups
-- filtered by the checked having. A grouped field the having names is
-- also grouped by as its own value (__gN), as HyperDX groups, so the
-- having compares its type (a number as a number), not grp's text.
SELECT {{.Group}} AS grp{{range $i, $v := .Values}}, {{$v}} AS `__s{{$i}}`{{end}}
  {{- range .Grouped}}, {{.Expr}} AS `{{.Name}}`{{end}}
FROM {{.From}}
WHERE {{.TS}} >= fromUnixTimestamp64Milli({{.Start}}) AND {{.TS}} < fromUnixTimestamp64Milli({{.End}})
GROUP BY grp{{range .Grouped}}, `{{.Name}}`{{end}}
HAVING {{.Having}}
ORDER BY grp
LIMIT {{.Limit}}
