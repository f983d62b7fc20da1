package charts

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

func TestParseDatadogAlgorithms(t *testing.T) {
	for _, c := range []struct {
		q    string
		want ddAlgorithm
	}{
		{
			"anomalies(avg:system.cpu.user{*}, 'basic', 2)",
			ddAlgorithm{fn: "anomalies", algorithm: "basic", bounds: 2, direction: "both", bound: "trend", history: 7 * 24 * time.Hour},
		},
		{
			"anomalies(+ avg:apache.performance.cpu_load{*} by {host}, 'agile', 3, direction='above', alert_window='last_15m', interval=60, count_default_zero='true', seasonality='hourly')",
			ddAlgorithm{fn: "anomalies", algorithm: "agile", bounds: 3, direction: "above", interval: time.Minute, bound: "trend", history: 7 * 24 * time.Hour},
		},
		{
			"forecast(avg:system.disk.in_use{*} by {host,device}, 'linear', 1, interval='60m', history='1w', model='default')",
			ddAlgorithm{fn: "forecast", algorithm: "linear", bounds: 1, direction: "both", interval: time.Hour, bound: "trend", history: 7 * 24 * time.Hour},
		},
		{
			"forecast(avg:a{*}, 'seasonal', 2, history='3d', horizon='1w', bound='upper')",
			ddAlgorithm{fn: "forecast", algorithm: "seasonal", bounds: 2, direction: "both", bound: "upper", history: 3 * 24 * time.Hour, horizon: 7 * 24 * time.Hour},
		},
		{
			"forecast(avg:a{*}, 'linear')",
			ddAlgorithm{fn: "forecast", algorithm: "linear", bounds: 1, direction: "both", bound: "trend", history: 7 * 24 * time.Hour},
		},
	} {
		e, err := ParseDatadogMetric(c.q)
		require.NoError(t, err, c.q)
		require.Equal(t, byte('a'), e.op, c.q)
		assert.Equal(t, c.want, *e.alg, c.q)
		assert.NotNil(t, e.left, c.q)
	}

	// In a formula, and around one.
	e, err := ParseDatadogMetric("anomalies(sum:a{*} / sum:b{*}, 'basic', 2) * 100")
	require.NoError(t, err)
	assert.Equal(t, byte('*'), e.op)
	assert.Equal(t, byte('/'), e.left.left.op)

	for q, why := range map[string]string{
		"anomalies(avg:a{*})":                                 "needs an algorithm",
		"anomalies(avg:a{*}, 'magic', 2)":                     "algorithm is one of basic, agile, robust, adaptive",
		"forecast(avg:a{*}, 'basic', 2)":                      "algorithm is one of linear, seasonal",
		"anomalies(avg:a{*}, 'basic', two)":                   "bounds must be a number",
		"anomalies(avg:a{*}, 'basic', -1)":                    "bounds must be a number",
		"anomalies(avg:a{*}, 'basic', 2, 3)":                  "takes a query, an algorithm and bounds",
		"anomalies(avg:a{*}, 'basic', 2, direction='up')":     "direction is both, above or below",
		"anomalies(avg:a{*}, 'basic', 2, history='1w')":       "anomalies takes direction, alert_window",
		"forecast(avg:a{*}, 'linear', 1, history='forever')":  "history must be a duration",
		"forecast(avg:a{*}, 'linear', 1, bound='middle')":     "bound is trend, upper or lower",
		"anomalies(avg:a{*}, 'basic', 2, interval=0)":         "interval must be a duration",
		"anomalies(avg:a{*}, 'basic', 2, direction='above'":   "expected ')'",
		"anomalies(avg:a{*}, 'basic, 2)":                      "not closed",
		"anomalies(avg:a{*}, 'basic', 2, interval=)":          "expected an argument",
		"forecast(avg:a{*}, 'linear', 1, horizon='" + "9w')x": "unexpected",
	} {
		_, err := ParseDatadogMetric(q)
		if assert.Error(t, err, q) {
			assert.Contains(t, err.Error(), why, q)
		}
	}
}

func TestDDDuration(t *testing.T) {
	for s, want := range map[string]time.Duration{
		"60": time.Minute, "60m": time.Hour, "1w": 7 * 24 * time.Hour, "2d": 48 * time.Hour, "4h": 4 * time.Hour,
		"last_15m": 15 * time.Minute, "next_1w": 7 * 24 * time.Hour, "30s": 30 * time.Second,
	} {
		got, ok := ddDuration(s)
		assert.True(t, ok, s)
		assert.Equal(t, want, got, s)
	}
	for _, s := range []string{"", "m", "1y", "abc", "1.5h"} {
		_, ok := ddDuration(s)
		assert.False(t, ok, s)
	}
}

