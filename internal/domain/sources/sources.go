// Package sources describes the telemetry tables a team reads (a source),
// the defaults over the exporter's tables, and the catalog both the REST
// API and the web UI read them through, scoped to a team.
package sources

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Kind is what a stored source document is filed under.
const Kind = store.KindSource

// Source is a telemetry table a team reads, in HyperDX's shape (its
// SourceSchema, one set of fields per kind): the table (From), the
// connection that reaches it, and SQL expressions that give its columns
// meaning. The expressions this API reads as columns (Chart) are column
// names; the others are kept for HyperDX's clients.
type Source struct {
	ID                       string         `json:"id"`
	Name                     string         `json:"name"`
	Kind                     string         `json:"kind"`
	Section                  string         `json:"section,omitempty"`
	Connection               string         `json:"connection"`
	From                     From           `json:"from"`
	Disabled                 bool           `json:"disabled"`
	QuerySettings            []QuerySetting `json:"querySettings,omitempty"`
	TimestampValueExpression string         `json:"timestampValueExpression"`

	DefaultTableSelectExpression      string `json:"defaultTableSelectExpression,omitempty"`
	DisplayedTimestampValueExpression string `json:"displayedTimestampValueExpression,omitempty"`
	ServiceNameExpression             string `json:"serviceNameExpression,omitempty"`
	SeverityTextExpression            string `json:"severityTextExpression,omitempty"`
	BodyExpression                    string `json:"bodyExpression,omitempty"`
	EventAttributesExpression         string `json:"eventAttributesExpression,omitempty"`
	ResourceAttributesExpression      string `json:"resourceAttributesExpression,omitempty"`
	ImplicitColumnExpression          string `json:"implicitColumnExpression,omitempty"`
	OrderByExpression                 string `json:"orderByExpression,omitempty"`
	// UseTextIndexForImplicitColumn (auto, enabled, disabled) is how
	// HyperDX searches the implicit column; kept for its clients.
	UseTextIndexForImplicitColumn string `json:"useTextIndexForImplicitColumn,omitempty"`

	TraceIDExpression         string `json:"traceIdExpression,omitempty"`
	SpanIDExpression          string `json:"spanIdExpression,omitempty"`
	ParentSpanIDExpression    string `json:"parentSpanIdExpression,omitempty"`
	SpanNameExpression        string `json:"spanNameExpression,omitempty"`
	SpanKindExpression        string `json:"spanKindExpression,omitempty"`
	DurationExpression        string `json:"durationExpression,omitempty"`
	DurationPrecision         *int   `json:"durationPrecision,omitempty"`
	StatusCodeExpression      string `json:"statusCodeExpression,omitempty"`
	StatusMessageExpression   string `json:"statusMessageExpression,omitempty"`
	SampleRateExpression      string `json:"sampleRateExpression,omitempty"`
	SpanEventsValueExpression string `json:"spanEventsValueExpression,omitempty"`

	LogSourceID     *string `json:"logSourceId,omitempty"`
	TraceSourceID   string  `json:"traceSourceId,omitempty"`
	MetricSourceID  string  `json:"metricSourceId,omitempty"`
	SessionSourceID string  `json:"sessionSourceId,omitempty"`

	// MetricTables (metric sources) names a table per metric type.
	MetricTables map[string]string `json:"metricTables,omitempty"`

	HighlightedTraceAttributeExpressions []Highlighted      `json:"highlightedTraceAttributeExpressions,omitempty"`
	HighlightedRowAttributeExpressions   []Highlighted      `json:"highlightedRowAttributeExpressions,omitempty"`
	MaterializedViews                    []MaterializedView `json:"materializedViews,omitempty"`
	MetadataMaterializedViews            *MetadataViews     `json:"metadataMaterializedViews,omitempty"`

	// logSourceNull: the document said logSourceId: null, which HyperDX
	// answers back as null.
	logSourceNull bool
	// cluster is the ClickHouse cluster whose shards hold the table (the
	// store's), set when the catalog reads the source: not stored, a
	// deployment's property rather than the team's.
	cluster string
}

// From is the table a source reads.
type From struct {
	DatabaseName string `json:"databaseName"`
	TableName    string `json:"tableName"`
}

// QuerySetting is a ClickHouse setting HyperDX applies to the source's
// queries (kept, not applied here: the API's own settings bound them).
type QuerySetting struct {
	Setting string `json:"setting"`
	Value   string `json:"value"`
}

// Highlighted is an attribute HyperDX shows beside a row or a trace.
type Highlighted struct {
	SQLExpression    string `json:"sqlExpression"`
	LuceneExpression string `json:"luceneExpression,omitempty"`
	Alias            string `json:"alias,omitempty"`
}

