package query

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ddLogFields and ddSpanFields are the exporter's otel_logs and
// otel_traces columns, as the Datadog receiver's data lands in them.
var (
	ddLogFields = fields{
		s: Source{
			Database: "otel", Table: "otel_logs", TimestampColumn: "Timestamp", BodyColumn: "Body",
			ServiceColumn: "ServiceName", SeverityColumn: "SeverityText", AttributesMap: "LogAttributes", ResourceMap: "ResourceAttributes",
		},
		cols: map[string]string{
			"Timestamp": "DateTime64(9)", "TraceId": "String", "SpanId": "String", "SeverityText": "LowCardinality(String)",
			"SeverityNumber": "UInt8", "ServiceName": "LowCardinality(String)", "Body": "String",
			"ResourceAttributes": "Map(LowCardinality(String), String)", "LogAttributes": "Map(LowCardinality(String), String)",
		},
	}
	ddSpanFields = fields{
		s: Source{
			Database: "otel", Table: "otel_traces", TimestampColumn: "Timestamp", BodyColumn: "SpanName",
			ServiceColumn: "ServiceName", Duration: "Duration", AttributesMap: "SpanAttributes", ResourceMap: "ResourceAttributes",
		},
		cols: map[string]string{
			"Timestamp": "DateTime64(9)", "TraceId": "String", "SpanId": "String", "SpanName": "LowCardinality(String)",
			"ServiceName": "LowCardinality(String)", "Duration": "UInt64", "StatusCode": "LowCardinality(String)",
			"ResourceAttributes": "Map(LowCardinality(String), String)", "SpanAttributes": "Map(LowCardinality(String), String)",
		},
	}
)

// filled puts the bound values back into the SQL, quoted, so a case
// reads as the condition the engine runs.
func filled(sql string, p Params) string {
	return placeholder.ReplaceAllStringFunc(sql, func(ph string) string {
		m := placeholder.FindStringSubmatch(ph)
		if m[2] == "Float64" {
			return p.Values[m[1]]
		}
		return "'" + p.Values[m[1]] + "'"
	})
}

