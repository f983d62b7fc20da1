package charts

import (
	"context"
	"database/sql"
	_ "embed"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/runtime/sqlfile"
)

// The metrics explorer's reads: which metrics a source's database holds
// (across the exporter's metric tables, as a Datadog metric query looks
// for them), and a metric's tag keys and values for autocomplete.

//go:embed metrics.sql
var metricsSQL string

var metricStatements = sqlfile.ParseTemplates("charts/metrics.sql", metricsSQL)

func renderMetricSQL(name string, data any) string { return metricStatements.Render(name, data) }

// Metric is one metric name of a source's database.
type Metric struct {
	Name string `json:"name"`
	// Type is the exporter's table it is in: gauge, sum, histogram,
	// exponential_histogram or summary.
	Type        string `json:"type"`
	Unit        string `json:"unit"`
	Description string `json:"description"`
	// Monotonic (sums): a counter, which a chart may show as a rate.
	Monotonic bool `json:"monotonic"`
	// Series is how many tag sets (service, attributes, resource) the
	// metric has in the range.
	Series uint64 `json:"series"`
}

// MaxMetrics bounds a metric list.
const MaxMetrics = 1000

// metricSample bounds the points a tag read looks at.
const metricSample = 100_000

// metricScopes opens the scope of every metric table of the source's
// database that exists, with its type: the source's own table first
// when it is not one of the exporter's.
func metricScopes(ctx context.Context, db *sql.DB, src query.Source) ([]*query.Scope, []string, error) {
	var scopes []*query.Scope
	var types []string
	tables := metricTables
	if !slices.ContainsFunc(tables, func(t struct{ table, typ string }) bool { return t.table == src.Table }) && src.Table != "" {
		// A source over a table of its own: it too (a gauge unless the
		// source says).
		typ := src.MetricType
		if typ == "" {
			typ = "gauge"
		}
		tables = append([]struct{ table, typ string }{{src.Table, typ}}, tables...)
	}
	for _, t := range tables {
		s := src
		s.Table, s.MetricType = t.table, t.typ
		if s.TimestampColumn == "" {
			s.TimestampColumn = "TimeUnix"
		}
		sc, err := query.OpenScope(ctx, db, s)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			continue // the exporter creates a table with its first point
		}
		if _, ok := sc.Column("MetricName"); !ok {
			continue
		}
		scopes, types = append(scopes, sc), append(types, t.typ)
	}
	return scopes, types, nil
}

// colOr is a column or role expression of the scope, or def when it has
// none.
func colOr(sc *query.Scope, name, def string) string {
	if name == "" {
		return def
	}
	if c, ok := sc.Role(name); ok {
		return c
	}
	return def
}

// Metrics lists the metric names of the source's database seen in
// [start, end) whose name holds search (any case), at most MaxMetrics
// (truncated says more matched).
func Metrics(ctx context.Context, db *sql.DB, src query.Source, start, end time.Time, search string, timeout time.Duration) (list []Metric, truncated bool, err error) {
	scopes, types, err := metricScopes(ctx, db, src)
	if err != nil {
		return nil, false, err
	}
	list = []Metric{}
	for i, sc := range scopes {
		var p query.Params
		data := map[string]any{
			"From": sc.From, "TS": sc.Timestamp, "Limit": MaxMetrics + 1,
			"Start": p.Add(strconv.FormatInt(start.UnixMilli(), 10), "Int64"), "End": p.Add(strconv.FormatInt(end.UnixMilli(), 10), "Int64"),
			"Unit":        "any(" + colOr(sc, "MetricUnit", "''") + ")",
			"Description": "any(" + colOr(sc, "MetricDescription", "''") + ")",
			"Monotonic":   "toUInt8(max(" + colOr(sc, "IsMonotonic", "0") + "))",
			"Service":     colOr(sc, src.ServiceColumn, "''"),
			"Attrs":       colOr(sc, src.AttributesMap, "''"),
			"Resource":    colOr(sc, src.ResourceMap, "''"),
		}
		if search != "" {
			data["Search"] = p.Add(search, "String")
		}
		rows, err := db.QueryContext(clickhouse.Context(ctx, clickhouse.WithParameters(clickhouse.Parameters(p.Values)),
			clickhouse.WithSettings(query.UserQuerySettings(timeout))), renderMetricSQL("metric_names", data))
		if err != nil {
			return nil, false, query.EngineError(err)
		}
		for rows.Next() {
			m := Metric{Type: types[i]}
			var mono uint8
			if err := rows.Scan(&m.Name, &m.Unit, &m.Description, &mono, &m.Series); err != nil {
				_ = rows.Close()
				return nil, false, err
			}
			m.Monotonic = mono == 1
			list = append(list, m)
		}
		err = rows.Err()
		_ = rows.Close() // rows.Err() says what went wrong
		if err != nil {
			return nil, false, query.EngineError(err)
		}
	}
	slices.SortFunc(list, func(a, b Metric) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Type, b.Type)
	})
	if len(list) > MaxMetrics {
		return list[:MaxMetrics], true, nil
	}
	return list, false, nil
}

