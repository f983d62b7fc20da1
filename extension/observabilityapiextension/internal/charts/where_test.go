package charts

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
		{"level:error", "toString(SeverityText) = {p0:String}", map[string]string{"p0": "error"}},
		{`level:"out of memory"`, "toString(SeverityText) = {p0:String}", map[string]string{"p0": "out of memory"}},
		{"level:err*", "toString(SeverityText) ILIKE {p0:String}", map[string]string{"p0": "err%"}},
		{"-level:info", "NOT toString(SeverityText) = {p0:String}", map[string]string{"p0": "info"}},
		{"NOT level:info", "NOT toString(SeverityText) = {p0:String}", map[string]string{"p0": "info"}},
		{"level:error OR level:warn", "(toString(SeverityText) = {p0:String} OR toString(SeverityText) = {p1:String})", nil},
		{"timeout level:error", "(positionCaseInsensitiveUTF8(Body, {p0:String}) > 0 AND toString(SeverityText) = {p1:String})", nil},
		{"(level:error OR level:warn) AND Attr.team:core", "((toString(SeverityText) = {p0:String} OR toString(SeverityText) = {p1:String}) AND toString(LogAttributes[{p2:String}]) = {p3:String})", nil},
		{"duration:>100", "toFloat64OrNull(toString(Duration)) > {p0:Float64}", nil},
		{"duration:[10 TO 20]", "toFloat64OrNull(toString(Duration)) >= {p0:Float64} AND toFloat64OrNull(toString(Duration)) <= {p1:Float64}", nil},
		{"duration:42", "toFloat64(Duration) = {p0:Float64}", nil},
		{"Attr.user:*", "notEmpty(toString(LogAttributes[{p0:String}]))", nil},
		{`"two words"`, "positionCaseInsensitiveUTF8(Body, {p0:String}) > 0", map[string]string{"p0": "two words"}},
	}
	for _, tc := range cases {
		var p Params
		sql, err := Lucene(tc.q, testFields{}, &p)
		require.NoError(t, err, tc.q)
		assert.Equal(t, tc.sql, sql, tc.q)
		for k, v := range tc.params {
			assert.Equal(t, v, p.Values[k], tc.q)
		}
	}
}

func TestLuceneRejects(t *testing.T) {
	for _, q := range []string{"(level:error", "level:error)", "unknown:1", "duration:[1 20]", "NOT", "AND"} {
		var p Params
		_, err := Lucene(q, testFields{}, &p)
		assert.Error(t, err, q)
	}
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