func TestDatadogTranslation(t *testing.T) {
	const (
		statusAll = "'emergency', 'emerg', 'panic', 'fatal', 'alert', 'critical', 'crit', 'error', 'err', 'eror', 'warn', 'warning', 'notice', 'info', 'information', 'informational', 'ok', 'success', 'debug', 'dbug', 'trace', 'verbose'"
		httpCode  = "(`LogAttributes`['http.status_code'] = '500' OR (NOT mapContains(`LogAttributes`, 'http.status_code') AND " +
			"((mapContains(`LogAttributes`, 'http') AND if(toInt8(JSONType(`LogAttributes`['http'], 'status_code')) = 34, JSONExtractString(`LogAttributes`['http'], 'status_code'), JSONExtractRaw(`LogAttributes`['http'], 'status_code')) = '500') OR " +
			"(NOT JSONHas(`LogAttributes`['http'], 'status_code') AND `ResourceAttributes`['http.status_code'] = '500'))))"
	)
	for _, tc := range []struct {
		q, sql string
		spans  bool
	}{
		{q: "", sql: "1"},
		{q: "service:web", sql: "`ServiceName` = 'web'"},
		{q: "hello", sql: "positionCaseInsensitiveUTF8(`Body`, 'hello') > 0"},
		{q: `"connection reset"`, sql: "positionCaseInsensitiveUTF8(`Body`, 'connection reset') > 0"},
		{q: "time*ut", sql: "`Body` ILIKE '%time%ut%'"},
		{q: "status:warn", sql: "(lower(`SeverityText`) IN ('warn', 'warning') OR (lower(`SeverityText`) NOT IN (" + statusAll + ") AND `SeverityNumber` IN (13, 14, 15, 16)))"},
		{q: "status:WARNING", sql: "(lower(`SeverityText`) IN ('warn', 'warning') OR (lower(`SeverityText`) NOT IN (" + statusAll + ") AND `SeverityNumber` IN (13, 14, 15, 16)))"},
		{q: "status:notice", sql: "lower(`SeverityText`) IN ('notice')"},
		{q: "status:err*", sql: "`SeverityText` ILIKE 'err%'"},
		{q: "@http.status_code:500", sql: httpCode},
		{q: "-@usr.id:42", sql: "NOT (`LogAttributes`['usr.id'] = '42' OR (NOT mapContains(`LogAttributes`, 'usr.id') AND " +
			"((mapContains(`LogAttributes`, 'usr') AND if(toInt8(JSONType(`LogAttributes`['usr'], 'id')) = 34, JSONExtractString(`LogAttributes`['usr'], 'id'), JSONExtractRaw(`LogAttributes`['usr'], 'id')) = '42') OR " +
			"(NOT JSONHas(`LogAttributes`['usr'], 'id') AND `ResourceAttributes`['usr.id'] = '42'))))"},
		{q: "host:web-*", sql: "(`ResourceAttributes`['host.name'] LIKE 'web-%' OR (NOT mapContains(`ResourceAttributes`, 'host.name') AND " +
			"(`LogAttributes`['host'] LIKE 'web-%' OR (NOT mapContains(`LogAttributes`, 'host') AND `ResourceAttributes`['host'] LIKE 'web-%'))))"},
		{q: "env:prod", sql: "(`ResourceAttributes`['deployment.environment.name'] = 'prod' OR (NOT mapContains(`ResourceAttributes`, 'deployment.environment.name') AND " +
			"(`ResourceAttributes`['deployment.environment'] = 'prod' OR (NOT mapContains(`ResourceAttributes`, 'deployment.environment') AND " +
			"(`LogAttributes`['env'] = 'prod' OR (NOT mapContains(`LogAttributes`, 'env') AND `ResourceAttributes`['env'] = 'prod'))))))"},
		{q: "@duration:>1000000", sql: "(toFloat64OrNull(`LogAttributes`['duration']) > 1000000 OR (NOT mapContains(`LogAttributes`, 'duration') AND toFloat64OrNull(`ResourceAttributes`['duration']) > 1000000))"},
		{q: "@n:[10 TO 20]", sql: "((toFloat64OrNull(`LogAttributes`['n']) >= 10 OR (NOT mapContains(`LogAttributes`, 'n') AND toFloat64OrNull(`ResourceAttributes`['n']) >= 10)) AND " +
			"(toFloat64OrNull(`LogAttributes`['n']) <= 20 OR (NOT mapContains(`LogAttributes`, 'n') AND toFloat64OrNull(`ResourceAttributes`['n']) <= 20)))"},
		{q: "@n:[10 TO *]", sql: "((toFloat64OrNull(`LogAttributes`['n']) >= 10 OR (NOT mapContains(`LogAttributes`, 'n') AND toFloat64OrNull(`ResourceAttributes`['n']) >= 10)))"},
		{q: "@n:*", sql: "(mapContains(`LogAttributes`, 'n') OR mapContains(`ResourceAttributes`, 'n'))"},
		{q: "service:(web OR api) -status:info", sql: "((`ServiceName` = 'web' OR `ServiceName` = 'api') AND NOT " +
			"(lower(`SeverityText`) IN ('info', 'information', 'informational') OR (lower(`SeverityText`) NOT IN (" + statusAll + ") AND `SeverityNumber` IN (9, 10, 11, 12))))"},
		{q: "a OR b AND NOT c", sql: "(positionCaseInsensitiveUTF8(`Body`, 'a') > 0 OR (positionCaseInsensitiveUTF8(`Body`, 'b') > 0 AND NOT positionCaseInsensitiveUTF8(`Body`, 'c') > 0))"},
		{q: `(a || b) && c`, sql: "((positionCaseInsensitiveUTF8(`Body`, 'a') > 0 OR positionCaseInsensitiveUTF8(`Body`, 'b') > 0) AND positionCaseInsensitiveUTF8(`Body`, 'c') > 0)"},
		// An escaped wildcard is the character itself.
		{q: `service:a\*b`, sql: "`ServiceName` = 'a*b'"},
		{q: `service:100%_done*`, sql: "`ServiceName` LIKE '100\\\\%\\\\_done%'"},
		{q: "trace_id:1234", sql: "right(`TraceId`, 16) = '00000000000004d2'"},
		{q: "trace_id:0123456789ABCDEF0123456789abcdef", sql: "`TraceId` = '0123456789abcdef0123456789abcdef'"},
		{q: "source:nginx version:1.2", sql: "((`ResourceAttributes`['datadog.log.source'] = 'nginx' OR (NOT mapContains(`ResourceAttributes`, 'datadog.log.source') AND " +
			"(`LogAttributes`['source'] = 'nginx' OR (NOT mapContains(`LogAttributes`, 'source') AND `ResourceAttributes`['source'] = 'nginx')))) AND " +
			"(`ResourceAttributes`['service.version'] = '1.2' OR (NOT mapContains(`ResourceAttributes`, 'service.version') AND " +
			"(`LogAttributes`['version'] = '1.2' OR (NOT mapContains(`LogAttributes`, 'version') AND `ResourceAttributes`['version'] = '1.2')))))"},
		{q: "kube_namespace:shop", sql: "(`ResourceAttributes`['k8s.namespace.name'] = 'shop' OR (NOT mapContains(`ResourceAttributes`, 'k8s.namespace.name') AND " +
			"(`LogAttributes`['kube_namespace'] = 'shop' OR (NOT mapContains(`LogAttributes`, 'kube_namespace') AND `ResourceAttributes`['kube_namespace'] = 'shop'))))"},
		{q: "*:boom", sql: "(positionCaseInsensitiveUTF8(`Body`, 'boom') > 0 OR arrayExists(x -> positionCaseInsensitiveUTF8(x, 'boom') > 0, mapValues(`LogAttributes`)))"},
		// Spans: status is OTel's status code, @duration the Duration
		// column in nanoseconds, with Datadog's units.
		{q: "status:error", spans: true, sql: "lower(`StatusCode`) IN ('error', 'status_code_error')"},
		{q: "status:ok", spans: true, sql: "NOT lower(`StatusCode`) IN ('error', 'status_code_error')"},
		{q: "@duration:>1.5ms", spans: true, sql: "`Duration` > 1500000"},
		{q: "@duration:[1s TO 2s]", spans: true, sql: "(`Duration` >= 1000000000 AND `Duration` <= 2000000000)"},
		{q: "operation_name:http.request resource_name:\"GET /\"", spans: true, sql: "(`SpanName` = 'http.request' AND " +
			"(`ResourceAttributes`['resource.name'] = 'GET /' OR (NOT mapContains(`ResourceAttributes`, 'resource.name') AND " +
			"(`SpanAttributes`['resource_name'] = 'GET /' OR (NOT mapContains(`SpanAttributes`, 'resource_name') AND `ResourceAttributes`['resource_name'] = 'GET /')))))"},
	} {
		t.Run("q="+tc.q, func(t *testing.T) {
			f := ddLogFields
			if tc.spans {
				f = ddSpanFields
			}
			var p Params
			sql, err := datadogWhere(tc.q, f, &p)
			require.NoError(t, err, tc.q)
			assert.Equal(t, tc.sql, filled(sql, p), tc.q)
		})
	}
}