func TestAlgorithmPlan(t *testing.T) {
	for _, c := range []struct {
		a          ddAlgorithm
		step, span time.Duration
		fine, lead time.Duration
	}{
		// An alert's one bucket of 15m: read every minute, an hour back.
		{ddAlgorithm{fn: "anomalies"}, 15 * time.Minute, 15 * time.Minute, time.Minute, time.Hour},
		// 4h: every 4 minutes.
		{ddAlgorithm{fn: "anomalies"}, 4 * time.Hour, 4 * time.Hour, 4 * time.Minute, 4 * time.Hour},
		// The monitor's interval=20, finer than the bucket.
		{ddAlgorithm{fn: "anomalies", interval: 20 * time.Second}, 15 * time.Minute, 15 * time.Minute, 20 * time.Second, 20 * time.Minute},
		// Never coarser than the chart's buckets.
		{ddAlgorithm{fn: "anomalies", interval: time.Hour}, time.Minute, time.Hour, time.Minute, time.Hour},
		// A long range at a fine interval is made coarser.
		{ddAlgorithm{fn: "anomalies", interval: time.Second}, 30 * time.Second, 30 * 24 * time.Hour, 130 * time.Second, anomalyLag * 130 * time.Second},
		// forecast: a 168th of the history, or its interval.
		{ddAlgorithm{fn: "forecast", history: 7 * 24 * time.Hour}, time.Hour, time.Hour, time.Hour, 7 * 24 * time.Hour},
		{ddAlgorithm{fn: "forecast", history: time.Hour}, time.Minute, time.Hour, time.Minute, time.Hour},
		{ddAlgorithm{fn: "forecast", history: 7 * 24 * time.Hour, interval: 10 * time.Minute}, time.Hour, time.Hour, 10 * time.Minute, 7 * 24 * time.Hour},
	} {
		fine, lead := c.a.plan(c.step, c.span)
		assert.Equal(t, c.fine, fine, "%+v", c)
		assert.Equal(t, c.lead, lead, "%+v", c)
	}
}

