package datadog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestImportDashboardWidgets(t *testing.T) {
	for _, tc := range []struct {
		name    string
		widget  string
		outcome string
		config  string // the tile's config as JSON; "" when skipped
		note    string
	}{
		{"note", `{"type":"note","content":"**hi**"}`, Imported, `{"displayType":"markdown","markdown":"**hi**"}`, ""},
		{"image", `{"type":"image","url":"https://x/y.png"}`, Approximated, `{"displayType":"markdown","markdown":"![](https://x/y.png)"}`, "markdown image"},
		{
			"timeseries q", `{"type":"timeseries","requests":[{"q":"avg:system.load.1{$env} by {host}","display_type":"line"}]}`, Approximated,
			`{"displayType":"line","sourceId":"metrics","select":[{"query":"avg:system.load.1{env:prod} by {host}"}]}`, "template variables",
		},
		{
			"bars", `{"type":"timeseries","requests":[{"q":"sum:a.b{*}","display_type":"bars"}]}`, Imported,
			`{"displayType":"stacked_bar","sourceId":"metrics","select":[{"query":"sum:a.b{*}"}]}`, "",
		},
		{
			"formula", `{"type":"query_value","requests":[{"queries":[{"name":"a","data_source":"metrics","query":"sum:x{*}"},{"name":"b","data_source":"metrics","query":"sum:y{*}"}],"formulas":[{"formula":"a / b * 100","alias":"ratio"}]}]}`,
			Imported, `{"displayType":"number","sourceId":"metrics","select":[{"query":"sum:x{*} / sum:y{*} * 100","alias":"ratio"}]}`, "",
		},
		{
			"per_minute", `{"type":"timeseries","requests":[{"queries":[{"name":"q","data_source":"metrics","query":"sum:x{*}"}],"formulas":[{"formula":"per_minute(q)"}]}]}`,
			Approximated, `{"displayType":"line","sourceId":"metrics","select":[{"query":"sum:x{*}.as_rate() * 60"}]}`, "per_minute",
		},
		{
			"diff", `{"type":"timeseries","requests":[{"queries":[{"name":"q","data_source":"metrics","query":"sum:x{*}"}],"formulas":[{"formula":"diff(q)"}]}]}`,
			Approximated, `{"displayType":"line","sourceId":"metrics","select":[{"query":"diff(sum:x{*})"}]}`, "diff(…) compares each point of the aggregated series",
		},
		{
			"rate in q", `{"type":"timeseries","requests":[{"q":"rate(avg:x{*}),rate(avg:y{*})"}]}`, Approximated,
			`{"displayType":"line","sourceId":"metrics","select":[{"query":"rate(avg:x{*})"},{"query":"rate(avg:y{*})"}]}`, "rate(…) compares",
		},
		{
			"cumsum and abs", `{"type":"query_value","requests":[{"q":"cumsum(abs(avg:x{*}))"}]}`, Imported,
			`{"displayType":"number","sourceId":"metrics","select":[{"query":"cumsum(abs(avg:x{*}))"}]}`, "",
		},
		{"ewma", `{"type":"timeseries","requests":[{"q":"ewma_3(avg:x{*})"}]}`, Skipped, "", "ewma_3() has no counterpart"},
		{
			"logs count", `{"type":"toplist","requests":[{"queries":[{"name":"q","data_source":"logs","search":{"query":"status:error"},"compute":{"aggregation":"count"},"group_by":[{"facet":"service"}]}],"formulas":[{"formula":"q"}]}]}`,
			Imported, `{"displayType":"bar","sourceId":"logs","groupBy":"service","select":[{"aggFn":"count","where":"status:error","whereLanguage":"datadog"}]}`, "",
		},
		{
			"default_zero of logs", `{"type":"query_value","requests":[{"queries":[{"name":"q","data_source":"logs","search":{"query":"status:error"},"compute":{"aggregation":"count"}}],"formulas":[{"formula":"default_zero(q)"}]}]}`,
			Approximated, `{"displayType":"number","sourceId":"logs","select":[{"aggFn":"count","where":"status:error","whereLanguage":"datadog"}]}`, "default_zero(q) is the query as it is",
		},
		{
			"security signals", `{"type":"query_value","requests":[{"queries":[{"name":"q","data_source":"security_signals","search":{"query":"status:high"},"compute":{"aggregation":"count"}}],"formulas":[{"formula":"default_zero(q)"}]}]}`,
			Skipped, "", "security_signals queries have no counterpart",
		},
		{
			"spans avg", `{"type":"query_table","requests":[{"queries":[{"name":"q","data_source":"spans","search":{"query":"service:web"},"compute":{"aggregation":"avg","metric":"@duration"}}],"formulas":[{"formula":"q"}]}]}`,
			Imported, `{"displayType":"table","sourceId":"traces","select":[{"aggFn":"avg","valueExpression":"duration","where":"service:web","whereLanguage":"datadog"}]}`, "",
		},
		{
			"log stream", `{"type":"log_stream","query":"source:redis $env"}`, Approximated,
			`{"displayType":"search","sourceId":"logs","select":"","where":"source:redis env:prod","whereLanguage":"datadog"}`, "template",
		},
		{
			"list stream", `{"type":"list_stream","requests":[{"query":{"data_source":"logs_stream","query_string":"service:web"}}]}`, Imported,
			`{"displayType":"search","sourceId":"logs","select":"","where":"service:web","whereLanguage":"datadog"}`, "",
		},
		{
			"hostmap", `{"type":"hostmap","requests":{"fill":{"q":"avg:system.cpu.user{*} by {host}"}}}`, Approximated,
			`{"displayType":"table","sourceId":"metrics","select":[{"query":"avg:system.cpu.user{*} by {host}"}]}`, "host map",
		},
		{
			"change", `{"type":"change","requests":[{"q":"sum:x{*}","compare_to":"hour_before","change_type":"absolute","increase_good":true}]}`, Approximated,
			`{"displayType":"table","sourceId":"metrics","select":[{"query":"sum:x{*}","alias":"now"},{"query":"(sum:x{*}) - hour_before(sum:x{*})","alias":"change from the hour before"}]}`,
			"a change widget is a table of the value now and its change",
		},
		{
			"change relative", `{"type":"change","requests":[{"queries":[{"name":"a","data_source":"metrics","query":"sum:x{$env} by {host}"}],"formulas":[{"formula":"a","alias":"hits"}],"compare_to":"week_before","change_type":"relative"}]}`,
			Approximated,
			`{"displayType":"table","sourceId":"metrics","select":[{"query":"sum:x{env:prod} by {host}","alias":"hits now"},` +
				`{"query":"((sum:x{env:prod} by {host}) - week_before(sum:x{env:prod} by {host})) / week_before(sum:x{env:prod} by {host}) * 100","alias":"hits: % change from the week before"}]}`,
			"template variables",
		},
		{
			"change of logs", `{"type":"change","requests":[{"queries":[{"name":"q","data_source":"logs","search":{"query":"status:error"},"compute":{"aggregation":"count"}}],"formulas":[{"formula":"q"}],"compare_to":"day_before"}]}`,
			Approximated, `{"displayType":"table","sourceId":"logs","select":[{"aggFn":"count","where":"status:error","whereLanguage":"datadog"}]}`, "its value now only",
		},
		{
			"change, unknown period", `{"type":"change","requests":[{"q":"avg:x{*}","compare_to":"year_before"}]}`, Approximated,
			`{"displayType":"table","sourceId":"metrics","select":[{"query":"avg:x{*}","alias":"now"},{"query":"(avg:x{*}) - day_before(avg:x{*})","alias":"change from the day before"}]}`,
			"not a period known here",
		},
		{
			"heatmap", `{"type":"heatmap","requests":[{"q":"sum:zk.connections{*} by {host}"}]}`, Approximated,
			`{"displayType":"line","sourceId":"metrics","select":[{"query":"sum:zk.connections{*} by {host}"}]}`, "drawn as lines",
		},
		{
			"distribution", `{"type":"distribution","requests":[{"q":"avg:x{*} by {host}"}]}`, Approximated,
			`{"displayType":"bar","sourceId":"metrics","select":[{"query":"avg:x{*} by {host}"}]}`, "a bar of each group's value",
		},
		{
			"series in one q", `{"type":"timeseries","requests":[{"q":"system.cpu.idle{$env}, sum:system.mem.total{*}-sum:system.mem.usable{*}"}]}`, Approximated,
			`{"displayType":"line","sourceId":"metrics","select":[{"query":"system.cpu.idle{env:prod}"},{"query":"sum:system.mem.total{*}-sum:system.mem.usable{*}"}]}`, "template variables",
		},
		{
			"per_second in q", `{"type":"timeseries","requests":[{"q":"per_second(sum:hits{*} by {host}) - avg:req{*}"}]}`, Approximated,
			`{"displayType":"line","sourceId":"metrics","select":[{"query":"sum:hits{*} by {host}.as_rate() - avg:req{*}"}]}`, "per_second(…) is the query's .as_rate()",
		},
		{
			"check_status", `{"type":"check_status","check":"http.can_connect","grouping":"cluster","tags":["*"]}`, Approximated,
			`{"displayType":"number","sourceId":"metrics","select":[{"query":"max:http.can_connect{*}.rollup(max)"}]}`, "0 OK, 1 warning, 2 critical",
		},
		{
			"check_status by group", `{"type":"check_status","check":"apache.can_connect","grouping":"check","group_by":["port"],"tags":["$env","role:web"]}`, Approximated,
			`{"displayType":"table","sourceId":"metrics","select":[{"query":"max:apache.can_connect{env:prod,role:web} by {port}.rollup(max)"}]}`, "as a table",
		},
		{
			// $all is a tag at *: exact, its dashboard filter narrows it.
			"variable in a boolean filter", `{"type":"timeseries","requests":[{"q":"sum:a.b{(status:400 OR s) AND $all} by {status}"}]}`, Imported,
			`{"displayType":"line","sourceId":"metrics","select":[{"query":"sum:a.b{(status:400 OR s)} by {status}"}]}`, "",
		},
		{
			"manage_status", `{"type":"manage_status","query":"redis memory status:(alert OR \"no data\") tag:(service:checkout env:prod) priority:p1","summary_type":"monitors"}`,
			Approximated, `{"displayType":"alerts","where":"redis memory","alertStates":["ALERT","NO_DATA"]}`, "alerts have no tag, priority",
		},
		{"manage_status, all", `{"type":"manage_status","query":"*"}`, Approximated, `{"displayType":"alerts"}`, "a monitor summary is an alert list"},
		{"monitor_summary", `{"type":"monitor_summary","query":"title:\"High memory\" status:warn"}`, Approximated, `{"displayType":"alerts","where":"High memory","alertStates":["ALERT"]}`, "alert list"},
		{"alert_graph", `{"type":"alert_graph","alert_id":"123","viz_type":"timeseries"}`, Skipped, "", "monitors are imported one by one"},
		{"bad query", `{"type":"timeseries","requests":[{"q":"median:x{*}"}]}`, Skipped, "", "space aggregator"},
		{"unknown", `{"type":"blinkenlights"}`, Skipped, "", "unknown widget type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"title":"t","layout_type":"ordered","template_variables":[{"name":"env","prefix":"env","default":"prod"},{"name":"all","prefix":"cluster","default":"*"}],
				"widgets":[{"id":7,"definition":` + tc.widget + `,"layout":{"x":6,"y":1,"width":6,"height":2}}]}`
			d, items, err := ImportDashboard([]byte(body), DefaultSources)
			require.NoError(t, err)
			require.Len(t, items, 2)
			it := items[1]
			assert.Equal(t, tc.outcome, it.Outcome, it.Notes)
			if tc.note != "" {
				assert.Contains(t, jsonOf(t, it.Notes), tc.note)
			}
			if tc.config == "" {
				assert.Empty(t, d.Tiles)
				assert.Empty(t, it.TileID)
				return
			}
			require.Len(t, d.Tiles, 1)
			assert.Equal(t, Tile{ID: "w7", Name: d.Tiles[0].Name, X: 12, Y: 2, W: 12, H: 4, Config: d.Tiles[0].Config}, d.Tiles[0])
			assert.JSONEq(t, tc.config, jsonOf(t, d.Tiles[0].Config))
			assert.Equal(t, "w7", it.TileID)
		})
	}
}

// Template variables become dashboard filters on their tags: a default
// of * is exact (the filter narrows when a value is chosen), another
// default stays written into the queries, and a variable without a tag
// has no filter; the report says which.
func TestTemplateVariablesBecomeFilters(t *testing.T) {
	for _, tc := range []struct {
		name, vars, query, want, outcome string
		filters                          []Filter
	}{
		{
			"tag at *", `[{"name":"host","prefix":"host","default":"*"}]`, "avg:system.load.1{$host} by {host}", "avg:system.load.1{*} by {host}", Imported,
			[]Filter{{Type: "QUERY_EXPRESSION", Name: "host", Expression: "host", SourceID: "metrics", AppliesToSourceIDs: []string{"metrics", "logs", "traces"}}},
		},
		{
			"tag with a default", `[{"name":"env","prefix":"env","defaults":["prod"]}]`, "avg:system.load.1{$env}", "avg:system.load.1{env:prod}", Approximated,
			[]Filter{{Type: "QUERY_EXPRESSION", Name: "env", Expression: "env", SourceID: "metrics", AppliesToSourceIDs: []string{"metrics", "logs", "traces"}}},
		},
		{"no tag", `[{"name":"scope","default":"*"}]`, "avg:system.load.1{$scope}", "avg:system.load.1{*}", Approximated, []Filter{}},
		{
			"two tags at * before a tag", `[{"name":"db","prefix":"database_instance","default":"*"},{"name":"cluster","prefix":"cluster_name","default":"*"}]`,
			"avg:pg.time{$db,$cluster,operation:load} by {operation}", "avg:pg.time{operation:load} by {operation}", Imported,
			[]Filter{
				{Type: "QUERY_EXPRESSION", Name: "db", Expression: "database_instance", SourceID: "metrics", AppliesToSourceIDs: []string{"metrics", "logs", "traces"}},
				{Type: "QUERY_EXPRESSION", Name: "cluster", Expression: "cluster_name", SourceID: "metrics", AppliesToSourceIDs: []string{"metrics", "logs", "traces"}},
			},
		},
		{"no tag, null prefix", `[{"name":"scope","prefix":null,"default":"*"}]`, "avg:system.load.1{$scope,env:prod}", "avg:system.load.1{env:prod}", Approximated, []Filter{}},
		{"no tag, values of several keys", `[{"name":"scope","default":"*","available_values":["env:prod","host:a"]}]`, "avg:system.load.1{$scope}", "avg:system.load.1{*}", Approximated, []Filter{}},
		{
			"no tag, values of one key", `[{"name":"stage","prefix":"","default":"*","available_values":["env:prod","env:dev"]}]`, "avg:system.load.1{$stage}", "avg:system.load.1{*}", Imported,
			[]Filter{{Type: "QUERY_EXPRESSION", Name: "stage", Expression: "env", SourceID: "metrics", AppliesToSourceIDs: []string{"metrics", "logs", "traces"}}},
		},
		{
			"no tag, a default of one key", `[{"name":"stage","defaults":["env:prod"]}]`, "avg:system.load.1{$stage} by {host}", "avg:system.load.1{env:prod} by {host}", Approximated,
			[]Filter{{Type: "QUERY_EXPRESSION", Name: "stage", Expression: "env", SourceID: "metrics", AppliesToSourceIDs: []string{"metrics", "logs", "traces"}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"title":"t","layout_type":"ordered","template_variables":` + tc.vars + `,
				"widgets":[{"id":1,"definition":{"type":"timeseries","requests":[{"q":"` + tc.query + `"}]}}]}`
			d, items, err := ImportDashboard([]byte(body), DefaultSources)
			require.NoError(t, err)
			assert.Equal(t, tc.filters, d.Filters)
			require.Len(t, items, 2)
			assert.Equal(t, "template_variables", items[0].Path)
			assert.Equal(t, tc.outcome, items[0].Outcome, items[0].Notes)
			assert.Equal(t, tc.want, d.Tiles[0].Config["select"].([]Select)[0].Query)
			assert.Equal(t, tc.outcome, items[1].Outcome, "the widget is exact exactly when its variables are")
		})
	}
}

