// Package sources describes the telemetry tables a team reads (a source),
// the defaults over the exporter's tables, and the catalog both the REST
// API and the web UI read them through, scoped to a team.
package sources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Kind is what a stored source document is filed under.
const Kind = store.KindSource

// Source describes a telemetry table a chart or a search can query.
type Source struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Kind            string `json:"kind"`
	Database        string `json:"database"`
	Table           string `json:"table"`
	TimestampColumn string `json:"timestampColumn"`
	BodyColumn      string `json:"bodyColumn,omitempty"`
	ServiceColumn   string `json:"serviceColumn,omitempty"`
	SeverityColumn  string `json:"severityColumn,omitempty"`
	DurationColumn  string `json:"durationColumn,omitempty"`
	AttributesMap   string `json:"attributesMap,omitempty"`
	ResourceMap     string `json:"resourceMap,omitempty"`
	// MetricType (metric sources): gauge, sum (cumulative series chart as
	// increases) or histogram (quantiles from the buckets).
	MetricType string `json:"metricType,omitempty"`
	// The correlation columns (log and trace sources): a log's trace opens
	// from TraceIDColumn, and the waterfall nests spans by SpanIDColumn
	// and ParentSpanIDColumn. Empty: the exporter's column names.
	TraceIDColumn      string `json:"traceIdColumn,omitempty"`
	SpanIDColumn       string `json:"spanIdColumn,omitempty"`
	ParentSpanIDColumn string `json:"parentSpanIdColumn,omitempty"`
	StatusCodeColumn   string `json:"statusCodeColumn,omitempty"`

	// cluster is the ClickHouse cluster whose shards hold the table (the
	// store's), set when the catalog reads the source: not stored, a
	// deployment's property rather than the team's.
	cluster string
}

// Value sets of a source's fields.
var (
	Kinds       = []string{"log", "trace", "metric"}
	MetricTypes = []string{"gauge", "sum", "histogram"}
)

// Defaults are the exporter's tables, present from the first start.
func Defaults(database string) []Source {
	return []Source{
		{
			ID: "logs", Name: "Logs", Kind: "log", Database: database, Table: "otel_logs", TimestampColumn: "Timestamp",
			BodyColumn: "Body", ServiceColumn: "ServiceName", SeverityColumn: "SeverityText", AttributesMap: "LogAttributes", ResourceMap: "ResourceAttributes",
			TraceIDColumn: "TraceId", SpanIDColumn: "SpanId",
		},
		{
			ID: "traces", Name: "Traces", Kind: "trace", Database: database, Table: "otel_traces", TimestampColumn: "Timestamp",
			BodyColumn: "SpanName", ServiceColumn: "ServiceName", DurationColumn: "Duration", AttributesMap: "SpanAttributes", ResourceMap: "ResourceAttributes",
			TraceIDColumn: "TraceId", SpanIDColumn: "SpanId", ParentSpanIDColumn: "ParentSpanId", StatusCodeColumn: "StatusCode",
		},
		{
			ID: "metrics", Name: "Metrics", Kind: "metric", Database: database, Table: "otel_metrics_gauge", TimestampColumn: "TimeUnix",
			ServiceColumn: "ServiceName", AttributesMap: "Attributes", ResourceMap: "ResourceAttributes", MetricType: "gauge",
		},
	}
}

// Chart is the source as the chart and search builders read it.
func (s Source) Chart() query.Source {
	return query.Source{
		Database: s.Database, Table: s.Table, TimestampColumn: s.TimestampColumn, BodyColumn: s.BodyColumn,
		ServiceColumn: s.ServiceColumn, SeverityColumn: s.SeverityColumn, Duration: s.DurationColumn,
		AttributesMap: s.AttributesMap, ResourceMap: s.ResourceMap, MetricType: s.MetricType, Cluster: s.cluster,
	}
}

// Column returns the configured column, or def where none is set.
func Column(configured, def string) string {
	if configured != "" {
		return configured
	}
	return def
}

