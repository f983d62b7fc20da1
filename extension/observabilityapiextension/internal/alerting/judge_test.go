package alerting

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/otelhouse/otelhouse/internal/domain/charts"
)

func f(v float64) *float64 { return &v }

// TestBreaches: HyperDX's comparators, bounds included as it has them.
func TestBreaches(t *testing.T) {
	cases := []struct {
		typ     string
		lo, hi  float64
		v       float64
		breach  bool
		comment string
	}{
		{"above", 10, 0, 10, true, "meets"},
		{"above", 10, 0, 9.9, false, ""},
		{"above_exclusive", 10, 0, 10, false, "exceeds only"},
		{"above_exclusive", 10, 0, 11, true, ""},
		{"below", 10, 0, 10, false, "falls below only"},
		{"below", 10, 0, 9, true, ""},
		{"below_or_equal", 10, 0, 10, true, ""},
		{"equal", 10, 0, 10, true, ""},
		{"equal", 10, 0, 11, false, ""},
		{"not_equal", 10, 0, 11, true, ""},
		{"not_equal", 10, 0, 10, false, ""},
		{"between", 10, 20, 10, true, "low bound in"},
		{"between", 10, 20, 20, true, "high bound in"},
		{"between", 10, 20, 21, false, ""},
		{"between", 10, 10, 10, true, "an empty range holds its bound"},
		{"not_between", 10, 20, 9, true, ""},
		{"not_between", 10, 20, 21, true, ""},
		{"not_between", 10, 20, 10, false, "a bound is inside"},
		{"sideways", 10, 0, 100, false, "an unknown type never breaches"},
	}
	for _, c := range cases {
		a := Alert{ThresholdType: c.typ, Threshold: f(c.lo)}
		if IsRange(c.typ) {
			a.ThresholdMax = f(c.hi)
		}
		assert.Equal(t, c.breach, a.Breaches(c.v), "%s %v..%v at %v %s", c.typ, c.lo, c.hi, c.v, c.comment)
	}
}

// TestJudge: the verdict on the last window, with consecutive windows
// and groups.
func TestJudge(t *testing.T) {
	iv := time.Minute
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	at := func(back int) int64 { return start.Add(-time.Duration(back) * iv).UnixMilli() }
	pt := func(back int, group string, v *float64) charts.Point {
		var g []string
		if group != "" {
			g = []string{group}
		}
		return charts.Point{Bucket: at(back), Group: g, Values: []*float64{v}}
	}
	three := 3
	cases := []struct {
		name    string
		alert   Alert
		points  []charts.Point
		value   *float64
		group   []string
		hasData bool
		breach  bool
	}{
		{
			"one window over",
			Alert{ThresholdType: "above", Threshold: f(5)},
			[]charts.Point{pt(0, "", f(7))},
			f(7), nil, true, true,
		},
		{
			"one window under",
			Alert{ThresholdType: "above", Threshold: f(5)},
			[]charts.Point{pt(0, "", f(3))},
			f(3), nil, true, false,
		},
		{
			"no data",
			Alert{ThresholdType: "above", Threshold: f(5)},
			[]charts.Point{pt(0, "", nil)},
			nil, nil, false, false,
		},
		{
			"an older bucket is not this window's",
			Alert{ThresholdType: "above", Threshold: f(5)},
			[]charts.Point{pt(1, "", f(9)), pt(0, "", f(1))},
			f(1), nil, true, false,
		},
		{
			"three in a row breach",
			Alert{ThresholdType: "above", Threshold: f(5), NumConsecutiveWindows: &three},
			[]charts.Point{pt(2, "", f(6)), pt(1, "", f(7)), pt(0, "", f(8))},
			f(8), nil, true, true,
		},
		{
			"one of three does not",
			Alert{ThresholdType: "above", Threshold: f(5), NumConsecutiveWindows: &three},
			[]charts.Point{pt(2, "", f(6)), pt(1, "", f(1)), pt(0, "", f(8))},
			f(8), nil, true, false,
		},
		{
			"a window with no data breaks the run",
			Alert{ThresholdType: "above", Threshold: f(5), NumConsecutiveWindows: &three},
			[]charts.Point{pt(2, "", nil), pt(1, "", f(7)), pt(0, "", f(8))},
			f(8), nil, true, false,
		},
		{
			"windows before the run are not counted",
			Alert{ThresholdType: "above", Threshold: f(5), NumConsecutiveWindows: &three},
			[]charts.Point{pt(3, "", f(9)), pt(2, "", f(1)), pt(1, "", f(7)), pt(0, "", f(8))},
			f(8), nil, true, false,
		},
		{
			"per group: the group that breached every window",
			Alert{ThresholdType: "above", Threshold: f(5), NumConsecutiveWindows: &three},
			[]charts.Point{
				pt(2, "a", f(9)), pt(1, "a", f(1)), pt(0, "a", f(20)),
				pt(2, "b", f(6)), pt(1, "b", f(6)), pt(0, "b", f(6)),
			},
			f(6),
			[]string{"b"},
			true, true,
		},
		{
			"between picks a breaching group",
			Alert{ThresholdType: "between", Threshold: f(10), ThresholdMax: f(20)},
			[]charts.Point{pt(0, "a", f(5)), pt(0, "b", f(15))},
			f(15),
			[]string{"b"},
			true, true,
		},
		{
			"not_between: outside",
			Alert{ThresholdType: "not_between", Threshold: f(10), ThresholdMax: f(20)},
			[]charts.Point{pt(0, "", f(25))},
			f(25), nil, true, true,
		},
		{
			"below reports the lowest",
			Alert{ThresholdType: "below", Threshold: f(10)},
			[]charts.Point{pt(0, "a", f(5)), pt(0, "b", f(2)), pt(0, "c", f(30))},
			f(2),
			[]string{"b"},
			true, true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, g, has, b := c.alert.judge(c.points, start, iv)
			assert.Equal(t, c.value, v)
			assert.Equal(t, c.group, g)
			assert.Equal(t, c.hasData, has)
			assert.Equal(t, c.breach, b)
		})
	}
}

// TestWindowEnd: windows from the epoch, shifted by an offset, or from a
// start time (none before it).
func TestWindowEnd(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 7, 30, 0, time.UTC)
	two := 2
	startAt := time.Date(2026, 1, 1, 10, 3, 0, 0, time.UTC)
	later := time.Date(2026, 1, 1, 10, 5, 0, 0, time.UTC)
	cases := []struct {
		name string
		a    Alert
		iv   time.Duration
		end  time.Time
		due  bool
	}{
		{"aligned", Alert{}, 5 * time.Minute, time.Date(2026, 1, 1, 10, 5, 0, 0, time.UTC), true},
		{"offset", Alert{ScheduleOffsetMinutes: &two}, 5 * time.Minute, time.Date(2026, 1, 1, 10, 7, 0, 0, time.UTC), true},
		{"from a start, no window done yet", Alert{ScheduleStartAt: &startAt}, 5 * time.Minute, time.Time{}, false},
		{"from a start, a window done", Alert{ScheduleStartAt: &startAt}, 2 * time.Minute, time.Date(2026, 1, 1, 10, 7, 0, 0, time.UTC), true},
		{"before the start", Alert{ScheduleStartAt: &later}, 5 * time.Minute, time.Time{}, false},
	}
	for _, c := range cases {
		end, due := c.a.windowEnd(now, c.iv)
		assert.Equal(t, c.due, due, c.name)
		if c.due {
			assert.Equal(t, c.end, end, c.name)
		}
	}
}
