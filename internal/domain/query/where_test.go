package query

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testFields knows two columns and treats Attr.* as a map.
type testFields struct{}

func (testFields) Resolve(name string, p *Params) (string, bool, error) {
	switch name {
	case "level":
		return "SeverityText", false, nil
	case "duration":
		return "Duration", true, nil
	}
	if k, ok := strings.CutPrefix(name, "Attr."); ok {
		return "LogAttributes[" + p.Add(k, "String") + "]", false, nil
	}
	return "", false, fmt.Errorf("unknown field %q", name)
}

func (testFields) Body() string { return "Body" }

func TestLucene(t *testing.T) {
	cases := []struct {
		q, sql string
		params map[string]string
	}{
		{"", "1", nil},
		// Unquoted, a field holds the value, in any case (HyperDX's
		// field:value); quoted, it is the value.
		{"level:error", "toString(SeverityText) ILIKE {p0:String}", map[string]string{"p0": "%error%"}},
		{`level:"out of memory"`, "toString(SeverityText) = {p0:String}", map[string]string{"p0": "out of memory"}},
		{"level:err*", "toString(SeverityText) ILIKE {p0:String}", map[string]string{"p0": "%err%"}},
		{"level:a_b%c", "toString(SeverityText) ILIKE {p0:String}", map[string]string{"p0": `%a\\_b\\%c%`}},
		{"-level:info", "NOT toString(SeverityText) ILIKE {p0:String}", map[string]string{"p0": "%info%"}},
		{"NOT level:info", "NOT toString(SeverityText) ILIKE {p0:String}", map[string]string{"p0": "%info%"}},
		// The dash before a quoted value negates it too (it was lost).
		{`-level:"info"`, "NOT toString(SeverityText) = {p0:String}", map[string]string{"p0": "info"}},
		{`-"two"`, "NOT hasTokenCaseInsensitive(Body, {p0:String})", nil},
		{"level:error OR level:warn", "(toString(SeverityText) ILIKE {p0:String} OR toString(SeverityText) ILIKE {p1:String})", nil},
		// A bare word is a whole word of the body, in any case.
		{"timeout level:error", "(hasTokenCaseInsensitive(Body, {p0:String}) AND toString(SeverityText) ILIKE {p1:String})", nil},
		{"(level:error OR level:warn) AND Attr.team:core", "((toString(SeverityText) ILIKE {p0:String} OR toString(SeverityText) ILIKE {p1:String}) AND toString(LogAttributes[{p2:String}]) ILIKE {p3:String})", nil},
		{"duration:>100", "toFloat64OrNull(toString(Duration)) > {p0:Float64}", nil},
		{"duration:[10 TO 20]", "(toFloat64OrNull(toString(Duration)) >= {p0:Float64} AND toFloat64OrNull(toString(Duration)) <= {p1:Float64})", nil},
		{"-duration:[10 TO 20]", "NOT (toFloat64OrNull(toString(Duration)) >= {p0:Float64} AND toFloat64OrNull(toString(Duration)) <= {p1:Float64})", nil},
		// A chain is one flat AND/OR, as the engine reads it, not a
		// nesting as deep as it is long.
		{"a b c level:x OR d", "((hasTokenCaseInsensitive(Body, {p0:String}) AND hasTokenCaseInsensitive(Body, {p1:String}) AND hasTokenCaseInsensitive(Body, {p2:String}) AND toString(SeverityText) ILIKE {p3:String}) OR hasTokenCaseInsensitive(Body, {p4:String}))", nil},
		{"duration:42", "toFloat64(Duration) = {p0:Float64}", nil},
		{"Attr.user:*", "notEmpty(toString(LogAttributes[{p0:String}]))", nil},
		// A phrase, or a term of several words: each word whole, and the
		// text as written.
		{
			`"two words"`, "(hasTokenCaseInsensitive(Body, {p0:String}) AND hasTokenCaseInsensitive(Body, {p1:String}) AND positionCaseInsensitiveUTF8(Body, {p2:String}) > 0)",
			map[string]string{"p0": "two", "p1": "words", "p2": "two words"},
		},
		{
			"user-42", "(hasTokenCaseInsensitive(Body, {p0:String}) AND hasTokenCaseInsensitive(Body, {p1:String}) AND positionCaseInsensitiveUTF8(Body, {p2:String}) > 0)",
			map[string]string{"p0": "user", "p1": "42", "p2": "user-42"},
		},
		{"@@", "positionCaseInsensitiveUTF8(Body, {p0:String}) > 0", map[string]string{"p0": "@@"}},
		// A bare wildcard term matches the whole body as a pattern.
		{"time*", "Body ILIKE {p0:String}", map[string]string{"p0": "time%"}},
		{"*timeout*", "Body ILIKE {p0:String}", map[string]string{"p0": "%timeout%"}},
		{"*bar", "Body ILIKE {p0:String}", map[string]string{"p0": "%bar"}},
		{"b?r", "Body ILIKE {p0:String}", map[string]string{"p0": "b_r"}},
		// HyperDX's field:( … ) group: its terms are the field's values;
		// a leading or trailing * anchors, a quoted phrase is held.
		{"level:(err warn)", "(toString(SeverityText) ILIKE {p0:String} AND toString(SeverityText) ILIKE {p1:String})", map[string]string{"p0": "%err%", "p1": "%warn%"}},
		{"level:(err*)", "toString(SeverityText) ILIKE {p0:String}", map[string]string{"p0": "err%"}},
		{"level:(*or)", "toString(SeverityText) ILIKE {p0:String}", map[string]string{"p0": "%or"}},
		{`-level:("out of")`, "NOT toString(SeverityText) ILIKE {p0:String}", map[string]string{"p0": "%out of%"}},
		{"level:(a OR Attr.k:(b)) c", "((toString(SeverityText) ILIKE {p0:String} OR toString(LogAttributes[{p1:String}]) ILIKE {p2:String}) AND hasTokenCaseInsensitive(Body, {p3:String}))", nil},
	}
	for _, tc := range cases {
		t.Run(tc.q, func(t *testing.T) {
			var p Params
			sql, err := Lucene(tc.q, testFields{}, &p)
			require.NoError(t, err, tc.q)
			assert.Equal(t, tc.sql, sql, tc.q)
			for k, v := range tc.params {
				assert.Equal(t, v, p.Values[k], tc.q)
			}
		})
	}
}

