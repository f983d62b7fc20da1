package dashboards

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWatched: what an alert on a tile measures, as the tile draws it.
func TestWatched(t *testing.T) {
	a := Select{AggFn: "count", Where: "level:error"}
	b := Select{AggFn: "count"}
	metric := Select{AggFn: "avg", ValueExpression: "Value", MetricName: "cpu", MetricType: "gauge"}
	ratio := map[string]json.RawMessage{"asRatio": json.RawMessage("true")}
	for _, tc := range []struct {
		name  string
		c     Config
		want  []Select
		group []string
		ok    bool
	}{
		{"first item of a line", Config{DisplayType: Line, Select: []Select{a, b}, GroupBy: "svc, host"}, []Select{a}, []string{"svc", "host"}, true},
		{"a ratio's two items", Config{DisplayType: Line, Select: []Select{a, b}, Display: ratio}, []Select{a, b}, nil, true},
		{"a metric item", Config{DisplayType: Number, Select: []Select{metric}}, []Select{metric}, nil, true},
		{"a ratio of metrics", Config{DisplayType: StackedBar, Select: []Select{metric, metric}, Display: ratio}, []Select{metric, metric}, nil, true},
		{"a ratio of three is nothing drawn", Config{DisplayType: Line, Select: []Select{a, b, a}, Display: ratio}, nil, nil, false},
		{"no item", Config{DisplayType: Line}, nil, nil, false},
		{"raw SQL", Config{ConfigType: "sql", DisplayType: Line, SQLTemplate: "SELECT 1"}, nil, nil, false},
		{"markdown", Config{DisplayType: Markdown}, nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, group, ok := tc.c.Watched()
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.group, group)
		})
	}
}