func TestImportDashboardRejects(t *testing.T) {
	_, _, err := ImportDashboard([]byte(`{"title":"x"}`), DefaultSources)
	require.ErrorAs(t, err, &Invalid{})
	_, _, err = ImportDashboard([]byte(`[`), DefaultSources)
	assert.ErrorAs(t, err, &Invalid{})
}

func TestImportMonitor(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       string // the alert as JSON
		tile       string // the query of the monitor's tile, when set
		err        string
		note       string
	}{
		{
			name: "metric", body: `{"type":"metric alert","name":"cpu","query":"avg(last_5m):avg:system.cpu.user{*} by {host} > 90","message":"{{#is_alert}}CPU at {{value}} on {{host.name}}{{/is_alert}}","options":{"thresholds":{"critical":90}}}`,
			want: `{"name":"cpu","message":"{{if eq .state \"ALERT\"}}CPU at {{.value}} on {{if gt (len .group) 0}}{{index .group 0}}{{end}}{{end}}","threshold":90,"thresholdType":"above_exclusive","interval":"5m","source":"tile","tileId":"monitor"}`,
			note: "host.name",
		},
		{
			name: "below, 10m window", body: `{"type":"query alert","name":"low","query":"min(last_10m):sum:x{env:prod} <= 1"}`,
			want: `{"name":"low","message":"","threshold":1,"thresholdType":"below_or_equal","interval":"15m","source":"tile","tileId":"monitor"}`, note: "nearest longer",
		},
		{
			name: "log", body: `{"type":"log alert","name":"errors","query":"logs(\"service:web status:error\").index(\"*\").rollup(\"count\").by(\"@http.status_code,host\").last(\"15m\") > 100"}`,
			want: `{"name":"errors","message":"","threshold":100,"thresholdType":"above_exclusive","interval":"15m","source":"saved_search","groupBy":"http.status_code, host"}`,
		},
		{
			name: "groups after the threshold", body: `{"type":"query alert","name":"pool","query":"avg(last_15m):avg:postgresql.percent_usage_connections{*} > 0.9 by {host}"}`,
			want: `{"name":"pool","message":"","threshold":0.9,"thresholdType":"above_exclusive","interval":"15m","source":"tile","tileId":"monitor"}`,
			tile: "avg:postgresql.percent_usage_connections{*} by {host}",
		},
		{
			name: "default_zero", body: `{"type":"query alert","name":"down","query":"avg(last_5m):default_zero(avg:postgresql.connections{*} by {db}) + 1 <= 1"}`,
			want: `{"name":"down","message":"","threshold":1,"thresholdType":"below_or_equal","interval":"5m","source":"tile","tileId":"monitor"}`,
			tile: "avg:postgresql.connections{*} by {db}.fill(zero) + 1", note: "fill(zero)",
		},
		{
			name: "not equal", body: `{"type":"query alert","name":"h","query":"max(last_5m):avg:mongodb.replset.health{*} by {member} != 1"}`,
			want: `{"name":"h","message":"","threshold":1,"thresholdType":"not_equal","interval":"5m","source":"tile","tileId":"monitor"}`,
		},
		{
			name: "monotonic_diff", body: `{"type":"query alert","name":"q","query":"avg(last_5m):monotonic_diff( avg:q.time{*} ) / monotonic_diff( avg:q.total{*} ) > 3"}`,
			want: `{"name":"q","message":"","threshold":3,"thresholdType":"above_exclusive","interval":"5m","source":"tile","tileId":"monitor"}`,
			tile: "monotonic_diff( avg:q.time{*} ) / monotonic_diff( avg:q.total{*} )", note: "monotonic_diff(…) compares",
		},
		{name: "outliers", body: `{"type":"query alert","name":"q","query":"avg(last_5m):outliers(avg:q.time{*} by {host}, 'dbscan', 3) > 0"}`, err: "outliers monitors have no counterpart"},
		{
			name: "service check", body: `{"type":"service check","name":"up","query":"\"http.can_connect\".over(\"env:prod\").by(\"host\",\"url\").last(4).count_by_status()","options":{"thresholds":{"critical":3,"warning":2}}}`,
			want: `{"name":"up","message":"","threshold":1,"thresholdType":"above_exclusive","interval":"1m","source":"tile","tileId":"monitor"}`,
			tile: "max:http.can_connect{env:prod} by {host,url}.rollup(max)", note: "critical 3 counts failed checks in a row",
		},
		{name: "service check, not a check", body: `{"type":"service check","name":"up","query":"http.can_connect.last(2)"}`, err: "is not \"check\""},
		{
			name: "event alert", body: `{"type":"event-v2 alert","name":"e","query":"events(\"source:bedrock error:true\").rollup(\"count\").last(\"15m\") > 3"}`,
			want: `{"name":"e","message":"","threshold":3,"thresholdType":"above_exclusive","interval":"15m","source":"saved_search"}`, note: "events are logs here",
		},
		{name: "composite", body: `{"type":"composite","name":"c","query":"123 && 456"}`, err: "composite monitors have no counterpart yet"},
		{
			name: "anomaly", body: `{"type":"query alert","name":"a","query":"avg(last_1h):anomalies(avg:x{*}, 'basic', 2) >= 1"}`,
			want: `{"name":"a","message":"","threshold":1,"thresholdType":"above","interval":"1h","source":"tile","tileId":"monitor"}`,
			tile: "anomalies(avg:x{*}, 'basic', 2)", note: "outside the median ± 2 robust standard deviations",
		},
		{
			name: "anomaly, 4h", body: `{"type":"query alert","name":"a","query":"avg(last_4h):anomalies(avg:system.cpu.user{*}, 'basic', 2) >= 1"}`,
			want: `{"name":"a","message":"","threshold":1,"thresholdType":"above","interval":"6h","source":"tile","tileId":"monitor"}`,
			tile: "anomalies(avg:system.cpu.user{*}, 'basic', 2)", note: "no alert_window",
		},
		{
			name: "anomaly, agile, alert window", body: `{"type":"query alert","name":"a","query":"avg(last_4h):anomalies(+ avg:x{*} by {host}, 'agile', 2, direction='above', alert_window='last_15m', interval=60, seasonality='hourly') >= 1","options":{"thresholds":{"critical":1,"critical_recovery":0}}}`,
			want: `{"name":"a","message":"","threshold":1,"thresholdType":"above","interval":"15m","source":"tile","tileId":"monitor"}`,
			tile: "anomalies(+ avg:x{*} by {host}, 'agile', 2, direction='above', alert_window='last_15m', interval=60, seasonality='hourly')", note: "agile algorithm, which learns seasonality, is computed as a basic rolling band",
		},
		{
			name: "forecast", body: `{"type":"query alert","name":"disk","query":"max(next_1w):forecast(avg:system.disk.in_use{*} by {host,device}, 'linear', 1, interval='60m', history='1w', model='default') >= 0.9","options":{"thresholds":{"critical":0.9},"threshold_windows":{"trigger_window":"last_30m"}}}`,
			want: `{"name":"disk","message":"","threshold":0.9,"thresholdType":"above","interval":"30m","source":"tile","tileId":"monitor"}`,
			tile: "forecast(avg:system.disk.in_use{*} by {host,device}, 'linear', 1, interval='60m', history='1w', model='default', horizon='1w', bound='upper')",
			note: "upper bound over the next 1w",
		},
		{
			name: "forecast below, every interval", body: `{"type":"query alert","name":"low","query":"min(next_3d):forecast(avg:x{*}, 'seasonal', 2, interval='60m') < 10"}`,
			want: `{"name":"low","message":"","threshold":10,"thresholdType":"below","interval":"1h","source":"tile","tileId":"monitor"}`,
			tile: "forecast(avg:x{*}, 'seasonal', 2, interval='60m', horizon='3d', bound='lower')", note: "a straight line here",
		},
		{
			name: "forecast, interval in seconds", body: `{"type":"query alert","name":"f","query":"max(next_1d):forecast(avg:x{*}, 'linear', 1, interval=900) > 5"}`,
			want: `{"name":"f","message":"","threshold":5,"thresholdType":"above_exclusive","interval":"15m","source":"tile","tileId":"monitor"}`,
			tile: "forecast(avg:x{*}, 'linear', 1, interval=900, horizon='1d', bound='upper')",
		},
		{name: "next without forecast", body: `{"type":"query alert","name":"a","query":"max(next_1w):avg:x{*} > 1"}`, err: "only a forecast does"},
		{name: "outliers", body: `{"type":"query alert","name":"a","query":"avg(last_1h):outliers(avg:x{*} by {host}, 'dbscan', 3) > 0"}`, err: "outliers monitors have no counterpart"},
		{name: "log avg", body: `{"type":"log alert","name":"a","query":"logs(\"*\").index(\"*\").rollup(\"avg\", \"@duration\").last(\"5m\") > 1"}`, err: "avg rollup"},
		{name: "not a monitor", body: `{"name":"x"}`, err: "not a Datadog monitor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, items, err := ImportMonitor([]byte(tc.body), DefaultSources)
			if tc.err != "" {
				require.ErrorAs(t, err, &Invalid{})
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, jsonOf(t, m.Alert))
			if tc.tile != "" {
				require.NotNil(t, m.Dashboard)
				assert.Equal(t, tc.tile, m.Dashboard.Tiles[0].Config["select"].([]Select)[0].Query)
			}
			if tc.note != "" {
				assert.Contains(t, jsonOf(t, items), tc.note)
			}
		})
	}
}

