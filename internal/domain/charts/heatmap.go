package charts

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// HeatmapQuery is a heatmap tile's question: how many events of Where
// fall in each cell of time bucket × bucket of Value's range.
type HeatmapQuery struct {
	Source        query.Source
	Value         string
	Where         string
	WhereLanguage string
	// Log spaces the value buckets evenly on a log scale (durations span
	// orders of magnitude); values at or below zero are left out then.
	Log bool
	// Rows is how many value buckets the range is cut into.
	Rows int
}

// Heatmap is the answer: Times are the time buckets' starts (epoch ms),
// Bounds the Rows+1 edges of the value buckets, Counts[t][r] the events
// in time bucket t and value bucket r. No events: no bounds, no counts.
type Heatmap struct {
	Times  []int64     `json:"times"`
	Bounds []float64   `json:"bounds"`
	Counts [][]float64 `json:"counts"`
}

// MaxHeatmapRows bounds the value buckets of one answer.
const MaxHeatmapRows = 100

// RunHeatmap counts the events of q over [start, end) in buckets of step:
// a first pass finds the value's range, a second counts the cells.
func RunHeatmap(ctx context.Context, db *sql.DB, q HeatmapQuery, start, end time.Time, step time.Duration, timeout time.Duration) (Heatmap, error) {
	if q.Rows <= 0 || q.Rows > MaxHeatmapRows {
		return Heatmap{}, query.Mistake(fmt.Errorf("rows must be 1 to %d", MaxHeatmapRows))
	}
	scope, err := query.OpenScope(ctx, db, q.Source)
	if err != nil {
		return Heatmap{}, err
	}
	var p query.Params
	v, numeric, err := scope.Resolve(q.Value, &p)
	if err != nil {
		return Heatmap{}, query.Mistake(err)
	}
	if !numeric {
		v = "toFloat64OrNull(toString(" + v + "))"
	}
	v = "toFloat64(" + v + ")"
	cond, err := scope.Where(ctx, db, q.WhereLanguage, q.Where, &p)
	if err != nil {
		return Heatmap{}, query.Mistake(err)
	}
	ts := scope.Timestamp
	startP, endP := p.Add(strconv.FormatInt(start.UnixMilli(), 10), "Int64"), p.Add(strconv.FormatInt(end.UnixMilli(), 10), "Int64")
	filter := fmt.Sprintf("%[1]s >= fromUnixTimestamp64Milli(%[2]s) AND %[1]s < fromUnixTimestamp64Milli(%[3]s) AND (%[4]s) AND isFinite(%[5]s)", ts, startP, endP, cond, v)
	if q.Log {
		filter += " AND " + v + " > 0"
	}
	params := clickhouse.Parameters{}
	for k, val := range p.Values {
		params[k] = val
	}
	qctx := clickhouse.Context(ctx, clickhouse.WithParameters(params), clickhouse.WithSettings(query.UserQuerySettings(timeout)))

	var n uint64
	var lo, hi float64
	if err := db.QueryRowContext(qctx, fmt.Sprintf("SELECT count(), min(%[1]s), max(%[1]s) FROM %[2]s WHERE %[3]s", v, scope.From, filter)).Scan(&n, &lo, &hi); err != nil {
		return Heatmap{}, query.EngineError(err)
	}
	out := Heatmap{Times: []int64{}, Bounds: []float64{}, Counts: [][]float64{}}
	if n == 0 {
		return out, nil
	}
	bounds, at := heatmapBounds(lo, hi, q.Rows, q.Log, v)
	nrows := len(bounds) - 1
	stepMs := step.Milliseconds()
	first := start.UnixMilli() / stepMs * stepMs
	for b := first; b < end.UnixMilli(); b += stepMs {
		out.Times = append(out.Times, b)
		out.Counts = append(out.Counts, make([]float64, nrows))
	}
	bucket := fmt.Sprintf("toInt64(toUnixTimestamp(toStartOfInterval(toDateTime(%s), INTERVAL %d SECOND))) * 1000", ts, int64(step/time.Second))
	rows, err := db.QueryContext(qctx, fmt.Sprintf("SELECT %s AS t, %s AS r, count() FROM %s WHERE %s GROUP BY t, r",
		bucket, at, scope.From, filter))
	if err != nil {
		return Heatmap{}, query.EngineError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var t, r int64
		var n uint64
		if err := rows.Scan(&t, &r, &n); err != nil {
			return Heatmap{}, err
		}
		i := (t - first) / stepMs
		if i < 0 || int(i) >= len(out.Counts) || r < 0 || int(r) >= nrows {
			continue
		}
		out.Counts[i][r] += float64(n)
	}
	if err := rows.Err(); err != nil {
		return Heatmap{}, query.EngineError(err)
	}
	out.Bounds = bounds
	return out, nil
}

// heatmapBounds cuts [lo, hi] into rows buckets (evenly, or evenly in log
// space) and answers their edges and the SQL naming the bucket of v. One
// value alone makes one bucket around it.
func heatmapBounds(lo, hi float64, rows int, log bool, v string) ([]float64, string) {
	if hi <= lo {
		rows = 1
	}
	f := func(x float64) float64 { return x }
	fv, flo, fhi := v, lo, hi
	if log {
		f = math.Exp
		fv, flo, fhi = "log("+v+")", math.Log(lo), math.Log(hi)
	}
	width := (fhi - flo) / float64(rows)
	bounds := make([]float64, rows+1)
	for i := range bounds {
		bounds[i] = f(flo + width*float64(i))
	}
	bounds[0], bounds[rows] = lo, hi
	if width <= 0 {
		return bounds, "toInt64(0)"
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	// The top edge belongs to the last bucket.
	at := fmt.Sprintf("least(toInt64(floor((%s - %s) / %s)), %d)", fv, num(flo), num(width), rows-1)
	return bounds, strings.TrimSpace(at)
}
