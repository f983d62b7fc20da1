package charts

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/chtest"
)

var whereCols = map[string]string{"Body": "String", "SeverityText": "String", "ServiceName": "String",
	"LogAttributes": "Map(String, String)", "Duration": "UInt64", "Tags": "Array(String)", "T": "Tuple(a String)"}

var whereFns = NewCatalog([]Function{
	{"lower", true, "String"}, {"position", true, "String Search"}, {"match", false, "String Search"},
	{"has", false, "Arrays"}, {"arrayExists", false, "Arrays"}, {"CAST", true, "Type Conversion"},
	{"toUInt32", false, "Type Conversion"}, {"tuple", false, "Tuple"}, {"if", true, "Conditional"},
	{"not", true, "Logical"}, {"toYear", false, "Dates and Times"}, {"YEAR", true, "Dates and Times"},
	{"transform", false, "Other"}, {"lcase", true, "String"},
	{"file", false, "Other"}, {"joinGet", false, "Other"}, {"dictGet", false, "Dictionary"},
	{"aiGenerate", false, "AI"}, {"sleepEachRow", false, "Other"}, {"in", false, "Comparison"},
	{"globalIn", false, "Comparison"}, {"count", true, "Aggregate Functions"}, {"udf", false, ""},
})

var acceptedWheres = []string{
	"SeverityText = 'error' AND ServiceName = 'api'",
	"lower(Body) LIKE '%timeout%' OR Body ILIKE '%retry%'",
	"LogAttributes['http.status'] IN ('500', '503')",
	"ServiceName NOT IN tuple('a', 'b')",
	"Duration BETWEEN 1e6 AND 2.5E+9 AND Duration != 0x10",
	"has(Tags, 'x') AND arrayExists(x -> x = 'y', Tags)",
	"arrayExists((k, v) -> k = v, Tags, Tags)",
	"CAST(Duration AS Nullable(UInt64)) > 5 AND Duration::UInt32 < 9",
	"match(Body, 'a\\'b') AND Body = 'it''s'",
	"CASE WHEN Duration > 1 THEN 1 ELSE 0 END = 1",
	"T.a = 'x' AND T.1 = 'x' AND tuple(1, 2).1 = 1",
	"YEAR(Body) = 2026 AND NOT (Duration IS NULL)",
	"if(Duration > 0, 1, 0) = 1 AND LCASE(Body) = 'x' AND transform(Body, ['a'], ['b'], 'c') = 'c'",
	"`Body` = 'x' AND \"SeverityText\" = 'y'",
	"Body = '-- not a comment # nor /* this */; {p0:String}'",
}

func TestSQLWhereAccepts(t *testing.T) {
	for _, cond := range acceptedWheres {
		assert.NoError(t, CheckSQLWhere(cond, whereCols, whereFns), cond)
	}
}

func TestSQLWhereRefuses(t *testing.T) {
	for cond, why := range map[string]string{
		"position(file('/etc/passwd'), 'root') = 1":     "function file",
		"`file`('/proc/self/environ') != ''":            "function file",
		"joinGet('otelhouse.t', 'c', Body) = 1":         "function joinGet",
		"dictGet('d', 'a', 1) = 1":                      "function dictGet",
		"aiGenerate(Body) = ''":                         "function aiGenerate",
		"sleepEachRow(3) = 0":                           "function sleepEachRow",
		"udf(Body) = 1":                                 "function udf",
		"count() > 1":                                   "function count",
		"Body IN (SELECT Body FROM otelhouse.api_keys)": "is not a column",
		"('a', 'b') IN otelhouse.api_teams":             "is not a column",
		"Body IN api_keys":                              `"api_keys" is not a column`,
		"Body IN (Body)":                                "after IN",
		"Body IN lower(Body)":                           "after IN",
		"in(Body, api_keys)":                            "after IN",
		"globalIn(Body, 'x')":                           "function globalIn",
		"Body GLOBAL IN ('x')":                          "is not a column",
		"1) OR (1":                                      "unbalanced",
		"1) GROUP BY Body # (":                          "comments",
		"(1":                                            "unclosed",
		"Body = 'x' -- and the rest":                    "comments",
		"Body = 'x' /* c */":                            "comments",
		"Body = 'x' #! c":                               "comments",
		"Body = 'x'; DROP TABLE t":                      "';'",
		"Body = {p0:String}":                            "'{'",
		"Body = $$x$$":                                  "'$'",
		"Body = 'unterminated":                          "unterminated",
		"Body = 'x' SETTINGS max_threads = 1":           "is not a column",
		"Body AS x":                                     "only allowed in CAST",
		"CAST(Body AS String) = Body OR file('x') = ''": "function file",
		"otelhouse.api_keys.hash = ''":                  "is not a column",
		"Body.lower(Body) = 1":                          "unexpected '.'",
		"1api_keys = 1":                                 "not a number",
		"Body = 'x' AND SeverityText = 'é' AND Sévérité=1": "not allowed outside a string",
	} {
		err := CheckSQLWhere(cond, whereCols, whereFns)
		if assert.Error(t, err, cond) {
			assert.Contains(t, err.Error(), why, cond)
		}
	}
}

