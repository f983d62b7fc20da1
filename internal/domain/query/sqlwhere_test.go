package query

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

var whereCols = map[string]string{
	"Body": "String", "SeverityText": "String", "ServiceName": "String",
	"LogAttributes": "Map(String, String)", "Duration": "UInt64", "Tags": "Array(String)", "T": "Tuple(a String)",
}

var whereFns = NewCatalog([]Function{
	{"lower", true, "String"},
	{"position", true, "String Search"},
	{"match", false, "String Search"},
	{"has", false, "Arrays"},
	{"arrayExists", false, "Arrays"},
	{"CAST", true, "Type Conversion"},
	{"toUInt32", false, "Type Conversion"},
	{"tuple", false, "Tuple"},
	{"if", true, "Conditional"},
	{"not", true, "Logical"},
	{"toYear", false, "Dates and Times"},
	{"YEAR", true, "Dates and Times"},
	{"transform", false, "Other"},
	{"lcase", true, "String"},
	{"file", false, "Other"},
	{"joinGet", false, "Other"},
	{"dictGet", false, "Dictionary"},
	{"aiGenerate", false, "AI"},
	{"sleepEachRow", false, "Other"},
	{"in", false, "Comparison"},
	{"globalIn", false, "Comparison"},
	{"count", true, "Aggregate Functions"},
	{"udf", false, ""},
	{"equals", false, "Comparison"},
	{"notEquals", false, "Comparison"},
	{"greater", false, "Comparison"},
	{"less", false, "Comparison"},
	{"greaterOrEquals", false, "Comparison"},
	{"lessOrEquals", false, "Comparison"},
	{"and", false, "Logical"},
	{"or", false, "Logical"},
	{"like", false, "String Search"},
	{"ilike", false, "String Search"},
	{"notIn", false, "Comparison"},
	{"arrayElement", false, "Arrays"},
	{"tupleElement", false, "Tuple"},
	{"multiIf", false, "Conditional"},
	{"isNull", false, "Null"},
	{"array", false, "Arrays"},
	{"exists", false, "Other"},
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
	"1) OR (1",
	"arrayExists((SELECT, doc, FROM) -> SELECT = doc, Tags)",
	"Body = 'x' # a comment ends at the line's end",
}

func TestSQLWhereAccepts(t *testing.T) {
	db := chtest.DB(t)
	for _, cond := range acceptedWheres {
		_, err := CheckSQLWhere(context.Background(), db, cond, whereCols, whereFns)
		assert.NoError(t, err, cond)
	}
}

// refusedWheres are conditions the check must refuse, with a word of the
// reason: among them the ways around the token check it replaced
// (keywords as lambda parameters, control bytes before a parenthesis).
var refusedWheres = map[string]string{
	"position(file('/etc/passwd'), 'root') = 1":                "file",
	"`file`('/proc/self/environ') != ''":                       "file",
	"fi\x6ce('/etc/passwd') != ''":                             "file",
	"`fi\x6ce`('/etc/passwd') != ''":                           "file",
	"file\f('/etc/passwd') != ''":                              "file",
	"file\v('/etc/passwd') != ''":                              "file",
	"fi\\x6ce(1) != ''":                                        "syntax error",
	"joinGet('otelhouse.t', 'c', Body) = 1":                    "function joinGet",
	"dictGet('d', 'a', 1) = 1":                                 "function dictGet",
	"aiGenerate(Body) = ''":                                    "function aiGenerate",
	"sleepEachRow(3) = 0":                                      "function sleepEachRow",
	"udf(Body) = 1":                                            "function udf",
	"count() > 1":                                              "function count",
	"quantile(0.5)(Duration) > 1":                              "parametric",
	"count() OVER () > 1":                                      "window",
	"Body IN (SELECT Body FROM otelhouse.api_keys)":            "constant",
	"('a', 'b') IN otelhouse.api_teams":                        "constant",
	"Body IN api_keys":                                         "constant",
	"Body IN (Body)":                                           "constant",
	"Body IN lower(Body)":                                      "constant",
	"in(Body, api_keys)":                                       "constant",
	"globalIn(Body, 'x')":                                      "function globalIn",
	"Body GLOBAL IN ('x')":                                     "function globalIn",
	"EXISTS (SELECT 1)":                                        "sub-queries",
	"Body = (SELECT doc FROM otelhouse.api_resources LIMIT 1)": "sub-queries",
	"arrayExists((SELECT, doc, FROM) -> 1, Tags) AND CAST((SELECT doc FROM otelhouse.api_resources LIMIT 1) AS UInt64) = 1": "sub-queries",
	"arrayExists(x -> 1, Tags) AND x = 1":           `"x" is not a column`,
	"arrayExists(T.a -> 1, Tags)":                   "lambda",
	"1) GROUP BY Body # (":                          "syntax error",
	"1) SETTINGS max_threads = 1 --":                "syntax error",
	"(1":                                            "syntax error",
	"Body = 'x' -- and the rest":                    "",
	"Body = 'x'; DROP TABLE t":                      "syntax error",
	"Body = {p0:String}":                            "query parameters",
	"Body = $a$x$a$ AND `a$a$` = 1":                 `"a$a$" is not a column`,
	"Body = 'unterminated":                          "syntax error",
	"Body = 'x' SETTINGS max_threads = 1":           "syntax error",
	"Body AS x":                                     "aliases",
	"(Body AS b) = 'x' AND b = 'y'":                 "aliases",
	"CAST(Body AS String) = Body OR file('x') = ''": "file",
	"otelhouse.api_keys.hash = ''":                  `"otelhouse.api_keys.hash" is not a column`,
	"api_keys.hash = ''":                            "is not a column",
	"* = 1":                                         "COLUMNS",
	"COLUMNS('B') = 'x'":                            "COLUMNS",
	"Body.lower(Body) = 1":                          "Body.lower",
	"Body = 'x' AND Sévérité = 1":                   "syntax error",
}

func TestSQLWhereRefuses(t *testing.T) {
	db := chtest.DB(t)
	for cond, why := range refusedWheres {
		if why == "" {
			continue // accepted: the comment ends at the frame's line break
		}
		_, err := CheckSQLWhere(context.Background(), db, cond, whereCols, whereFns)
		if assert.Error(t, err, cond) {
			assert.Contains(t, err.Error(), why, cond)
			assert.NotContains(t, err.Error(), "EXPLAIN", "the statement's text is not the caller's")
		}
	}
}

// TestSQLWhereRendersItsOwnText: what runs is written from the checked
// tree, so nothing the user spelled (comments, escapes, spacing) reaches
// the query.
func TestSQLWhereRendersItsOwnText(t *testing.T) {
	db := chtest.DB(t)
	for cond, want := range map[string]string{
		"Body = 'x' -- and the rest":                    "(`equals`(`Body`, 'x'))",
		"SeverityText = 'it''s' AND Duration > 1.0":     "(`and`(`equals`(`SeverityText`, 'it\\'s'), `greater`(`Duration`, 1.0)))",
		"arrayExists(x -> x = 'y', Tags)":               "(`arrayExists`((`x`) -> `equals`(`x`, 'y'), `Tags`))",
		"T.a = 'x' AND LogAttributes['k'] IN ('a','b')": "(`and`(`equals`(`T`.`a`, 'x'), `in`(`arrayElement`(`LogAttributes`, 'k'), ('a', 'b'))))",
		"Body = 'tab\there\x01'":                        "(`equals`(`Body`, 'tab\\x09here\\x01'))",
	} {
		got, err := CheckSQLWhere(context.Background(), db, cond, whereCols, whereFns)
		require.NoError(t, err, cond)
		assert.Equal(t, want, got, cond)
	}
}

func TestSQLWhereTooLong(t *testing.T) {
	_, err := CheckSQLWhere(context.Background(), nil, strings.Repeat("1 AND ", MaxSQLWhere), whereCols, whereFns)
	var qe Error
	require.ErrorAs(t, err, &qe)
	assert.Contains(t, err.Error(), "at most")
}

// TestCatalogOnTheEngine reads the engine's own function catalogue: what
// users write is allowed, what reads beyond the source (files, other
// tables, settings) or sleeps is not.
func TestCatalogOnTheEngine(t *testing.T) {
	db := chtest.DB(t)
	c, err := catalogOf(context.Background(), db)
	require.NoError(t, err)
	for _, name := range []string{
		"lower", "LOWER", "match", "JSONExtractString", "has", "mapContains", "toStartOfHour",
		"position", "multiSearchAny", "if", "multiIf", "isNull", "CAST", "toUInt32", "coalesce", "transform", "lcase",
	} {
		assert.True(t, c.allows(name), name)
	}
	for _, name := range []string{
		"file", "joinGet", "joinGetOrNull", "dictGet", "dictHas", "hasColumnInTable", "getSetting",
		"getServerSetting", "sleep", "sleepEachRow", "catboostEvaluate", "naiveBayesClassifier", "aiGenerate", "addressToSymbol",
		"in", "notIn", "globalIn", "count", "currentUser", "getClientHTTPHeader", "regionToName", "__getScalar", "throwIf",
	} {
		assert.False(t, c.allows(name), name)
	}
}

// FuzzCheckSQLWhere: no input panics the check, and whatever it accepts,
// the engine parses, in the query it runs in, as a read of the source's
// table alone: one table, no sub-query, no SETTINGS.
func FuzzCheckSQLWhere(f *testing.F) {
	for _, cond := range acceptedWheres {
		f.Add(cond)
	}
	for _, cond := range refusedWheres {
		f.Add(cond)
	}
	f.Fuzz(func(t *testing.T, cond string) {
		db := chtest.DB(t)
		ctx := context.Background()
		checked, err := CheckSQLWhere(ctx, db, cond, whereCols, whereFns)
		if err != nil {
			return
		}
		dump, err := explainAST(ctx, db, "EXPLAIN AST SELECT count() FROM src.logs WHERE "+checked+" AND Body != ''")
		require.NoError(t, err, "accepted %q, rendered %q", cond, checked)
		root, err := parseASTDump(dump)
		require.NoError(t, err)
		tables := 0
		var walk func(n *astNode)
		walk = func(n *astNode) {
			switch n.kind {
			case "TableIdentifier":
				tables++
				require.Equal(t, "src.logs", n.detail, cond)
			case "Subquery", "Set", "TableFunction", "QueryParameter":
				t.Fatalf("accepted %q reads past its source: %s", cond, dump)
			}
			for _, c := range n.children {
				walk(c)
			}
		}
		walk(root)
		require.Equal(t, 1, tables, "accepted %q: %s", cond, dump)
	})
}
