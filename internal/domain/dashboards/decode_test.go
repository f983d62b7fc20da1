package dashboards

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeTileForms(t *testing.T) {
	for _, tc := range []struct {
		name, tile string
		want       Config
	}{
		{
			name: "HyperDX config, line",
			tile: `{"name":"Errors","x":0,"y":0,"w":12,"h":4,"config":{"displayType":"line","sourceId":"logs",
			  "select":[{"aggFn":"count","where":"level:error","whereLanguage":"lucene","alias":"errors"},
			            {"aggFn":"quantile","level":0.95,"valueExpression":"Duration","where":""}],
			  "groupBy":"ServiceName","fillNulls":false,"numberFormat":{"output":"number"}}}`,
			want: Config{
				DisplayType: Line, SourceID: "logs", GroupBy: "ServiceName",
				Select: []Select{
					{AggFn: "count", Where: "level:error", WhereLanguage: "lucene", Alias: "errors"},
					{AggFn: "quantile", Level: 0.95, ValueExpression: "Duration"},
				},
				Display: map[string]json.RawMessage{"asRatio": json.RawMessage("false"), "fillNulls": json.RawMessage(`false`), "numberFormat": json.RawMessage(`{"output":"number"}`)},
			},
		},
		{
			name: "HyperDX config, search",
			tile: `{"name":"s","x":0,"y":0,"w":6,"h":3,"config":{"displayType":"search","sourceId":"logs","select":"Timestamp, Body","where":"service:api"}}`,
			want: Config{DisplayType: Search, SourceID: "logs", SearchSelect: "Timestamp, Body", Where: "service:api"},
		},
		{
			name: "HyperDX config, markdown",
			tile: `{"name":"m","x":0,"y":0,"w":6,"h":3,"config":{"displayType":"markdown","markdown":"# On call"}}`,
			want: Config{DisplayType: Markdown, Markdown: "# On call"},
		},
		{
			name: "HyperDX config, raw SQL",
			tile: `{"name":"q","x":0,"y":0,"w":6,"h":3,"config":{"configType":"sql","displayType":"table","connectionId":"c1","sqlTemplate":"SELECT 1"}}`,
			want: Config{ConfigType: "sql", DisplayType: Table, ConnectionID: "c1", SQLTemplate: "SELECT 1"},
		},
		{
			name: "HyperDX series, time",
			tile: `{"name":"t","x":0,"y":0,"w":6,"h":3,"series":[
			  {"type":"time","sourceId":"logs","aggFn":"count","where":"level:error","whereLanguage":"lucene","groupBy":["ServiceName","host"],"displayType":"stacked_bar"},
			  {"type":"time","sourceId":"logs","aggFn":"avg","field":"Duration","where":"","whereLanguage":"lucene","groupBy":[]}]}`,
			want: Config{
				DisplayType: StackedBar, SourceID: "logs", GroupBy: "ServiceName,host",
				Display: map[string]json.RawMessage{"asRatio": json.RawMessage("false"), "fillNulls": json.RawMessage("true")},
				Select:  []Select{{AggFn: "count", Where: "level:error", WhereLanguage: "lucene"}, {AggFn: "avg", ValueExpression: "Duration", WhereLanguage: "lucene"}},
			},
		},
		{
			name: "HyperDX series, number",
			tile: `{"name":"n","x":0,"y":0,"w":6,"h":3,"series":[{"type":"number","sourceId":"logs","aggFn":"count","where":"","whereLanguage":"lucene"}]}`,
			want: Config{DisplayType: Number, SourceID: "logs", Select: []Select{{AggFn: "count", WhereLanguage: "lucene"}}},
		},
		{
			name: "HyperDX series, search",
			tile: `{"name":"s","x":0,"y":0,"w":6,"h":3,"series":[{"type":"search","sourceId":"logs","fields":["Body","ServiceName"],"where":"x","whereLanguage":"lucene"}]}`,
			want: Config{DisplayType: Search, SourceID: "logs", SearchSelect: "Body, ServiceName", Where: "x", WhereLanguage: "lucene"},
		},
		{
			name: "HyperDX series, markdown",
			tile: `{"name":"m","x":0,"y":0,"w":6,"h":3,"series":[{"type":"markdown","content":"hello"}]}`,
			want: Config{DisplayType: Markdown, Markdown: "hello"},
		},
		{
			name: "HyperDX series, ratio",
			tile: `{"name":"r","x":0,"y":0,"w":6,"h":3,"asRatio":true,"series":[
			  {"type":"time","sourceId":"logs","aggFn":"count","where":"level:error","whereLanguage":"lucene","groupBy":[]},
			  {"type":"time","sourceId":"logs","aggFn":"count","where":"","whereLanguage":"lucene","groupBy":[]}]}`,
			want: Config{
				DisplayType: Line, SourceID: "logs",
				Display: map[string]json.RawMessage{"asRatio": json.RawMessage("true"), "fillNulls": json.RawMessage("true")},
				Select:  []Select{{AggFn: "count", Where: "level:error", WhereLanguage: "lucene"}, {AggFn: "count", WhereLanguage: "lucene"}},
			},
		},
		{
			name: "HyperDX config, heatmap",
			tile: `{"name":"h","x":0,"y":0,"w":6,"h":3,"config":{"displayType":"heatmap","sourceId":"traces","select":[{"valueExpression":"Duration","countExpression":"count()","heatmapScaleType":"log"}],"numberFormat":{"output":"time"}}}`,
			want: Config{
				DisplayType: Heatmap, SourceID: "traces",
				HeatmapSelect: []HeatmapItem{{ValueExpression: "Duration", CountExpression: "count()", HeatmapScaleType: "log"}},
				Display:       map[string]json.RawMessage{"numberFormat": json.RawMessage(`{"output":"time"}`)},
			},
		},
		{
			name: "HyperDX config, event patterns",
			tile: `{"name":"p","x":0,"y":0,"w":6,"h":3,"config":{"displayType":"event_patterns","sourceId":"logs","select":"Body","where":"level:error"}}`,
			want: Config{DisplayType: EventPatterns, SourceID: "logs", SearchSelect: "Body", Where: "level:error"},
		},
		{
			name: "this API's first form",
			tile: `{"id":"t1","name":"errors","x":0,"y":0,"w":6,"h":3,"config":{"source":"logs","aggFn":"count","field":"ignored","where":"level:error","groupBy":["a","b"]}}`,
			want: Config{DisplayType: Line, SourceID: "logs", GroupBy: "a, b", Select: []Select{{AggFn: "count", Where: "level:error"}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decode([]byte(`{"name":"d","tiles":[` + tc.tile + `]}`))
			require.NoError(t, err)
			require.Len(t, d.Tiles, 1)
			assert.Equal(t, tc.want, d.Tiles[0].Config)
		})
	}
}

func TestDecodeRefuses(t *testing.T) {
	tile := func(s string) string { return `{"name":"d","tiles":[` + s + `]}` }
	for name, tc := range map[string]struct{ body, want string }{
		"both":            {tile(`{"x":0,"y":0,"w":1,"h":1,"series":[{"type":"markdown"}],"config":{"displayType":"markdown"}}`), "both series and config"},
		"neither":         {tile(`{"x":0,"y":0,"w":1,"h":1}`), "either series or config"},
		"mixed series":    {tile(`{"x":0,"y":0,"w":1,"h":1,"series":[{"type":"time","sourceId":"a"},{"type":"table","sourceId":"a"}]}`), "same type"},
		"two sources":     {tile(`{"x":0,"y":0,"w":1,"h":1,"series":[{"type":"time","sourceId":"a"},{"type":"time","sourceId":"b"}]}`), "share one source"},
		"empty series":    {tile(`{"x":0,"y":0,"w":1,"h":1,"series":[]}`), "at least one"},
		"unknown series":  {tile(`{"x":0,"y":0,"w":1,"h":1,"series":[{"type":"heatmap"}]}`), "series type must be one of"},
		"formulas":        {tile(`{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","formulas":[{"expr":"A/B"}]}}`), "config.formulas: json: unknown field"},
		"ratio in config": {tile(`{"x":0,"y":0,"w":1,"h":1,"asRatio":true,"config":{"displayType":"line"}}`), "specify config.asRatio instead"},
		"heatmap groupBy": {tile(`{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"heatmap","groupBy":"ServiceName"}}`), "config.groupBy is not a field of a heatmap tile"},
		"heatmap aggFn":   {tile(`{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"heatmap","select":[{"valueExpression":"Duration","aggFn":"count"}]}}`), "select of a heatmap tile"},
		"unknown field":   {tile(`{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"line","colour":"red"}}`), "unknown field config.colour"},
		"search select":   {tile(`{"x":0,"y":0,"w":1,"h":1,"config":{"displayType":"search","select":["Body"]}}`), "a string"},
		"filter fields":   {`{"name":"d","tiles":[],"filters":[{"type":"QUERY_EXPRESSION","owner":"x"}]}`, "unknown field"},
		"ratio series":    {tile(`{"x":0,"y":0,"w":1,"h":1,"seriesReturnType":"ratio","series":[{"type":"time"}]}`), "seriesReturnType"},
		"unknown top":     {`{"name":"d","tiles":[],"owner":"x"}`, "unknown field"},
		"fractional grid": {tile(`{"x":0.5,"y":0,"w":1,"h":1,"config":{"displayType":"markdown"}}`), "tiles.0"},
	} {
		_, err := Decode([]byte(tc.body))
		var bad Invalid
		require.ErrorAs(t, err, &bad, name)
		assert.Contains(t, err.Error(), tc.want, name)
	}
}

// A dashboard reads back in HyperDX's response shape, and what it
// answers decodes to the same dashboard (GET then PUT changes nothing).
func TestRoundTrip(t *testing.T) {
	body := `{"name":"d","tags":["prod"],"tiles":[
	  {"id":"a","name":"c","x":0,"y":0,"w":12,"h":4,"config":{"displayType":"line","sourceId":"logs","select":[{"aggFn":"count","where":"","whereLanguage":"lucene"}],"groupBy":"ServiceName","seriesLimit":5,"granularity":"5m"}},
	  {"id":"b","name":"s","x":12,"y":0,"w":12,"h":4,"config":{"displayType":"search","sourceId":"logs","select":"Body","where":"","whereLanguage":"lucene"}},
	  {"id":"c","name":"m","x":0,"y":4,"w":24,"h":2,"config":{"displayType":"markdown","markdown":"hi"}},
	  {"id":"d","name":"h","x":0,"y":6,"w":12,"h":4,"config":{"displayType":"heatmap","sourceId":"traces","select":[{"valueExpression":"Duration"}],"where":"","whereLanguage":"lucene"}},
	  {"id":"e","name":"p","x":12,"y":6,"w":12,"h":4,"config":{"displayType":"event_patterns","sourceId":"logs","select":"","where":"","whereLanguage":"lucene"}},
	  {"id":"f","name":"r","x":0,"y":10,"w":12,"h":4,"config":{"displayType":"line","asRatio":true,"sourceId":"logs","select":[{"aggFn":"count","where":"a","whereLanguage":"lucene"},{"aggFn":"count","where":"","whereLanguage":"lucene"}]}}]}`
	d, err := Decode([]byte(body))
	require.NoError(t, err)
	out, err := json.Marshal(d)
	require.NoError(t, err)
	var answer map[string]any
	require.NoError(t, json.Unmarshal(out, &answer))
	tile := answer["tiles"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{
		"displayType": "line", "sourceId": "logs", "groupBy": "ServiceName", "seriesLimit": 5.0, "granularity": "5m",
		"asRatio": false, "fillNulls": true, // HyperDX answers them always
		"select": []any{map[string]any{"aggFn": "count", "valueExpression": "", "where": "", "whereLanguage": "lucene"}},
	}, tile["config"])
	heat := answer["tiles"].([]any)[3].(map[string]any)
	assert.Equal(t, map[string]any{
		"displayType": "heatmap", "sourceId": "traces", "select": []any{map[string]any{"valueExpression": "Duration"}}, "where": "", "whereLanguage": "lucene",
	}, heat["config"])
	again, err := Decode(out)
	require.NoError(t, err)
	// What the body carried differs (an answer has every field); what
	// it says does not.
	again.Given = d.Given
	assert.Equal(t, d, again)
}

// TestSeriesShareOneGroupBy: a tile's older series are one chart, so they
// are grouped alike or refused.
func TestSeriesShareOneGroupBy(t *testing.T) {
	body := `{"name":"d","tiles":[{"name":"c","x":0,"y":0,"w":6,"h":3,"series":[
	  {"type":"time","sourceId":"logs","aggFn":"count","groupBy":["ServiceName"]},
	  {"type":"time","sourceId":"logs","aggFn":"count","groupBy":["SeverityText"]}]}]}`
	_, err := Decode([]byte(body))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a tile's series share one groupBy")
	same := strings.ReplaceAll(body, `"SeverityText"`, `"ServiceName"`)
	_, err = Decode([]byte(same))
	require.NoError(t, err)
}