// TestSQLWhereOnTheEngine runs conditions through the chart engine with
// the engine's own function catalogue: what users write works, and what
// reads beyond the source (files, other tables) is refused before it runs.
func TestSQLWhereOnTheEngine(t *testing.T) {
	db := chtest.DB(t)
	rows, src := seed(t, db)
	ctx := context.Background()
	run := func(cond string) (float64, error) {
		points, err := Run(ctx, db, []Series{{Source: src, AggFn: "count", WhereLanguage: "sql", Where: cond}},
			t0, t0.Add(10*time.Minute), 10*time.Minute, time.Minute)
		if err != nil {
			return 0, err
		}
		require.Len(t, points, 1)
		return *points[0].Values[0], nil
	}
	timeouts := 0
	for _, r := range rows {
		if r.service == "api" && r.level == "error" && (r.team == "x" || r.team == "y") {
			timeouts++
		}
	}
	got, err := run("ServiceName = 'api' AND lower(SeverityText) = 'error' AND LogAttributes['team'] IN ('x', 'y')" +
		" AND toUInt32OrZero(LogAttributes['latency']) BETWEEN 1 AND 1000 AND arrayExists(k -> k = 'team', mapKeys(LogAttributes))" +
		" AND CAST(ResourceAttributes['region'] AS String) != '' AND toStartOfHour(Timestamp) <= Timestamp")
	require.NoError(t, err)
	assert.Equal(t, float64(timeouts), got)

	for _, cond := range []string{
		"position(file('/etc/passwd'), 'root') = 1",
		"('a', 'b', 0, 'c', now()) IN otelhouse.api_teams",
		"LogAttributes['team'] IN (api_teams)",
		"hasColumnInTable('otelhouse', 'api_keys', 'hash')",
		"getSetting('max_threads') > 0",
		"sleepEachRow(1) = 0",
		"Body != '' # GROUP BY",
	} {
		_, err := run(cond)
		assert.ErrorContains(t, err, "sql where", cond)
	}

	c, err := catalogOf(ctx, db)
	require.NoError(t, err)
	for _, name := range []string{"lower", "LOWER", "match", "JSONExtractString", "has", "mapContains", "toStartOfHour",
		"position", "multiSearchAny", "if", "multiIf", "isNull", "CAST", "toUInt32", "coalesce", "transform", "lcase"} {
		assert.True(t, c.allows(name), name)
	}
	for _, name := range []string{"file", "joinGet", "joinGetOrNull", "dictGet", "dictHas", "hasColumnInTable", "getSetting",
		"getServerSetting", "sleep", "sleepEachRow", "catboostEvaluate", "naiveBayesClassifier", "aiGenerate", "addressToSymbol",
		"in", "notIn", "globalIn", "count", "currentUser", "getClientHTTPHeader", "regionToName", "__getScalar", "throwIf"} {
		assert.False(t, c.allows(name), name)
	}
}

// FuzzCheckSQLWhere: no input panics the check, and whatever it accepts
// closes every bracket it opens, so it cannot reach past its parentheses.
func FuzzCheckSQLWhere(f *testing.F) {
	for _, cond := range acceptedWheres {
		f.Add(cond)
	}
	f.Add("1) OR (1")
	f.Fuzz(func(t *testing.T, cond string) {
		if CheckSQLWhere(cond, whereCols, whereFns) != nil {
			return
		}
		toks, err := lexSQL(cond)
		require.NoError(t, err)
		depth := 0
		for _, tok := range toks {
			switch {
			case tok.is("("), tok.is("["):
				depth++
			case tok.is(")"), tok.is("]"):
				depth--
			}
			require.GreaterOrEqual(t, depth, 0, cond)
		}
		require.Zero(t, depth, cond)
	})
}
