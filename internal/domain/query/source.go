package query

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// Source is the table a chart, a search or an alert reads, and the
// columns that give it meaning.
type Source struct {
	Database, Table, TimestampColumn                    string
	BodyColumn, ServiceColumn, SeverityColumn, Duration string
	AttributesMap, ResourceMap                          string
	// DurationScale is how many nanoseconds one unit of Duration is
	// (HyperDX's durationPrecision: 1 at 9 digits, 1000000 at 3); 0 is 1.
	DurationScale int64
	// MetricType tells how a metric table's values combine: gauge (as
	// is), sum (cumulative series become increases, counter resets
	// included) or histogram (quantiles from the bucket counts).
	MetricType string
	// Cluster, when set, is the ClickHouse cluster whose shards hold the
	// table: queries read it through cluster(), one replica of every
	// shard, rather than the one server they reach.
	Cluster string
	// A trace source's other roles (HyperDX's traceIdExpression and the
	// like), read through Scope.Role as the ones above are.
	TraceID, SpanID, ParentSpanID, StatusCode, SpanKind string
}

// roles are the source's role expressions: each a column of the table or
// an expression over its columns (ResourceAttributes['service.name'],
// JSONExtractString(Body, 'msg')). The timestamp and the two attribute
// maps are columns only: the time range, its skip index and the map-key
// listings read them as such.
func (s Source) roles() []string {
	return []string{
		s.ServiceColumn, s.SeverityColumn, s.BodyColumn, s.Duration,
		s.TraceID, s.SpanID, s.ParentSpanID, s.StatusCode, s.SpanKind,
	}
}

// Nanoseconds is a duration expression of the source's Duration unit in
// nanoseconds, the unit every duration is answered and compared in.
func (s Source) Nanoseconds(expr string) string {
	if s.DurationScale <= 1 || expr == "" {
		return expr
	}
	return "(" + expr + " * " + strconv.FormatInt(s.DurationScale, 10) + ")"
}

// TableRef is how a query names a table of the source's database: itself
// on one server, through cluster() on a cluster. Names are checked plain
// identifiers (OpenScope, the store's cluster check) before they get here.
func (s Source) TableRef(table string) string {
	if s.Cluster != "" {
		return fmt.Sprintf("cluster('%s', `%s`, `%s`)", s.Cluster, s.Database, table)
	}
	return fmt.Sprintf("`%s`.`%s`", s.Database, table)
}

// columns reads the source table's columns and types, from a short-lived
// cache: every chart, search histogram and alert evaluation resolves its
// source's columns, and the lookup was a query of its own on each (a
// third of a search page's time). A column added to a table is seen
// within columnsCacheFor; a table not there yet is never cached.
func columns(ctx context.Context, db *sql.DB, s Source) (map[string]string, error) {
	key := columnsKey{db, s.Database, s.Table}
	now := time.Now()
	columnsCache.Lock()
	c, ok := columnsCache.m[key]
	columnsCache.Unlock()
	if ok && now.Sub(c.at) < columnsCacheFor {
		return c.cols, nil
	}
	rows, err := db.QueryContext(clickhouse.Context(ctx, clickhouse.WithParameters(clickhouse.Parameters{"db": s.Database, "t": s.Table})),
		"SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String}")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n, t string
		if err := rows.Scan(&n, &t); err != nil {
			return nil, err
		}
		out[n] = t
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("table %s.%s does not exist (yet)", s.Database, s.Table)
	}
	columnsCache.Lock()
	if len(columnsCache.m) > 1000 {
		clear(columnsCache.m)
	}
	columnsCache.m[key] = cachedColumns{cols: out, at: now}
	columnsCache.Unlock()
	return out, nil
}

const columnsCacheFor = 10 * time.Second

type columnsKey struct {
	db              *sql.DB
	database, table string
}

type cachedColumns struct {
	cols map[string]string
	at   time.Time
}

var columnsCache = struct {
	sync.Mutex
	m map[columnsKey]cachedColumns
}{m: map[columnsKey]cachedColumns{}}

// fields resolves names against the real columns of a source: a column by
// its name, the source's role aliases (level, service, body, duration),
// Resource.<key> in the resource map and any other name as an attribute
// (Attr.<key> explicitly); map keys are bound, never pasted.
type fields struct {
	s    Source
	cols map[string]string
	// roles are the role expressions of s that are not plain columns, as
	// checked SQL (checkRoles); a role the check refused is absent.
	roles map[string]resolved
}

// role is a role expression of the source: its column, or the checked
// expression it stands for.
func (f fields) role(text string) (resolved, bool) {
	if text == "" {
		return resolved{}, false
	}
	if r, ok := f.named(text); ok {
		return r, true
	}
	r, ok := f.roles[text]
	return r, ok
}