// A variable of a group the alert groups by is that group's value in the
// notification; others are kept as written.
func TestMessageGroupVariables(t *testing.T) {
	var n note
	got := Message("on {{host.name}} at {{ url.name }} in {{env.name}}, {{[@http.status_code].name}}", []string{"host", "url", "http.status_code"}, &n)
	assert.Equal(t, `on {{if gt (len .group) 0}}{{index .group 0}}{{end}} at {{if gt (len .group) 1}}{{index .group 1}}{{end}} in {{"{{env.name}}"}}, {{if gt (len .group) 2}}{{index .group 2}}{{end}}`, got)
	_, err := template.New("m").Parse(got)
	require.NoError(t, err)
	assert.Contains(t, strings.Join(n.notes, "; "), "{{host.name}} is the group's value")
	assert.Contains(t, strings.Join(n.notes, "; "), "{{env.name}} has no counterpart")
}

// A monitor's warning threshold is a second alert: same query, its own
// threshold and name, its message the warning's blocks.
func TestImportWarningThresholds(t *testing.T) {
	const msg = `{{#is_alert}}critical{{/is_alert}}{{#is_warning}}warning{{/is_warning}}{{#is_recovery}}ok{{/is_recovery}}`
	for _, tc := range []struct {
		name, query, thresholds, typ string
		warn                         *Alert // nil: none
		notes                        []string
	}{
		{
			name: "metric", typ: "query alert", query: "avg(last_5m):avg:redis.mem.used{*} > 90", thresholds: `{"critical":90,"warning":70}`,
			warn:  &Alert{Name: "m (warning)", Message: `{{if false}}critical{{end}}{{if eq .state "ALERT"}}warning{{end}}{{if eq .state "OK"}}ok{{end}}`, Threshold: 70, ThresholdType: "above_exclusive", Interval: "5m", Source: "tile", TileID: MonitorTileID},
			notes: []string{"warning 70 is a second alert"},
		},
		{
			name: "below, with recoveries", typ: "query alert", query: "min(last_15m):avg:disk.free{*} by {host} <= 10", thresholds: `{"critical":10,"warning":20,"critical_recovery":12,"warning_recovery":25}`,
			warn:  &Alert{Name: "m (warning)", Message: `{{if false}}critical{{end}}{{if eq .state "ALERT"}}warning{{end}}{{if eq .state "OK"}}ok{{end}}`, Threshold: 20, ThresholdType: "below_or_equal", Interval: "15m", Source: "tile", TileID: MonitorTileID},
			notes: []string{"critical_recovery 12: an alert recovers once its value no longer breaches its threshold", "warning_recovery 25"},
		},
		{
			name: "log", typ: "log alert", query: `logs("status:error").index("*").rollup("count").last("5m") > 100`, thresholds: `{"critical":100,"warning":50}`,
			warn: &Alert{Name: "m (warning)", Message: `{{if false}}critical{{end}}{{if eq .state "ALERT"}}warning{{end}}{{if eq .state "OK"}}ok{{end}}`, Threshold: 50, ThresholdType: "above_exclusive", Interval: "5m", Source: "saved_search"},
		},
		{
			name: "service check", typ: "service check", query: `"http.can_connect".over("*").by("host").last(3).count_by_status()`, thresholds: `{"critical":3,"warning":1,"ok":1}`,
			warn:  &Alert{Name: "m (warning)", Message: `{{if false}}critical{{end}}{{if eq .state "ALERT"}}warning{{end}}{{if eq .state "OK"}}ok{{end}}`, Threshold: 0, ThresholdType: "above_exclusive", Interval: "1m", Source: "tile", TileID: MonitorTileID},
			notes: []string{"warning 1 counts warnings in a row", "ok threshold 1: an alert has one threshold"},
		},
		{name: "no warning", typ: "query alert", query: "avg(last_5m):avg:x{*} > 1", thresholds: `{"critical":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := json.Marshal(tc.query)
			body := fmt.Sprintf(`{"type":%q,"name":"m","query":%s,"message":%q,"options":{"thresholds":%s}}`, tc.typ, q, msg, tc.thresholds)
			m, items, err := ImportMonitor([]byte(body), DefaultSources)
			require.NoError(t, err)
			if tc.warn == nil {
				assert.Nil(t, m.Warning)
				assert.Equal(t, `{{if eq .state "ALERT"}}critical{{end}}{{if false}}warning{{end}}{{if eq .state "OK"}}ok{{end}}`, m.Alert.Message)
				return
			}
			require.NotNil(t, m.Warning)
			assert.Equal(t, *tc.warn, *m.Warning)
			assert.Equal(t, "m", m.Alert.Name)
			assert.Equal(t, `{{if eq .state "ALERT"}}critical{{end}}{{if false}}warning{{end}}{{if eq .state "OK"}}ok{{end}}`, m.Alert.Message)
			var th Item
			for _, it := range items {
				if it.Path == "options.thresholds" {
					th = it
				}
			}
			assert.Equal(t, Approximated, th.Outcome)
			for _, n := range tc.notes {
				assert.Contains(t, strings.Join(th.Notes, "; "), n)
			}
			assert.NotContains(t, jsonOf(t, items), "{{#is_warning}} has no counterpart")
		})
	}
}

// A log alert's {{@attribute}} is the group's value when the alert groups
// by that attribute, and kept as written otherwise.
func TestMessageAttributeVariables(t *testing.T) {
	var n note
	got := Message("connector {{@Connector}} on {{@host}}", []string{"Connector"}, &n)
	assert.Equal(t, `connector {{if gt (len .group) 0}}{{index .group 0}}{{end}} on {{"{{@host}}"}}`, got)
	assert.Contains(t, strings.Join(n.notes, "; "), "{{@Connector}} is the group's value")
	assert.Contains(t, strings.Join(n.notes, "; "), "{{@host}} has no counterpart")
}

func TestMessageTemplates(t *testing.T) {
	var n note
	got := Message("{{#is_alert}}high {{value}} > {{threshold}}{{/is_alert}}{{#is_warning}}warn{{/is_warning}}{{^is_alert}}fine{{/is_alert}}", nil, &n)
	assert.Equal(t, `{{if eq .state "ALERT"}}high {{.value}} > {{.threshold}}{{end}}{{if false}}warn{{end}}{{if not (eq .state "ALERT")}}fine{{end}}`, got)
	assert.Equal(t, Approximated, n.outcome)
}

// Datadog's own integration assets (testdata/integrations-core, sources
// in its README) import with every widget accounted for.
func TestImportIntegrationAssets(t *testing.T) {
	dir := filepath.Join("testdata", "integrations-core")
	body, err := os.ReadFile(filepath.Join(dir, "redisdb_dashboard_overview.json"))
	require.NoError(t, err)
	d, items, err := ImportDashboard(body, DefaultSources)
	require.NoError(t, err)
	assert.Equal(t, "Redis - Overview", d.Name)
	sum := Summary(items)
	t.Logf("redis overview: %v", sum)
	byPath := map[string]Item{}
	for _, it := range items {
		byPath[it.Path] = it
	}
	// 31 widgets: 5 groups and 26 inside them, and the template variables;
	// the groups and notes are imported as they are, the rest read $scope
	// at its default (dashboard filters are not applied yet).
	assert.Len(t, items, 32)
	assert.Equal(t, Approximated, byPath["widgets[1].widgets[3]"].Outcome, "diff() of the aggregated series")
	assert.Equal(t, Approximated, byPath["widgets[3].widgets[2]"].Outcome, "per_minute is a scaled rate")
	assert.Equal(t, Approximated, byPath["widgets[0].widgets[5]"].Outcome, "the host map is a table")
	assert.Equal(t, "search", d.Tiles[len(d.Tiles)-1].Config["displayType"], "the log stream")
	assert.Equal(t, map[string]int{Imported: 10, Approximated: 22, Skipped: 0}, sum)
	for _, tl := range d.Tiles {
		assert.True(t, tl.X >= 0 && tl.X+tl.W <= 24 && tl.W >= 1 && tl.H >= 1, "%+v", tl)
	}

	body, err = os.ReadFile(filepath.Join(dir, "redisdb_monitor_high_mem.json"))
	require.NoError(t, err)
	m, items, err := ImportMonitor(body, DefaultSources)
	require.NoError(t, err)
	assert.Equal(t, "100 * avg:redis.mem.used{*} / avg:redis.mem.maxmemory{*}", m.Dashboard.Tiles[0].Config["select"].([]Select)[0].Query)
	assert.Equal(t, Alert{
		Name: "[Redis] High memory consumption", Message: m.Alert.Message, Threshold: 90, ThresholdType: "above_exclusive",
		Interval: "5m", Source: "tile", TileID: MonitorTileID,
	}, m.Alert)
	assert.Contains(t, m.Alert.Message, `{{if eq .state "ALERT"}}`)
	assert.Contains(t, m.Alert.Message, "{{if false}}\nRedis memory usage has exceeded 70%", "the warning's text is the warning alert's")
	assert.Contains(t, jsonOf(t, items), "warning 70 is a second alert")
	require.NotNil(t, m.Warning)
	assert.Equal(t, "[Redis] High memory consumption (warning)", m.Warning.Name)
	assert.Equal(t, 70.0, m.Warning.Threshold)
	assert.Contains(t, m.Warning.Message, "{{if eq .state \"ALERT\"}}\nRedis memory usage has exceeded 70%")

	body, err = os.ReadFile(filepath.Join(dir, "nginx_monitor_5xx.json"))
	require.NoError(t, err)
	m, _, err = ImportMonitor(body, DefaultSources)
	require.NoError(t, err)
	assert.Equal(t, "15m", m.Alert.Interval, "the alert window")
	assert.Equal(t, "above", m.Alert.ThresholdType)

	body, err = os.ReadFile(filepath.Join(dir, "nginx_saved_view_5xx_errors.json"))
	require.NoError(t, err)
	ss, items, err := ImportSavedView(body, DefaultSources)
	require.NoError(t, err)
	assert.Equal(t, SavedSearch{
		Name: "NGINX 5xx errors", Source: "logs", Where: "source:nginx @http.status_code:[500 TO 599]", WhereLanguage: "datadog",
		Select: "Timestamp, SeverityText, LogAttributes['http.method'], LogAttributes['http.url_details.path'], LogAttributes['http.status_code'], Body",
		Tags:   []string{"datadog"},
	}, ss)
	assert.Equal(t, Imported, items[0].Outcome)
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// The host dashboard made on first start imports whole: every widget a
// tile as it is, nothing approximated or skipped.
func TestHostDashboardImportsWhole(t *testing.T) {
	d, items, err := ImportDashboard(HostDashboard, DefaultSources)
	require.NoError(t, err)
	assert.Equal(t, "Hosts (Datadog Agent)", d.Name)
	assert.Len(t, d.Tiles, 17)
	for _, it := range items {
		assert.Equal(t, Imported, it.Outcome, "%s %s: %v", it.Path, it.Title, it.Notes)
	}
}

// Datadog's metric functions with a counterpart are written as the
// query's own functions; the rest are left for the parser to name.
func TestRewriteFunctions(t *testing.T) {
	for _, tc := range []struct{ in, want, note string }{
		{"per_second(sum:a{*} by {host})", "sum:a{*} by {host}.as_rate()", "per_second"},
		{"0 - per_second(avg:b{*})", "0 - avg:b{*}.as_rate()", "per_second"},
		{"per_minute(a{x:y} + b{*})", "(a{x:y}.as_rate() + b{*}.as_rate()) * 60", "per_minute"},
		{"per_hour(sum:c{*}.as_count())", "sum:c{*}.as_rate() * 3600", "per_hour"},
		{"default_zero(avg:d{*} by {db}) + 1", "avg:d{*} by {db}.fill(zero) + 1", "fill(zero)"},
		{"default_zero(per_second(sum:e{*}))", "sum:e{*}.as_rate().fill(zero)", "fill(zero)"},
		{"diff(avg:f{*})", "diff(avg:f{*})", ""},
		{"sum:g{*} by {h}.fill(0)", "sum:g{*} by {h}.fill(zero)", "fill(0) is .fill(zero)"},
		{"top(sum:g{*} by {h}.fill(60), 5)", "top(sum:g{*} by {h}, 5)", "is left out"},
		{"top(timeshift(sum:g{*} by {h}, 40), 5)", "top(sum:g{*} by {h}, 5)", "shifts forward"},
		{"a{*} / timeshift(a{*}, -300)", "a{*} / timeshift(a{*}, -300)", ""},
		{"sum:per_second.g{*}", "sum:per_second.g{*}", ""},
		{"per_second(", "per_second(", ""},
	} {
		var n note
		got := rewriteFunctions(tc.in, &n)
		assert.Equal(t, tc.want, got, tc.in)
		if tc.note == "" {
			assert.Empty(t, n.notes, tc.in)
		} else {
			assert.Equal(t, Approximated, n.outcome, tc.in)
			assert.Contains(t, strings.Join(n.notes, "; "), tc.note, tc.in)
		}
	}
}

func TestSplitSeries(t *testing.T) {
	assert.Equal(t, []string{"a{*}", "b{x:y,z:w} by {h}"}, splitSeries("a{*}, b{x:y,z:w} by {h}"))
	assert.Equal(t, []string{"top(a{*} by {h}, 10, 'mean', 'desc')"}, splitSeries("top(a{*} by {h}, 10, 'mean', 'desc')"))
	assert.Equal(t, []string{"a{*}"}, splitSeries("a{*},"))
}

// An analytics or patterns view keeps its search; what it drew of the
// matching events is reported.
func TestImportSavedViewPages(t *testing.T) {
	for _, tc := range []struct{ name, body, outcome, note string }{
		{"stream", `{"name":"v","type":"logs","page":"stream","query":"source:x","options":{"columns":["host"]}}`, Imported, ""},
		{
			"analytics", `{"name":"v","type":"logs","page":"analytics","query":"source:x","options":{"group_bys":[{"facet":"@db.user"}],"aggregations":[{"metric":"count","type":"count"}]}}`,
			Approximated, "the analytics view's count(*) by @db.user is not kept",
		},
		{"patterns", `{"name":"v","type":"logs","page":"patterns","query":"source:x"}`, Approximated, "patterns view is not kept"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, items, err := ImportSavedView([]byte(tc.body), DefaultSources)
			require.NoError(t, err)
			assert.Equal(t, "source:x", s.Where)
			assert.Equal(t, tc.outcome, items[0].Outcome)
			if tc.note != "" {
				assert.Contains(t, items[0].Notes[0], tc.note)
			}
		})
	}
}

// An older screenboard (board_title, flat widgets with tile_def) reads as
// a free layout of the same widgets.
func TestImportLegacyScreenboard(t *testing.T) {
	body := `{"board_title":"Old","widgets":[
		{"type":"note","html":"Queries","content":"stale","x":0,"y":0,"width":48,"height":4},
		{"type":"timeseries","title_text":"CPU","tile_def":{"requests":[{"q":"avg:cpu{*}, avg:mem{*}","type":"area"}],"viz":"timeseries"},"x":48,"y":0,"width":48,"height":12},
		{"type":"hostmap","title_text":"hosts","tile_def":{"requests":[{"q":"avg:cpu{*} by {host}","type":"fill"}]},"x":0,"y":12,"width":96,"height":12},
		{"type":"check_status","title_text":"up","check":"druid.service.health","grouping":"cluster","tags":["*"],"x":0,"y":24,"width":24,"height":6}
	]}`
	d, items, err := ImportDashboard([]byte(body), DefaultSources)
	require.NoError(t, err)
	assert.Equal(t, "Old", d.Name)
	require.Len(t, d.Tiles, 4)
	assert.Equal(t, map[string]any{"displayType": "markdown", "markdown": "Queries"}, d.Tiles[0].Config)
	assert.Equal(t, Tile{ID: d.Tiles[1].ID, Name: "CPU", X: 12, Y: 0, W: 12, H: 3, Config: d.Tiles[1].Config}, d.Tiles[1])
	assert.JSONEq(t, `{"displayType":"line","sourceId":"metrics","select":[{"query":"avg:cpu{*}"},{"query":"avg:mem{*}"}]}`, jsonOf(t, d.Tiles[1].Config))
	assert.Equal(t, "table", d.Tiles[2].Config["displayType"])
	assert.Equal(t, "max:druid.service.health{*}.rollup(max)", d.Tiles[3].Config["select"].([]Select)[0].Query)
	for _, it := range items {
		assert.NotEqual(t, Skipped, it.Outcome, "%s %v", it.Path, it.Notes)
	}
}