// The example of the issue compiles, one condition per term.
func TestDatadogExample(t *testing.T) {
	var p Params
	sql, err := datadogWhere(`service:web status:error @http.status_code:500 -@usr.id:42 host:web-* env:prod "connection reset" @duration:>1000000 @http.url_details.path:/api/*`, ddLogFields, &p)
	require.NoError(t, err)
	s := filled(sql, p)
	for _, want := range []string{
		"`ServiceName` = 'web'", "lower(`SeverityText`) IN ('error', 'err', 'eror')", "JSONExtractRaw(`LogAttributes`['http'], 'status_code')",
		"NOT (`LogAttributes`['usr.id'] = '42'", "`ResourceAttributes`['host.name'] LIKE 'web-%'", "'deployment.environment.name'] = 'prod'",
		"positionCaseInsensitiveUTF8(`Body`, 'connection reset') > 0", "toFloat64OrNull(`LogAttributes`['duration']) > 1000000",
		"JSONExtractString(`LogAttributes`['http.url_details'], 'path')", "JSONExtractString(`LogAttributes`['http'], 'url_details', 'path')",
		"`LogAttributes`['http.url_details.path'] LIKE '/api/%'",
	} {
		assert.Contains(t, s, want)
	}
}

func TestDatadogBadInput(t *testing.T) {
	for q, why := range map[string]string{
		`boom\`:                            "ends with a backslash",
		`"unclosed`:                        "not closed",
		"(a":                               "missing )",
		"a)":                               "unexpected \")\"",
		"service:":                         "has no value",
		"@:x":                              "@ names no attribute",
		"@n:[1 TO":                         "not closed",
		"@n:[1 2]":                         "form [a TO b]",
		"@n:>":                             "needs a value",
		"AND a":                            "unexpected operator",
		"a OR":                             "incomplete",
		"message:>3":                       "cannot be compared",
		"@duration:>fast":                  "",
		strings.Repeat("(", 100) + "a":     "nested deeper",
		strings.Repeat("x", 64<<10+1):      "longer than",
		strings.Repeat("@a.b.c.d:x ", 500): "too large",
		"status:error\x00":                 "",
		"\"a\\\"b\" @k:\"x y\" -(-(-a))":   "",
	} {
		var p Params
		_, err := datadogWhere(q, ddLogFields, &p)
		if why == "" {
			require.NoError(t, err, q)
			continue
		}
		if assert.Error(t, err, q[:min(len(q), 30)]) {
			assert.Contains(t, err.Error(), why, q[:min(len(q), 30)])
		}
	}
	var p Params
	_, err := datadogWhere("@duration:>fast", ddSpanFields, &p)
	assert.ErrorContains(t, err, "is a number")
}

