package dashboards

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sources(ids ...string) func(string) (bool, error) {
	return func(id string) (bool, error) {
		for _, s := range ids {
			if s == id {
				return true, nil
			}
		}
		return false, nil
	}
}

func seq() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("gen%d", n) }
}

func TestValidate(t *testing.T) {
	chart := `"config":{"displayType":"line","sourceId":"logs","select":[{"aggFn":"count"}]}`
	for _, tc := range []struct {
		name, body string
		want       []string // problems; none: valid
	}{
		{name: "valid", body: `{"name":"d","tiles":[{"name":"t","x":23,"y":0,"w":1,"h":1,` + chart + `}]}`},
		{name: "no name", body: `{"name":" ","tiles":[]}`, want: []string{"name is required"}},
		{
			name: "grid", body: `{"name":"d","tiles":[{"x":24,"y":-1,"w":25,"h":0,` + chart + `}]}`,
			want: []string{"tiles.0.x must be 0 to 23, got 24", "tiles.0.y must not be negative", "tiles.0.w must be 1 to 24, got 25", "tiles.0.h must be at least 1"},
		},
		{name: "w zero", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":0,"h":1,` + chart + `}]}`, want: []string{"tiles.0.w must be 1 to 24, got 0"}},
		{
			name: "duplicate id", body: `{"name":"d","tiles":[{"id":"a","x":0,"y":0,"w":1,"h":1,` + chart + `},{"id":"a","x":0,"y":0,"w":1,"h":1,` + chart + `}]}`,
			want: []string{`tiles.1.id "a" is used twice`},
		},
		{
			name: "missing source", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"table","sourceId":"nope","select":[{"aggFn":"sum","valueExpression":"Duration"}]}}]}`,
			want: []string{`Could not find the following source IDs: nope`},
		},
		{
			name: "select rules", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"number","sourceId":"logs","select":[
			{"aggFn":"count","valueExpression":"x"},{"aggFn":"avg"},{"aggFn":"quantile","valueExpression":"d"},{"aggFn":"median","valueExpression":"d","whereLanguage":"kql"},{"aggFn":"sum","valueExpression":"d","level":0.5}]}}]}`,
			want: []string{
				"select: Number tiles support a single select item without formulas, got 5", "select.0: valueExpression cannot be used with aggFn count",
				"select.1.valueExpression is required with aggFn avg", "select.2.level must be between 0 and 1 with aggFn quantile",
				"select.3.aggFn must be one of", "select.3.whereLanguage must be one of lucene, sql", "select.4.level can only be used with aggFn quantile",
			},
		},
		{name: "datadog metric query", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs","select":[
			{"query":"avg:system.load.1{*} by {host}"}]}}]}`},
		{
			name: "datadog metric query mistakes", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs","select":[
			{"query":"median:system.load.1{*}"},{"query":"avg:system.load.1{*}","aggFn":"avg"}]}}]}`,
			want: []string{"select.0.query: ", "space aggregator", "select.1: query replaces aggFn"},
		},
		{name: "gauge delta", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs","select":[
			{"aggFn":"sum","valueExpression":"Value","metricName":"disk.used","metricType":"gauge","periodAggFn":"delta"}]}}]}`},
		{
			name: "periodAggFn mistakes", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs","select":[
			{"aggFn":"sum","valueExpression":"Value","metricName":"disk.used","metricType":"gauge","periodAggFn":"rate"},{"query":"avg:system.load.1{*}","periodAggFn":"delta"}]}}]}`,
			want: []string{"select.0.periodAggFn must be one of delta", "select.1: query replaces aggFn, valueExpression, level, where and periodAggFn"},
		},
		{
			name: "no select", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs"}}]}`,
			want: []string{"select takes 1 to 20 items, got 0"},
		},
		{
			name: "display type", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"scatter","sourceId":"logs"}}]}`,
			want: []string{"displayType must be one of line, stacked_bar, table, number, pie, bar, search, markdown, heatmap, event_patterns"},
		},
		{name: "heatmap", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"heatmap","sourceId":"logs","select":[{"valueExpression":"Duration","heatmapScaleType":"linear"}]}}]}`},
		{
			name: "heatmap mistakes", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"heatmap","sourceId":"logs","select":[{"valueExpression":""}]}},
			{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"heatmap","sourceId":"logs","select":[{"valueExpression":"a"},{"valueExpression":"b","heatmapScaleType":"sqrt"}]}},
			{"x":0,"y":0,"w":1,"h":1,"config":{"configType":"sql","displayType":"heatmap","connectionId":"c","sqlTemplate":"SELECT 1"}}]}`,
			want: []string{
				"tiles.0.config.select[0].valueExpression is required", "tiles.1.config.select of a heatmap tile takes one item, got 2",
				"heatmapScaleType must be one of log, linear", "tiles.2.config.displayType must be one of line",
			},
		},
		{name: "formulas", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"number","sourceId":"logs","formulas":[{"expression":"A / (A + B) * 100","alias":"%"}],"select":[{"aggFn":"count","where":"level:error"},{"aggFn":"count"}]}},
			{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"table","sourceId":"logs","having":"count() > 10","select":[{"aggFn":"count"}],"groupBy":"service"}}]}`},
		{
			name: "formula mistakes", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"number","sourceId":"logs","asRatio":true,"formulas":[{"expression":"A / C"},{"expression":"A +"}],"select":[{"aggFn":"count"},{"aggFn":"count"}]}},
			{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"pie","sourceId":"logs","formulas":[{"expression":"A"}],"having":"count() > 1","select":[{"aggFn":"count"}]}}]}`,
			want: []string{
				"tiles.0.config.formulas: Number charts support a single formula", `tiles.0.config.formulas.0.expression: Unknown series "C"`,
				"tiles.0.config.formulas.1.expression: Unexpected end of expression", "tiles.1.config.formulas are for line, stacked_bar, table and number",
				"tiles.1.config.having is for table tiles",
			},
		},
		{name: "event patterns", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"event_patterns","sourceId":"logs"}}]}`},
		{name: "ratio", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs","asRatio":true,"select":[{"aggFn":"count","where":"level:error"},{"aggFn":"count"}]}}]}`},
		{
			name: "ratio mistakes", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs","asRatio":true,"select":[{"aggFn":"count"}]}},
			{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"pie","sourceId":"logs","asRatio":true,"select":[{"aggFn":"count"}]}}]}`,
			want: []string{"tiles.0.config: asRatio can only be used with exactly two select items", "tiles.1.config.asRatio is for line, stacked_bar and table"},
		},
		{
			name: "raw sql", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"configType":"sql","displayType":"search"}}]}`,
			want: []string{"displayType must be one of line", "connectionId is required", "sqlTemplate is required"},
		},
		{name: "granularity", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs","granularity":"5m","select":[{"aggFn":"count"}]}}]}`},
		{name: "granularity auto", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs","granularity":"auto","select":[{"aggFn":"count"}]}}]}`},
		{
			name: "granularity mistakes", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs","granularity":"7s","select":[{"aggFn":"count"}]}},
			{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs","granularity":60,"select":[{"aggFn":"count"}]}}]}`,
			want: []string{`tiles.0.config.granularity must be auto or one of 30s 1m`, `got "7s"`, "tiles.1.config.granularity must be a string"},
		},
		{
			name: "search needs a source", body: `{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"search","select":"Body"}}]}`,
			want: []string{"tiles.0.config.sourceId is required"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decode([]byte(tc.body))
			require.NoError(t, err)
			err = d.Validate(seq(), sources("logs"))
			if len(tc.want) == 0 {
				require.NoError(t, err)
				return
			}
			var bad Invalid
			var missing MissingSources
			if !errors.As(err, &missing) {
				require.ErrorAs(t, err, &bad)
			}
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestValidateFillsDefaults(t *testing.T) {
	d, err := Decode([]byte(`{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","sourceId":"logs","select":[{"aggFn":"count"}]}}]}`))
	require.NoError(t, err)
	require.NoError(t, d.Validate(seq(), sources("logs")))
	assert.Equal(t, "gen1", d.Tiles[0].ID)
	assert.Equal(t, "lucene", d.Tiles[0].Config.Select[0].WhereLanguage)
	assert.Equal(t, []string{}, d.Tags)
}

func TestValidatePassesLookupErrors(t *testing.T) {
	d, err := Decode([]byte(`{"name":"d","tiles":[{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"search","sourceId":"logs"}}]}`))
	require.NoError(t, err)
	boom := errors.New("engine down")
	assert.ErrorIs(t, d.Validate(seq(), func(string) (bool, error) { return false, boom }), boom)
}

func TestFieldsTakeAStringOrAList(t *testing.T) {
	var f Fields
	require.NoError(t, json.Unmarshal([]byte(`"a, f(b, c)"`), &f))
	assert.Equal(t, Fields{"a", "f(b, c)"}, f)
	require.NoError(t, json.Unmarshal([]byte(`["x","y"]`), &f))
	assert.Equal(t, Fields{"x", "y"}, f)
	assert.Error(t, json.Unmarshal([]byte(`3`), &f))
}

// TestColorsAreTokens: a tile's colours are palette tokens.
func TestColorsAreTokens(t *testing.T) {
	tile := func(extra string) string {
		return `{"name":"d","tiles":[{"name":"n","x":0,"y":0,"w":6,"h":3,"config":{"displayType":"number","sourceId":"logs","select":[{"aggFn":"count"}]` + extra + `}}]}`
	}
	exists := func(string) (bool, error) { return true, nil }
	for _, c := range []struct {
		extra string
		bad   string
	}{
		{`,"color":"chart-green"`, ""},
		{`,"color":"chart-3"`, "config.color must be a palette token"}, // a legacy token: read, not taken
		{`,"colorRules":[{"operator":"between","value":[1,2,3],"color":"chart-blue"}]`, "colorRules.0.value of between is two numbers"},
		{`,"colorRules":[{"operator":"eq","value":"OK","color":"chart-blue","label":"fine"}]`, ""},
		{`,"backgroundChart":{"type":"bar"}`, "backgroundChart.type must be one of line, area"},
		{`,"color":"#ff0000"`, "config.color must be a palette token"},
		{`,"colorRules":[{"operator":"gt","value":1,"color":"chart-warning"},{"operator":"lt","value":0,"color":"red"}]`, "colorRules.1.color must be a palette token"},
		{`,"backgroundChart":{"type":"area","color":"chart-blue"}`, ""},
		{`,"backgroundChart":{"type":"area","color":"blue"}`, "backgroundChart.color must be a palette token"},
	} {
		d, err := Decode([]byte(tile(c.extra)))
		require.NoError(t, err, c.extra)
		err = d.Validate(func() string { return "x" }, exists)
		if c.bad == "" {
			assert.NoError(t, err, c.extra)
		} else {
			require.Error(t, err, c.extra)
			assert.Contains(t, err.Error(), c.bad)
		}
	}
}