// Validate checks a source a team writes and fills its defaults (db is
// the database of a source that names none). Whether the team may read
// its database is Tenancy.Check's to say.
func (s *Source) Validate(db string) error {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if strings.TrimSpace(s.Name) == "" {
		add("name is required")
	}
	if !slices.Contains(Kinds, s.Kind) {
		add("kind must be one of %s, got %q", strings.Join(Kinds, ", "), s.Kind)
	}
	if s.Table == "" || s.TimestampColumn == "" {
		add("table and timestampColumn are required")
	}
	if s.Database == "" {
		s.Database = db
	}
	if s.Database == "" {
		add("database is required (the team has no database assigned)")
	}
	if s.Kind == "metric" {
		if s.MetricType == "" {
			s.MetricType = "gauge"
		}
		if !slices.Contains(MetricTypes, s.MetricType) {
			add("metricType must be one of %s, got %q", strings.Join(MetricTypes, ", "), s.MetricType)
		}
	} else if s.MetricType != "" {
		add("metricType is only for metric sources")
	}
	if len(p) > 0 {
		return errors.New(strings.Join(p, "; "))
	}
	return nil
}

// SystemDatabase reports whether db is one of the server's own databases,
// which no source may read.
func SystemDatabase(db string) bool {
	return strings.EqualFold(db, "system") || strings.EqualFold(db, "information_schema")
}

// ErrUnreadable is a source whose database its team may not read (a
// Refused is one): the caller's to fix, never read.
var ErrUnreadable = errors.New("source not readable")

// Catalog reads a team's sources from the store.
type Catalog struct {
	Store *store.Store
	// Tenancy decides which databases each team's sources read; nil
	// reads none.
	Tenancy *Tenancy

	mu     sync.Mutex
	recent map[[2]string]cachedSource
}

// A source read is kept this long: a search page asks for its source
// twice at once (rows and histogram), and every live-tail tick again; the
// read was a third of the page's server time. A source changed through
// the API is seen within this.
const cacheFor = 2 * time.Second

type cachedSource struct {
	src Source
	at  time.Time
}

// Get reads one of the team's sources (store.ErrNotFound if it has none
// by that id) for a query. Every query path (search, charts, dashboards'
// tiles, alerts, the trace view, services, the UI's endpoints) resolves
// its source here, so the team's tenancy is checked here on every use: a
// source stored before the rule, edited in the state table, or whose
// database the operator has since taken away is refused (ErrUnreadable).
func (c *Catalog) Get(ctx context.Context, team, id string) (Source, error) {
	key := [2]string{team, id}
	c.mu.Lock()
	hit, ok := c.recent[key]
	c.mu.Unlock()
	src := hit.src
	if !ok || time.Since(hit.at) >= cacheFor {
		res, err := c.Store.Get(ctx, team, Kind, id)
		if err != nil {
			return Source{}, err
		}
		if err := json.Unmarshal(res.Doc, &src); err != nil {
			return Source{}, err
		}
		c.mu.Lock()
		if c.recent == nil || len(c.recent) > 10_000 {
			c.recent = map[[2]string]cachedSource{}
		}
		c.recent[key] = cachedSource{src: src, at: time.Now()}
		c.mu.Unlock()
	}
	if err := c.Tenancy.Check(ctx, team, src.Database); err != nil {
		return Source{}, fmt.Errorf("source %s: %w", id, err)
	}
	src.cluster = c.Store.Cluster()
	return src, nil
}

// Exists tells whether the team has a source by that id (what resources
// that name a source check before they are stored).
func (c *Catalog) Exists(ctx context.Context, team, id string) (bool, error) {
	_, err := c.Store.Get(ctx, team, Kind, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// List reads every source of the team, oldest first.
func (c *Catalog) List(ctx context.Context, team string) ([]Source, error) {
	items, err := c.Store.OfTeam(ctx, team, Kind)
	if err != nil {
		return nil, err
	}
	out := make([]Source, 0, len(items))
	for _, it := range items {
		var src Source
		if json.Unmarshal(it.Doc, &src) == nil {
			src.cluster = c.Store.Cluster()
			out = append(out, src)
		}
	}
	return out, nil
}