// MaterializedView is a rollup HyperDX may read instead of the table.
type MaterializedView struct {
	DatabaseName      string             `json:"databaseName"`
	TableName         string             `json:"tableName"`
	DimensionColumns  string             `json:"dimensionColumns"`
	MinGranularity    string             `json:"minGranularity"`
	MinDate           *string            `json:"minDate,omitempty"`
	TimestampColumn   string             `json:"timestampColumn"`
	AggregatedColumns []AggregatedColumn `json:"aggregatedColumns"`
}

// AggregatedColumn is one column of a materialized view.
type AggregatedColumn struct {
	SourceColumn string `json:"sourceColumn,omitempty"`
	AggFn        string `json:"aggFn"`
	MVColumn     string `json:"mvColumn"`
}

// MetadataViews are the rollups of a source's keys and values.
type MetadataViews struct {
	KeyRollupTable string `json:"keyRollupTable"`
	KVRollupTable  string `json:"kvRollupTable"`
	Granularity    string `json:"granularity"`
}

// Value sets of a source's fields.
var (
	Kinds = []string{"log", "trace", "session", "metric", "promql"}
	// MetricTypes are the keys of a metric source's metricTables, in the
	// order Chart picks the table it reads.
	MetricTypes = []string{"gauge", "sum", "histogram", "summary", "exponential histogram"}
)

// DefaultConnectionID is the id of the team's connection to the
// collector's own ClickHouse: derived from the team, so a source stored
// before connections existed names it without a lookup.
func DefaultConnectionID(team string) string {
	h := sha256.Sum256([]byte("otelhouse default connection\x00" + team))
	return hex.EncodeToString(h[:12])
}

// Defaults are the exporter's tables, present from the first start, read
// through the team's default connection.
func Defaults(database, team string) []Source {
	conn := DefaultConnectionID(team)
	nine := 9 // the exporter's Duration is in nanoseconds
	return []Source{
		{
			ID: "logs", Name: "Logs", Kind: "log", Connection: conn, From: From{database, "otel_logs"},
			TimestampValueExpression: "Timestamp", DefaultTableSelectExpression: "Timestamp, ServiceName, SeverityText, Body",
			BodyExpression: "Body", ServiceNameExpression: "ServiceName", SeverityTextExpression: "SeverityText",
			EventAttributesExpression: "LogAttributes", ResourceAttributesExpression: "ResourceAttributes",
			TraceIDExpression: "TraceId", SpanIDExpression: "SpanId", TraceSourceID: "traces",
		},
		{
			ID: "traces", Name: "Traces", Kind: "trace", Connection: conn, From: From{database, "otel_traces"},
			TimestampValueExpression: "Timestamp", DefaultTableSelectExpression: "Timestamp, ServiceName, SpanName, Duration",
			SpanNameExpression: "SpanName", SpanKindExpression: "SpanKind", ServiceNameExpression: "ServiceName",
			DurationExpression: "Duration", DurationPrecision: &nine,
			EventAttributesExpression: "SpanAttributes", ResourceAttributesExpression: "ResourceAttributes",
			TraceIDExpression: "TraceId", SpanIDExpression: "SpanId", ParentSpanIDExpression: "ParentSpanId",
			StatusCodeExpression: "StatusCode", StatusMessageExpression: "StatusMessage", LogSourceID: ptr("logs"),
		},
		{
			ID: "metrics", Name: "Metrics", Kind: "metric", Connection: conn, From: From{database, ""},
			TimestampValueExpression: "TimeUnix", ServiceNameExpression: "ServiceName", ResourceAttributesExpression: "ResourceAttributes",
			MetricTables: map[string]string{"gauge": "otel_metrics_gauge", "sum": "otel_metrics_sum", "histogram": "otel_metrics_histogram"},
		},
	}
}

func ptr[T any](v T) *T { return &v }

// metricTable is the table and metric type a metric source's charts
// read first (the others are found by name, charts.metricnames).
func (s Source) metricTable() (table, typ string) {
	for _, t := range MetricTypes {
		if s.MetricTables[t] != "" {
			return s.MetricTables[t], strings.ReplaceAll(t, " ", "_")
		}
	}
	return s.From.TableName, "gauge"
}