// pts are values a step of fine apart from t0.
func pts(t0 int64, fine time.Duration, vs ...float64) []algorithmPoint {
	out := make([]algorithmPoint, len(vs))
	for i, v := range vs {
		out[i] = algorithmPoint{t0 + int64(i)*fine.Milliseconds(), v}
	}
	return out
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestAnomalies(t *testing.T) {
	m := time.Minute
	// An hour of noise around 10, then a 15-minute bucket.
	noise := make([]float64, 60)
	for i := range noise {
		noise[i] = 10 + float64(i%5-2)*0.5 // 9 … 11
	}
	window := time.UnixMilli(0).Add(60 * m).UnixMilli()
	for _, c := range []struct {
		name      string
		direction string
		bounds    float64
		bucket    []float64 // the 15 values of the bucket
		want      *float64  // nil: not judged
	}{
		{"normal", "both", 2, repeat(10, 15), ptr(0)},
		{"a spike throughout", "both", 2, repeat(30, 15), ptr(1)},
		{"a spike in a third", "both", 2, append(repeat(10, 10), repeat(30, 5)...), ptr(5.0 / 15)},
		{"a drop, above only", "above", 2, repeat(0, 15), ptr(0)},
		{"a drop, below", "below", 2, repeat(0, 15), ptr(1)},
		{"wide bounds hold a spike", "both", 50, repeat(30, 15), ptr(0)},
	} {
		a := ddAlgorithm{fn: "anomalies", bounds: c.bounds, direction: c.direction}
		got := a.anomalies(pts(0, m, append(append([]float64{}, noise...), c.bucket...)...), []int64{window}, 15*m, m)
		if c.want == nil {
			assert.Empty(t, got, c.name)
			continue
		}
		require.Contains(t, got, window, c.name)
		assert.InDelta(t, *c.want, *got[window], 1e-9, c.name)
	}

	// Too little history: nothing judged.
	a := ddAlgorithm{fn: "anomalies", bounds: 2, direction: "both"}
	assert.Empty(t, a.anomalies(pts(window, m, 1, 2, 3, 4), []int64{window}, 15*m, m))
	// A flat history: any change is outside, the same value is not.
	got := a.anomalies(pts(0, m, append(repeat(5, 60), 5, 5, 6)...), []int64{window}, 15*m, m)
	assert.InDelta(t, 1.0/3, *got[window], 1e-9)
	// Each chart bucket of its own: a point's indicator.
	got = a.anomalies(pts(0, m, append(repeat(5, 60), 5, 9)...), []int64{window, window + m.Milliseconds()}, m, m)
	assert.Equal(t, 0.0, *got[window])
	assert.Equal(t, 1.0, *got[window+m.Milliseconds()])
}

func ptr(v float64) *float64 { return &v }

func TestForecast(t *testing.T) {
	h := time.Hour
	// A day of a line rising 1 an hour from 50, plus ±1 alternating.
	line := make([]float64, 24)
	for i := range line {
		line[i] = 50 + float64(i) + float64(1-2*(i%2))
	}
	// The bucket [23h, 24h): the line is fitted on the whole day and read
	// from its end (x 24), expectations by the least-squares formulas.
	bucket := (23 * h).Milliseconds()
	for _, c := range []struct {
		name string
		a    ddAlgorithm
		want float64
	}{
		// slope 0.98957, intercept 49.62522 (the ±1 tilts them a little).
		{"trend now", ddAlgorithm{fn: "forecast", history: 24 * h, bound: "trend"}, 73.37478},
		{"trend a week ahead", ddAlgorithm{fn: "forecast", history: 24 * h, horizon: 7 * 24 * h, bound: "trend"}, 239.62174},
		// The residuals' standard deviation is 1.04174.
		{"upper", ddAlgorithm{fn: "forecast", history: 24 * h, horizon: 7 * 24 * h, bound: "upper", bounds: 1}, 240.66348},
		// The lower bound of a rising line is now's, less two deviations.
		{"lower", ddAlgorithm{fn: "forecast", history: 24 * h, horizon: 7 * 24 * h, bound: "lower", bounds: 2}, 71.29131},
	} {
		got := c.a.forecast(pts(0, h, line...), []int64{bucket}, h, h, time.UnixMilli(bucket+h.Milliseconds()))
		require.Contains(t, got, bucket, c.name)
		assert.InDelta(t, c.want, *got[bucket], 1e-4, c.name)
	}
	// A 23-hour history leaves the first point out.
	a23 := ddAlgorithm{fn: "forecast", history: 23 * h, bound: "trend"}
	got := a23.forecast(pts(0, h, line...), []int64{bucket}, h, h, time.UnixMilli(bucket+h.Milliseconds()))
	assert.NotEqual(t, 73.37478, math.Round(*got[bucket]*1e5)/1e5)

	// The history bounds what is fitted: a flat recent hour after a
	// steep past reads flat.
	vals := append(repeat(0, 10), repeat(100, 10)...)
	a := ddAlgorithm{fn: "forecast", history: 5 * h, horizon: 24 * h, bound: "trend"}
	got = a.forecast(pts(0, h, vals...), []int64{(19 * h).Milliseconds()}, h, h, time.UnixMilli((20 * h).Milliseconds()))
	assert.InDelta(t, 100, *got[(19 * h).Milliseconds()], 1e-6)

	// Fewer than three points: no value.
	got = a.forecast(pts(0, h, 1, 2), []int64{h.Milliseconds()}, h, h, time.UnixMilli((2 * h).Milliseconds()))
	assert.Empty(t, got)
}

func TestBand(t *testing.T) {
	lo, hi := band([]float64{1, 2, 3, 4, 100}, 2)
	// median 3, deviations 2 1 0 1 97 → median 1 → ±2×1.4826.
	assert.InDelta(t, 3-2*madScale, lo, 1e-9)
	assert.InDelta(t, 3+2*madScale, hi, 1e-9)
	lo, hi = band([]float64{7, 7, 7}, 3)
	assert.True(t, lo < 7 && hi > 7 && hi-lo < 1e-6)
	assert.False(t, math.IsNaN(lo))
}

// anomalies() and forecast() over the engine: a gauge steady for hours
// then spiking, one rising.
func TestDatadogAlgorithmsOnTheEngine(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS charts_dda",
		`CREATE TABLE IF NOT EXISTS charts_dda.otel_metrics_gauge (ResourceAttributes Map(LowCardinality(String), String), ServiceName LowCardinality(String),
		  MetricName String, Attributes Map(LowCardinality(String), String), TimeUnix DateTime64(9), Value Float64) ENGINE = MergeTree ORDER BY (MetricName, TimeUnix)`,
		"TRUNCATE TABLE charts_dda.otel_metrics_gauge",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	t0 := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	var rows []string
	// system.cpu.user, every minute from 8:00 to 12:15, hosts a and b:
	// about 20 (±1) until 12:00, then host a at 90.
	// disk.in_use: a rising line, 0.5 at 8:00 plus 0.01 an hour.
	for i := 0; i < 255; i++ {
		at := t0.Add(time.Duration(i) * time.Minute).Format(time.DateTime)
		a, b := 20+float64(i%3-1), 20+float64((i+1)%3-1)
		if i >= 240 {
			a = 90
		}
		rows = append(rows,
			fmt.Sprintf("({'host.name':'a'},'','system.cpu.user',{},'%s',%v)", at, a),
			fmt.Sprintf("({'host.name':'b'},'','system.cpu.user',{},'%s',%v)", at, b),
			fmt.Sprintf("({'host.name':'a'},'','system.disk.in_use',{},'%s',%v)", at, 0.5+0.01*float64(i)/60))
	}
	_, err := db.ExecContext(ctx, "INSERT INTO charts_dda.otel_metrics_gauge VALUES "+strings.Join(rows, ","))
	require.NoError(t, err)
	src := query.Source{
		Database: "charts_dda", Table: "otel_metrics_gauge", TimestampColumn: "TimeUnix", ServiceColumn: "ServiceName",
		AttributesMap: "Attributes", ResourceMap: "ResourceAttributes", MetricType: "gauge",
	}
	run := func(q string, start time.Time, step time.Duration) map[string]float64 {
		points, err := Run(ctx, db, []Series{{Source: src, Query: q}}, start, start.Add(step), step, time.Minute)
		require.NoError(t, err, q)
		out := map[string]float64{}
		for _, p := range points {
			if p.Values[0] != nil {
				out[strings.Join(p.Group, ",")] = *p.Values[0]
			}
		}
		return out
	}
	noon := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

	// The 15 minutes after noon, as an alert reads them: host a wholly
	// outside its band, b inside.
	got := run("anomalies(avg:system.cpu.user{*} by {host}, 'basic', 2, interval=60)", noon, 15*time.Minute)
	assert.Equal(t, map[string]float64{"a": 1, "b": 0}, got)
	// Before noon, nothing is anomalous.
	got = run("anomalies(avg:system.cpu.user{*} by {host}, 'basic', 2)", noon.Add(-15*time.Minute), 15*time.Minute)
	assert.Equal(t, map[string]float64{"a": 0, "b": 0}, got)
	// Below only: the spike is not counted.
	got = run("anomalies(avg:system.cpu.user{host:a}, 'agile', 2, direction='below')", noon, 15*time.Minute)
	assert.Equal(t, map[string]float64{"": 0}, got)
	// The monitor's shape, one series over 4h read every 4 minutes: the
	// steady hours are not anomalous, the window after noon is.
	got = run("anomalies(avg:system.cpu.user{*}, 'basic', 2)", noon.Add(-4*time.Hour), 4*time.Hour)
	assert.Equal(t, map[string]float64{"": 0}, got)
	got = run("anomalies(avg:system.cpu.user{*}, 'basic', 2)", noon, 4*time.Hour)
	assert.Equal(t, map[string]float64{"": 1}, got)

	// forecast: the line fitted over 4 hours before 12:00, read a week
	// ahead: 0.5 + 0.01 × (4 + 168) hours ≈ 2.22.
	got = run("forecast(avg:system.disk.in_use{*}, 'linear', 1, history='4h', interval=300, horizon='1w')", noon.Add(-time.Hour), time.Hour)
	if assert.Contains(t, got, "") {
		assert.InDelta(t, 2.22, got[""], 0.01)
	}
	got = run("forecast(avg:system.disk.in_use{*}, 'linear', 1, history='4h', interval=300, horizon='1w', bound='lower')", noon.Add(-time.Hour), time.Hour)
	if assert.Contains(t, got, "") {
		assert.InDelta(t, 0.54, got[""], 0.01, "a rising line is lowest now")
	}
}

// The parser answers an error, never a panic, whatever follows anomalies(
// or forecast(.
func FuzzParseDatadogAlgorithms(f *testing.F) {
	for _, s := range []string{
		"anomalies(avg:a{*}, 'basic', 2, direction='above', interval=60)",
		"forecast(avg:a{*} by {h}, 'linear', 1, history='1w', horizon='1d', bound='upper')",
		"anomalies(+ a{*}, 'agile', 2, alert_window='last_15m', count_default_zero='true')",
		"anomalies(", "forecast(a{*},", "anomalies(a{*}, '", "forecast(a{*}, 'linear', 1, history=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		e, err := ParseDatadogMetric(q)
		if err == nil && e == nil {
			t.Fatal("no expression and no error")
		}
		_, _ = DatadogAlgorithmNote(q)
	})
}