func (f fields) column(name string) (string, bool, bool) {
	t, ok := f.cols[name]
	if !ok {
		return "", false, false
	}
	base := strings.TrimPrefix(strings.TrimPrefix(t, "LowCardinality("), "Nullable(")
	numeric := strings.HasPrefix(base, "Int") || strings.HasPrefix(base, "UInt") || strings.HasPrefix(base, "Float") || strings.HasPrefix(base, "Decimal")
	return "`" + name + "`", numeric, true
}

func (f fields) Resolve(name string, p *Params) (string, bool, error) {
	r, err := f.resolve(name, p)
	return r.expr, r.numeric, err
}

// IsText reports whether name resolves to a plain String: a String or
// LowCardinality(String) column, or a lookup in a map of Strings.
func (f fields) IsText(name string) bool {
	r, err := f.resolve(name, &Params{})
	return err == nil && r.text
}

// resolved is a field name as SQL, with what it holds.
type resolved struct {
	expr          string
	numeric, text bool
}

func (f fields) named(col string) (resolved, bool) {
	e, num, ok := f.column(col)
	t := f.cols[col]
	return resolved{expr: e, numeric: num, text: t == "String" || t == "LowCardinality(String)"}, ok
}

// lookup is col[key], a String when col is a map of Strings.
func (f fields) lookup(col, key string, p *Params) (resolved, bool) {
	e, _, ok := f.column(col)
	return resolved{expr: e + "[" + p.Add(key, "String") + "]", text: strings.HasSuffix(f.cols[col], ", String)")}, ok
}

func (f fields) resolve(name string, p *Params) (resolved, error) {
	if r, ok := f.named(name); ok {
		return r, nil
	}
	if r, ok := f.roles[name]; ok {
		// A role's own text (a HyperDX chart groups by the source's
		// serviceNameExpression as written).
		return r, nil
	}
	alias := map[string]string{
		"level": f.s.SeverityColumn, "severity": f.s.SeverityColumn, "service": f.s.ServiceColumn,
		"body": f.s.BodyColumn, "message": f.s.BodyColumn, "duration": f.s.Duration,
	}
	if c := alias[strings.ToLower(name)]; c != "" {
		if r, ok := f.role(c); ok {
			return r, nil
		}
	}
	// <map column>.<key>, as HyperDX writes them (LogAttributes.http.method,
	// ResourceAttributes.host.name), for every map column of the table.
	if col, k, ok := strings.Cut(name, "."); ok && k != "" && strings.HasPrefix(f.cols[col], "Map(") {
		r, _ := f.lookup(col, k, p)
		return r, nil
	}
	if k, ok := strings.CutPrefix(name, "Resource."); ok && f.s.ResourceMap != "" {
		if r, ok := f.lookup(f.s.ResourceMap, k, p); ok {
			return r, nil
		}
	}
	if primary, present, secondary, ok := f.Fallback(name, p); ok {
		return resolved{expr: "if(" + present + ", " + primary + ", " + secondary + ")", text: true}, nil
	}
	k := strings.TrimPrefix(name, "Attr.")
	if k != "" && f.s.AttributesMap != "" {
		if r, ok := f.lookup(f.s.AttributesMap, k, p); ok {
			return r, nil
		}
	}
	return resolved{}, fmt.Errorf("unknown field %q", name)
}

// Fallback resolves a bare key (no column, alias, map prefix, Attr. or
// Resource.) of a source with both maps: the record attributes' value
// when they have the key, else the resource attributes', so host.name
// finds what the exporter keeps in ResourceAttributes.
func (f fields) Fallback(name string, p *Params) (primary, present, secondary string, ok bool) {
	if _, _, isCol := f.column(name); isCol || f.s.AttributesMap == "" || f.s.ResourceMap == "" ||
		strings.HasPrefix(name, "Attr.") || strings.HasPrefix(name, "Resource.") {
		return "", "", "", false
	}
	switch strings.ToLower(name) {
	case "level", "severity", "service", "body", "message", "duration":
		return "", "", "", false
	}
	if col, k, cut := strings.Cut(name, "."); cut && k != "" && strings.HasPrefix(f.cols[col], "Map(") {
		return "", "", "", false
	}
	a, _, okA := f.column(f.s.AttributesMap)
	r, _, okR := f.column(f.s.ResourceMap)
	if !okA || !okR {
		return "", "", "", false
	}
	key := p.Add(name, "String")
	return a + "[" + key + "]", "mapContains(" + a + ", " + key + ")", r + "[" + key + "]", true
}

// Folds makes the severity field match without regard to case.
func (f fields) Folds(name string) bool {
	if f.s.SeverityColumn == "" {
		return false
	}
	n := strings.ToLower(name)
	return n == "level" || n == "severity" || name == f.s.SeverityColumn
}

func (f fields) Body() string {
	if r, ok := f.role(f.s.BodyColumn); ok {
		return r.expr
	}
	return "''"
}