// Chart is the source as the chart and search builders read it.
func (s Source) Chart() query.Source {
	q := query.Source{
		Database: s.From.DatabaseName, Table: s.From.TableName, TimestampColumn: s.TimestampValueExpression,
		ServiceColumn: s.ServiceNameExpression, AttributesMap: s.EventAttributesExpression,
		ResourceMap: s.ResourceAttributesExpression, Cluster: s.cluster,
	}
	switch s.Kind {
	case "log":
		q.TraceID = s.TraceIDColumn()
		q.BodyColumn, q.SeverityColumn = s.BodyExpression, s.SeverityTextExpression
	case "trace":
		q.BodyColumn, q.Duration = s.SpanNameExpression, s.DurationExpression
		q.SpanID, q.ParentSpanID, q.StatusCode = s.SpanIDColumn(), s.ParentSpanIDColumn(), s.StatusCodeColumn()
		q.SpanKind, q.TraceID = Column(s.SpanKindExpression, "SpanKind"), s.TraceIDColumn()
		if p := s.DurationPrecision; p != nil && *p >= 0 && *p < 9 {
			q.DurationScale = int64(math.Pow10(9 - *p))
		}
	case "metric":
		q.Table, q.MetricType = s.metricTable()
		q.AttributesMap = "Attributes" // the exporter's metric tables'
	}
	return q
}

// TraceIDColumn is the role a log's trace link and the trace view read a
// trace id from (a column or an expression, read through
// query.Scope.Role); like the roles below, the exporter's column where
// the source sets none.
func (s Source) TraceIDColumn() string { return Column(s.TraceIDExpression, "TraceId") }

// SpanIDColumn is a span's id.
func (s Source) SpanIDColumn() string { return Column(s.SpanIDExpression, "SpanId") }

// ParentSpanIDColumn is the parent span the waterfall nests by.
func (s Source) ParentSpanIDColumn() string { return Column(s.ParentSpanIDExpression, "ParentSpanId") }

// StatusCodeColumn is a span's status, errors read from it.
func (s Source) StatusCodeColumn() string { return Column(s.StatusCodeExpression, "StatusCode") }

// SpanNameColumn is a trace source's span name (the body of a span).
func (s Source) SpanNameColumn() string { return Column(s.SpanNameExpression, "SpanName") }

// Column returns the configured column, or def where none is set.
func Column(configured, def string) string {
	if configured != "" {
		return configured
	}
	return def
}

// Expression is one SQL expression of a source, by its field's name.
type Expression struct {
	Field string
	Text  string
	// Column: the API reads it as a column name (the timestamp and the
	// attribute maps), so it must be one; else any expression over the
	// table's columns that a sql where could hold.
	Column bool
	// List: a select list (expressions separated by commas, or *).
	List bool
}

// Expressions are the source's SQL expressions that are set.
func (s Source) Expressions() []Expression {
	var out []Expression
	add := func(field, text string, column, list bool) {
		if text != "" {
			out = append(out, Expression{field, text, column, list})
		}
	}
	add("timestampValueExpression", s.TimestampValueExpression, true, false)
	add("defaultTableSelectExpression", s.DefaultTableSelectExpression, false, true)
	add("displayedTimestampValueExpression", s.DisplayedTimestampValueExpression, false, false)
	add("serviceNameExpression", s.ServiceNameExpression, false, false)
	add("severityTextExpression", s.SeverityTextExpression, false, false)
	add("bodyExpression", s.BodyExpression, false, false)
	add("eventAttributesExpression", s.EventAttributesExpression, true, false)
	add("resourceAttributesExpression", s.ResourceAttributesExpression, true, false)
	add("implicitColumnExpression", s.ImplicitColumnExpression, false, false)
	add("orderByExpression", s.OrderByExpression, false, true)
	add("traceIdExpression", s.TraceIDExpression, false, false)
	add("spanIdExpression", s.SpanIDExpression, false, false)
	add("parentSpanIdExpression", s.ParentSpanIDExpression, false, false)
	add("spanNameExpression", s.SpanNameExpression, false, false)
	add("spanKindExpression", s.SpanKindExpression, false, false)
	add("durationExpression", s.DurationExpression, false, false)
	add("statusCodeExpression", s.StatusCodeExpression, false, false)
	add("statusMessageExpression", s.StatusMessageExpression, false, false)
	add("sampleRateExpression", s.SampleRateExpression, false, false)
	add("spanEventsValueExpression", s.SpanEventsValueExpression, false, false)
	for i, h := range s.HighlightedTraceAttributeExpressions {
		add(fmt.Sprintf("highlightedTraceAttributeExpressions[%d].sqlExpression", i), h.SQLExpression, false, false)
	}
	for i, h := range s.HighlightedRowAttributeExpressions {
		add(fmt.Sprintf("highlightedRowAttributeExpressions[%d].sqlExpression", i), h.SQLExpression, false, false)
	}
	return out
}

