package sources

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// legacySource is a source as stored before sources took HyperDX's shape:
// a table and column names. Such documents are read (UnmarshalJSON) as
// today's shape; they are rewritten only when the team next saves them.
type legacySource struct {
	Database           string `json:"database"`
	Table              string `json:"table"`
	TimestampColumn    string `json:"timestampColumn"`
	BodyColumn         string `json:"bodyColumn"`
	ServiceColumn      string `json:"serviceColumn"`
	SeverityColumn     string `json:"severityColumn"`
	DurationColumn     string `json:"durationColumn"`
	AttributesMap      string `json:"attributesMap"`
	ResourceMap        string `json:"resourceMap"`
	MetricType         string `json:"metricType"`
	TraceIDColumn      string `json:"traceIdColumn"`
	SpanIDColumn       string `json:"spanIdColumn"`
	ParentSpanIDColumn string `json:"parentSpanIdColumn"`
	StatusCodeColumn   string `json:"statusCodeColumn"`
}

// plain has Source's fields without its methods, so that decoding and
// encoding it do not recurse.
type plain Source

// UnmarshalJSON reads a source in today's shape or in the earlier one.
func (s *Source) UnmarshalJSON(b []byte) error {
	var probe struct {
		From        json.RawMessage `json:"from"`
		Table       *string         `json:"table"`
		LogSourceID json.RawMessage `json:"logSourceId"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = Source(p)
	s.logSourceNull = bytes.Equal(bytes.TrimSpace(probe.LogSourceID), []byte("null"))
	if probe.From == nil && probe.Table != nil {
		var old legacySource
		if err := json.Unmarshal(b, &old); err != nil {
			return err
		}
		s.fromLegacy(old)
	}
	if s.Kind == "session" && s.TimestampValueExpression == "" {
		// HyperDX's sessions from before the field was required.
		s.TimestampValueExpression = "TimestampTime"
	}
	return nil
}

// MarshalJSON writes the source as HyperDX's model does: a logSourceId
// read as null kept, and the lists of its kind present when empty.
func (s Source) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(plain(s))
	if err != nil {
		return b, err
	}
	var extra []string
	if s.logSourceNull && s.LogSourceID == nil {
		extra = append(extra, `"logSourceId":null`)
	}
	if len(s.QuerySettings) == 0 {
		extra = append(extra, `"querySettings":[]`)
	}
	if s.Kind == "log" || s.Kind == "trace" {
		for name, n := range map[string]int{
			"highlightedTraceAttributeExpressions": len(s.HighlightedTraceAttributeExpressions),
			"highlightedRowAttributeExpressions":   len(s.HighlightedRowAttributeExpressions),
			"materializedViews":                    len(s.MaterializedViews),
		} {
			if n == 0 {
				extra = append(extra, `"`+name+`":[]`)
			}
		}
	}
	if len(extra) == 0 {
		return b, nil
	}
	return append(append(b[:len(b)-1], ","+strings.Join(extra, ",")...), '}'), nil
}

// fromLegacy fills the source from an earlier document's columns, with
// the defaults HyperDX's schema requires of the kind.
func (s *Source) fromLegacy(old legacySource) {
	s.From = From{old.Database, old.Table}
	s.TimestampValueExpression = old.TimestampColumn
	s.ServiceNameExpression = old.ServiceColumn
	s.ResourceAttributesExpression = old.ResourceMap
	switch s.Kind {
	case "log":
		s.BodyExpression, s.SeverityTextExpression, s.EventAttributesExpression = old.BodyColumn, old.SeverityColumn, old.AttributesMap
		s.TraceIDExpression, s.SpanIDExpression = Column(old.TraceIDColumn, "TraceId"), Column(old.SpanIDColumn, "SpanId")
		s.DefaultTableSelectExpression = selectList(old.TimestampColumn, old.ServiceColumn, old.SeverityColumn, old.BodyColumn)
	case "trace":
		nine := 9 // the exporter's nanoseconds
		s.SpanNameExpression, s.DurationExpression, s.DurationPrecision = Column(old.BodyColumn, "SpanName"), Column(old.DurationColumn, "Duration"), &nine
		s.EventAttributesExpression, s.SpanKindExpression = old.AttributesMap, "SpanKind"
		s.TraceIDExpression, s.SpanIDExpression = Column(old.TraceIDColumn, "TraceId"), Column(old.SpanIDColumn, "SpanId")
		s.ParentSpanIDExpression, s.StatusCodeExpression = Column(old.ParentSpanIDColumn, "ParentSpanId"), old.StatusCodeColumn
		s.DefaultTableSelectExpression = selectList(old.TimestampColumn, old.ServiceColumn, s.SpanNameExpression, s.DurationExpression)
	case "metric":
		typ := strings.ReplaceAll(Column(old.MetricType, "gauge"), "_", " ")
		s.MetricTables = map[string]string{typ: old.Table}
		s.From.TableName = ""
		s.ResourceAttributesExpression = Column(old.ResourceMap, "ResourceAttributes")
	}
}

func selectList(cols ...string) string {
	var out []string
	for _, c := range cols {
		if c != "" {
			out = append(out, c)
		}
	}
	return strings.Join(out, ", ")
}

// Public is the source as the API answers it: granularities in HyperDX's
// external short form (5m), the fields of other kinds left out.
func (s Source) Public() Source {
	s.Trim()
	s.MaterializedViews = append([]MaterializedView(nil), s.MaterializedViews...)
	for i := range s.MaterializedViews {
		s.MaterializedViews[i].MinGranularity = GranularityExternal(s.MaterializedViews[i].MinGranularity)
	}
	if m := s.MetadataMaterializedViews; m != nil {
		c := *m
		c.Granularity = GranularityExternal(c.Granularity)
		s.MetadataMaterializedViews = &c
	}
	return s
}

// Stored is the source as stored: granularities in the SQL interval
// form (5 minute) HyperDX keeps.
func (s *Source) Stored() {
	for i := range s.MaterializedViews {
		s.MaterializedViews[i].MinGranularity = GranularityInternal(s.MaterializedViews[i].MinGranularity)
	}
	if m := s.MetadataMaterializedViews; m != nil {
		m.Granularity = GranularityInternal(m.Granularity)
	}
}

var (
	shortUnits = map[string]string{"s": "second", "m": "minute", "h": "hour", "d": "day"}
	longUnits  = map[string]string{"second": "s", "minute": "m", "hour": "h", "day": "d"}
)

// GranularityInternal turns the external form (15s, 5m, 2h, 1d) into the
// SQL interval form (15 second); anything else passes through.
func GranularityInternal(g string) string {
	if len(g) < 2 {
		return g
	}
	n, unit := g[:len(g)-1], shortUnits[g[len(g)-1:]]
	if _, err := strconv.ParseUint(n, 10, 32); err != nil || unit == "" {
		return g
	}
	return n + " " + unit
}

// GranularityExternal turns the SQL interval form (1 minute) into the
// external one (1m); anything else (2 minutes, 1m) passes through.
func GranularityExternal(g string) string {
	n, unit, ok := strings.Cut(g, " ")
	if _, err := strconv.ParseUint(n, 10, 32); err != nil || !ok || longUnits[unit] == "" {
		return g
	}
	return n + longUnits[unit]
}

// interval: g is a granularity in either form.
func interval(g string) bool {
	n, unit, ok := strings.Cut(GranularityInternal(g), " ")
	_, err := strconv.ParseUint(n, 10, 32)
	return ok && err == nil && longUnits[unit] != ""
}

// DecodeBody reads a source a request sends: today's shape only, with no
// field the shape does not have.
func DecodeBody(b []byte) (Source, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return Source{}, err
	}
	return Source(p), nil
}