// FuzzDatadog: no input panics, and whatever is accepted compiles to SQL
// in which no user text appears outside a bound parameter, every
// placeholder has its value and every value is one the engine can read.
func FuzzDatadog(f *testing.F) {
	for _, s := range []string{
		"", "service:web status:error @http.status_code:500 -@usr.id:42 host:web-* env:prod \"connection reset\" @duration:>1000000 @http.url_details.path:/api/*",
		"status:warn", "service:(a OR b)", "@a.b.c.d:[1 TO 2]", "@d:{a TO b}", `a\*b`, `"a\"b"`, "*:x", "trace_id:42", "-(-a)", "NOT a AND b || c && d",
		`'; DROP TABLE t; --`, "((((", `"unclosed`, "é:ü*?", "@x:>=5", "-", "\x00", "@duration:>1s",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	own := map[string]bool{}
	for _, w := range strings.Fields("ServiceName SeverityText SeverityNumber Body LogAttributes ResourceAttributes SpanAttributes SpanName Duration StatusCode TraceId " +
		"toString toFloat64OrNull positionCaseInsensitiveUTF8 notEmpty lower ILIKE LIKE NOT AND OR IN mapContains JSONHas JSONType toInt8 JSONExtractString JSONExtractRaw if right " +
		"arrayExists x mapValues") {
		own[w] = true
	}
	f.Fuzz(func(t *testing.T, q string, spans bool) {
		fs := ddLogFields
		if spans {
			fs = ddSpanFields
		}
		var p Params
		sql, err := datadogWhere(q, fs, &p)
		if err != nil {
			return
		}
		used := map[string]bool{}
		rest := placeholder.ReplaceAllStringFunc(sql, func(ph string) string {
			used[placeholder.FindStringSubmatch(ph)[1]] = true
			return " "
		})
		// The translator's own text: quoted column names and the lambda
		// of *:term.
		rest = strings.ReplaceAll(strings.ReplaceAll(rest, "`", " "), "x -> ", " ")
		if strings.ContainsAny(rest, "'\"\\;{}#/-") || strings.IndexFunc(rest, func(r rune) bool { return r > unicode.MaxASCII || unicode.IsControl(r) }) >= 0 {
			t.Fatalf("%q compiled to %q: user text outside a parameter", q, sql)
		}
		for _, w := range sqlWords.FindAllString(rest, -1) {
			if !own[w] && strings.Trim(w, "0123456789") != "" {
				t.Fatalf("%q compiled to %q: word %q is not the translator's", q, sql, w)
			}
		}
		if len(used) != len(p.Values) {
			t.Fatalf("%q: %d placeholders, %d values", q, len(used), len(p.Values))
		}
		for name, v := range p.Values {
			if !used[name] {
				t.Fatalf("%q: value %s bound but not in %q", q, name, sql)
			}
			unescapeParam(t, v)
		}
	})
}

func TestDatadogTagNamesResourceKeys(t *testing.T) {
	for otel, want := range map[string]string{
		"host.name": "host", "deployment.environment.name": "env", "cloud.availability_zone": "availability_zone",
		"k8s.pod.name": "pod_name", "service.name": "service",
	} {
		got, ok := DatadogTag(otel)
		assert.True(t, ok, otel)
		assert.Equal(t, want, got, otel)
	}
	_, ok := DatadogTag("http.route")
	assert.False(t, ok, "an attribute with no Datadog tag keeps its name")
}

// A metric source has no severity: its status is a tag like any other
// (cert-manager's request count by {status}).
func TestDatadogStatusOfAMetricIsATag(t *testing.T) {
	metric := fields{
		s: Source{Database: "otel", Table: "otel_metrics_sum", TimestampColumn: "TimeUnix", ServiceColumn: "ServiceName", AttributesMap: "Attributes", ResourceMap: "ResourceAttributes"},
		cols: map[string]string{
			"TimeUnix": "DateTime64(9)", "ServiceName": "LowCardinality(String)", "MetricName": "String",
			"Attributes": "Map(LowCardinality(String), String)", "ResourceAttributes": "Map(LowCardinality(String), String)",
		},
	}
	var p Params
	got, err := datadogWhere("status:400", metric, &p)
	require.NoError(t, err)
	assert.Contains(t, filled(got, p), "`Attributes`['status']")
	assert.NotContains(t, filled(got, p), "Severity")
	_, err = datadogWhere("status:error", ddLogFields, &Params{})
	require.NoError(t, err, "a log's status is still its severity")
}