// Validate checks a source a team writes, as HyperDX's SourceSchema does
// for its kind, and fills its defaults (db is the database of a source
// that names none). Whether the team may read its database is
// Tenancy.Check's to say; whether its expressions are safe SQL, the
// caller's, on the engine's parse (query.CheckExpression).
func (s *Source) Validate(db string) error {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	required := func(field, v string) {
		if strings.TrimSpace(v) == "" {
			add("%s is required", field)
		}
	}
	required("name", s.Name)
	required("connection", s.Connection)
	required("timestampValueExpression", s.TimestampValueExpression)
	if !slices.Contains(Kinds, s.Kind) {
		add("kind must be one of %s, got %q", strings.Join(Kinds, ", "), s.Kind)
	}
	if s.From.DatabaseName == "" {
		s.From.DatabaseName = db
	}
	if s.From.DatabaseName == "" {
		add("from.databaseName is required (the team has no database assigned)")
	}
	if s.Kind != "metric" {
		required("from.tableName", s.From.TableName)
	}
	if u := s.UseTextIndexForImplicitColumn; u != "" && u != "auto" && u != "enabled" && u != "disabled" {
		add("useTextIndexForImplicitColumn must be one of auto, enabled, disabled, got %q", u)
	}
	if len(s.QuerySettings) > 10 {
		add("querySettings: at most 10")
	}
	for i, q := range s.QuerySettings {
		if q.Setting == "" || q.Value == "" {
			add("querySettings[%d]: setting and value are required", i)
		}
	}
	switch s.Kind {
	case "log":
		required("defaultTableSelectExpression", s.DefaultTableSelectExpression)
	case "trace":
		required("defaultTableSelectExpression", s.DefaultTableSelectExpression)
		required("durationExpression", s.DurationExpression)
		required("traceIdExpression", s.TraceIDExpression)
		required("spanIdExpression", s.SpanIDExpression)
		required("parentSpanIdExpression", s.ParentSpanIDExpression)
		required("spanNameExpression", s.SpanNameExpression)
		required("spanKindExpression", s.SpanKindExpression)
		if s.DurationPrecision == nil {
			s.DurationPrecision = ptr(3) // HyperDX's default
		} else if *s.DurationPrecision < 0 || *s.DurationPrecision > 9 {
			add("durationPrecision must be between 0 and 9")
		}
	case "session":
		required("traceSourceId", s.TraceSourceID)
	case "metric":
		required("resourceAttributesExpression", s.ResourceAttributesExpression)
		n := 0
		for k, v := range s.MetricTables {
			if !slices.Contains(MetricTypes, k) {
				add("metricTables: %q is not one of %s", k, strings.Join(MetricTypes, ", "))
			}
			if v != "" {
				n++
			}
		}
		if n == 0 {
			add("metricTables: at least one metric table must be specified")
		}
	}
	for i, mv := range s.MaterializedViews {
		if mv.DatabaseName == "" || mv.TableName == "" || mv.TimestampColumn == "" || len(mv.AggregatedColumns) == 0 {
			add("materializedViews[%d]: databaseName, tableName, timestampColumn and aggregatedColumns are required", i)
		}
		if !interval(mv.MinGranularity) {
			add("materializedViews[%d].minGranularity: %q is not an interval such as 5m or 5 minute", i, mv.MinGranularity)
		}
	}
	if m := s.MetadataMaterializedViews; m != nil {
		if m.KeyRollupTable == "" || m.KVRollupTable == "" {
			add("metadataMaterializedViews: keyRollupTable and kvRollupTable are required")
		}
		if !interval(m.Granularity) {
			add("metadataMaterializedViews.granularity: %q is not an interval such as 15m or 15 minute", m.Granularity)
		}
	}
	if len(p) > 0 {
		return errors.New(strings.Join(p, "; "))
	}
	s.Trim()
	return nil
}