// MetricTag is a tag key of a metric (or, asked for a key's values, one
// of its values) with how many points carry it.
type MetricTag struct {
	// Key is how a metric query names it: the Datadog tag for a resource
	// attribute that has one (host for host.name), else the key.
	Key string `json:"key,omitempty"`
	// From is where the key is: attribute or resource.
	From string `json:"from,omitempty"`
	// Attribute is the OpenTelemetry key behind a Datadog tag.
	Attribute string `json:"attribute,omitempty"`
	Value     string `json:"value,omitempty"`
	Count     uint64 `json:"count"`
}

// TagsRequest asks for a metric's tag keys, or with Key the values of
// one, starting with Prefix (any case).
type TagsRequest struct {
	Metric      string
	Start, End  time.Time
	Key, Prefix string
	Limit       int
}

// MetricTags reads the tag keys of a metric in a range, or the frequent
// values of one key.
func MetricTags(ctx context.Context, db *sql.DB, src query.Source, req TagsRequest, timeout time.Duration) ([]MetricTag, error) {
	ev := &ddEval{ctx: ctx, db: db, src: src, timeout: timeout}
	table, found, err := ev.table(req.Metric)
	if err != nil || !found {
		return []MetricTag{}, err
	}
	sc, err := query.OpenScope(ctx, db, table)
	if err != nil {
		return nil, err
	}
	limit := req.Limit
	if limit <= 0 {
		limit = 100
	}
	var p query.Params
	data := map[string]any{
		"From": sc.From, "TS": sc.Timestamp, "Limit": limit, "Sample": metricSample,
		"Metric": p.Add(req.Metric, "String"),
		"Start":  p.Add(strconv.FormatInt(req.Start.UnixMilli(), 10), "Int64"), "End": p.Add(strconv.FormatInt(req.End.UnixMilli(), 10), "Int64"),
	}
	if req.Prefix != "" {
		data["Prefix"] = p.Add(req.Prefix, "String")
	}
	name := "metric_keys"
	if req.Key != "" {
		v, err := sc.TagValue(req.Key, &p)
		if err != nil {
			return nil, err
		}
		data["Value"], name = v, "metric_values"
	} else {
		data["Attrs"], data["Resource"] = colOr(sc, src.AttributesMap, ""), colOr(sc, src.ResourceMap, "")
	}
	rows, err := db.QueryContext(clickhouse.Context(ctx, clickhouse.WithParameters(clickhouse.Parameters(p.Values)),
		clickhouse.WithSettings(query.UserQuerySettings(timeout))), renderMetricSQL(name, data))
	if err != nil {
		return nil, query.EngineError(err)
	}
	defer rows.Close()
	out := []MetricTag{}
	for rows.Next() {
		var t MetricTag
		if req.Key != "" {
			err = rows.Scan(&t.Value, &t.Count)
		} else {
			err = rows.Scan(&t.From, &t.Key, &t.Count)
			if tag, ok := query.DatadogTag(t.Key); ok && t.From == "resource" {
				t.Attribute, t.Key = t.Key, tag
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, query.EngineError(err)
	}
	return out, nil
}