func TestLuceneRejects(t *testing.T) {
	for _, q := range []string{"(level:error", "level:error)", "unknown:1", "duration:[1 20]", "NOT", "AND", "level:(a", "level:()"} {
		var p Params
		_, err := Lucene(q, testFields{}, &p)
		assert.Error(t, err, q)
	}
}

// The query is bounded with a reason. Before, each NOT or - recopied the
// whole compiled text (20,000 dashes took 0.4 s, a 1 MiB body hours) and
// every AND nested one level deeper than the engine's parser accepts.
func TestLuceneIsBounded(t *testing.T) {
	for q, why := range map[string]string{
		strings.Repeat("-", 60_000) + "x":                         "nested deeper than 64 levels",
		strings.Repeat("NOT ", 65) + "x":                          "nested deeper than 64 levels",
		strings.Repeat("(", 65) + "x" + strings.Repeat(")", 65):   "nested deeper than 64 levels",
		strings.Repeat("level:x AND ", 1000) + "x":                "more than 2000 terms and operators",
		strings.TrimSuffix(strings.Repeat("x OR ", 1001), " OR "): "more than 2000 terms and operators",
	} {
		var p Params
		_, err := Lucene(q, testFields{}, &p)
		if assert.Error(t, err, q[:20]) {
			assert.Contains(t, err.Error(), why, q[:20])
		}
	}
	var p Params
	sql, err := Lucene(strings.Repeat("NOT ", 63)+"x "+strings.Repeat("level:x ", 1900), testFields{}, &p)
	require.NoError(t, err, "63 NOTs and 1,901 terms are within the bounds")
	assert.Equal(t, 1900, strings.Count(sql, " AND "))
	assert.NotContains(t, sql, "((", "one flat chain")
}

// TestNothingReachesSQL: whatever the input, values and keys only appear
// as bound parameters.
func TestNothingReachesSQL(t *testing.T) {
	for _, q := range []string{`level:"x') OR 1=1 --"`, `Attr.a'b:c`, `'; DROP TABLE t; --`, `level:\" OR 1=1`} {
		var p Params
		sql, err := Lucene(q, testFields{}, &p)
		if err != nil {
			continue
		}
		assert.NotContains(t, sql, "'", q)
		assert.NotContains(t, sql, "DROP", q)
		assert.NotContains(t, sql, "1=1", q)
	}
}