// Trim drops the fields that are not of the source's kind (HyperDX's
// schema for the kind strips them), so what is stored and answered is
// the kind's shape.
func (s *Source) Trim() {
	keep := func(kinds ...string) bool { return slices.Contains(kinds, s.Kind) }
	if !keep("log", "trace") {
		s.DefaultTableSelectExpression, s.DisplayedTimestampValueExpression = "", ""
		s.ImplicitColumnExpression, s.OrderByExpression, s.EventAttributesExpression = "", "", ""
		s.UseTextIndexForImplicitColumn = ""
		s.TraceIDExpression, s.SpanIDExpression = "", ""
		s.HighlightedTraceAttributeExpressions, s.HighlightedRowAttributeExpressions = nil, nil
		s.MaterializedViews, s.MetadataMaterializedViews = nil, nil
	}
	if !keep("log") {
		s.SeverityTextExpression, s.BodyExpression = "", ""
	}
	if !keep("log", "session") {
		s.TraceSourceID = ""
	}
	if !keep("log", "trace", "metric") {
		s.ServiceNameExpression, s.MetricSourceID = "", ""
	}
	if keep("metric") {
		s.MetricSourceID = ""
	}
	if !keep("log", "trace", "session", "metric") {
		s.ResourceAttributesExpression = ""
	}
	if !keep("trace") {
		s.ParentSpanIDExpression, s.SpanNameExpression, s.SpanKindExpression = "", "", ""
		s.DurationExpression, s.DurationPrecision = "", nil
		s.StatusCodeExpression, s.StatusMessageExpression, s.SampleRateExpression = "", "", ""
		s.SpanEventsValueExpression, s.SessionSourceID = "", ""
	}
	if !keep("trace", "metric") {
		s.LogSourceID, s.logSourceNull = nil, false
	}
	if !keep("metric") {
		s.MetricTables = nil
	}
}

// SystemDatabase reports whether db is one of the server's own databases,
// which no source may read.
func SystemDatabase(db string) bool {
	return strings.EqualFold(db, "system") || strings.EqualFold(db, "information_schema")
}

// ErrUnreadable is a source whose database its team may not read (a
// Refused is one), or that this API does not query (an Elsewhere): the
// caller's to fix, never read.
var ErrUnreadable = errors.New("source not readable")

// Elsewhere is a source this API cannot query: one read through a
// connection other than the collector's own ClickHouse, or of a kind it
// keeps for HyperDX's clients without querying (session, promql).
type Elsewhere struct {
	ID, Kind, Connection string
}

func (e *Elsewhere) Error() string {
	if e.Connection != "" {
		return fmt.Sprintf("source %s reads connection %s, which is not this collector's own ClickHouse: this API queries only its own (the team's default connection)", e.ID, e.Connection)
	}
	return fmt.Sprintf("source %s is a %s source: this API keeps it for HyperDX's clients but does not query it", e.ID, e.Kind)
}

// Is makes it an ErrUnreadable, which every query path maps to 400.
func (e *Elsewhere) Is(target error) bool { return target == ErrUnreadable }

// Orphaned is a source whose connection has been deleted from under it
// (HyperDX answers 404 for it): a not-found, with a message that says
// which.
type Orphaned struct {
	ID, Connection string
}

func (e *Orphaned) Error() string {
	return fmt.Sprintf("source %s reads connection %s, which no longer exists", e.ID, e.Connection)
}

// Is makes it a store.ErrNotFound.
func (e *Orphaned) Is(target error) bool { return target == store.ErrNotFound }

// Readable says whether this API can query src, a source of team.
func Readable(team string, src Source) error {
	if src.Kind != "log" && src.Kind != "trace" && src.Kind != "metric" {
		return &Elsewhere{ID: src.ID, Kind: src.Kind}
	}
	if src.Connection != DefaultConnectionID(team) {
		return &Elsewhere{ID: src.ID, Kind: src.Kind, Connection: src.Connection}
	}
	return nil
}

// Decode reads a stored source of team: in either shape, its connection
// the team's default where it names none (a source from before
// connections).
func Decode(team string, doc []byte) (Source, error) {
	var src Source
	if err := json.Unmarshal(doc, &src); err != nil {
		return Source{}, err
	}
	if src.Connection == "" {
		src.Connection = DefaultConnectionID(team)
	}
	return src, nil
}

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
		if src, err = Decode(team, res.Doc); err != nil {
			return Source{}, err
		}
		c.mu.Lock()
		if c.recent == nil || len(c.recent) > 10_000 {
			c.recent = map[[2]string]cachedSource{}
		}
		c.recent[key] = cachedSource{src: src, at: time.Now()}
		c.mu.Unlock()
	}
	if err := Readable(team, src); err != nil {
		var elsewhere *Elsewhere
		if errors.As(err, &elsewhere) && elsewhere.Connection != "" {
			if _, cerr := c.Store.Get(ctx, team, store.KindConnection, elsewhere.Connection); errors.Is(cerr, store.ErrNotFound) {
				return Source{}, &Orphaned{ID: id, Connection: elsewhere.Connection}
			}
		}
		return Source{}, err
	}
	if err := c.Tenancy.Check(ctx, team, src.From.DatabaseName); err != nil {
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
		if src, err := Decode(team, it.Doc); err == nil {
			src.cluster = c.Store.Cluster()
			out = append(out, src)
		}
	}
	return out, nil
}
