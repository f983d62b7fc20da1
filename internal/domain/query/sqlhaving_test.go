package query

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// havingAliases are a tile's select aliases as the query names them.
var havingAliases = map[string]string{"p95": "__s0", "errors": "__s1", "Duration": "__s2"}

// TestSQLHavingRenders: aggregates over columns and aliases are accepted
// and written from the tree, each alias as the query's name for it.
func TestSQLHavingRenders(t *testing.T) {
	db := chtest.DB(t)
	for cond, want := range map[string]string{
		"count() > 10":                                  "(`greater`(`count`(), 10))",
		"COUNT(*) >= 2":                                 "(`greaterOrEquals`(`COUNT`(*), 2))",
		"p95 > 250 AND errors = 0":                      "(`and`(`greater`(`__s0`, 250), `equals`(`__s1`, 0)))",
		"quantile(0.9)(Duration) > 1":                   "(`greater`(`quantile`(0.9)(`Duration`), 1))",
		"countIf(SeverityText = 'error') > 0":           "(`greater`(`countIf`(`equals`(`SeverityText`, 'error')), 0))",
		"count(DISTINCT Body) > 1":                      "(`greater`(`countDistinct`(`Body`), 1))",
		"uniqExact(LogAttributes['k']) BETWEEN 1 AND 3": "(`and`(`greaterOrEquals`(`uniqExact`(`arrayElement`(`LogAttributes`, 'k')), 1), `lessOrEquals`(`uniqExact`(`arrayElement`(`LogAttributes`, 'k')), 3)))",
		"Duration > 5":                                  "(`greater`(`__s2`, 5))",
		"sum(Duration) / count() > 2 OR if(max(Duration) > 1, 1, 0) = 1": "(`or`(`greater`(`divide`(`sum`(`Duration`), `count`()), 2), `equals`(`if`(`greater`(`max`(`Duration`), 1), 1, 0), 1)))",
	} {
		got, err := CheckSQLHaving(context.Background(), db, cond, whereCols, havingFns, havingAliases)
		if assert.NoError(t, err, cond) {
			assert.Equal(t, want, got, cond)
		}
	}
}

// havingFns is whereFns with division, which a ratio of aggregates uses.
var havingFns = NewCatalog(append(whereFnList(), Function{"divide", false, "Arithmetic"}))

func whereFnList() []Function {
	var out []Function
	for name := range whereFns.exact {
		out = append(out, Function{Name: name, Categories: "Arithmetic"})
	}
	for name := range whereFns.folded {
		out = append(out, Function{Name: name, CaseInsensitive: true, Categories: "Arithmetic"})
	}
	return out
}

// TestSQLHavingRefuses: what a where refuses, a having refuses too; and
// a column outside an aggregate, an aggregate in an aggregate, a window.
func TestSQLHavingRefuses(t *testing.T) {
	db := chtest.DB(t)
	for cond, why := range map[string]string{
		"ServiceName = 'api'":                                `"ServiceName" is not a select item's alias`,
		"count() > 1 AND nosuch > 1":                         `"nosuch" is not a select item's alias`,
		"sum(nosuch) > 1":                                    `"nosuch" is not a column`,
		"max(count()) > 1":                                   "inside another aggregate",
		"count() OVER () > 1":                                "window",
		"quantile(Duration)(Duration) > 1":                   "parameters must be constants",
		"groupArray(1) = []":                                 "function groupArray",
		"percentiles(Duration, 0.5) > 100":                   "function percentiles is not allowed in a having",
		"quantiles(0.5)(Duration)[1] > 1":                    "function quantiles is not allowed in a having",
		"sum(length(file('/etc/passwd'))) > 1":               "file",
		"count() > (SELECT count() FROM otelhouse.api_keys)": "sub-queries",
		"count() IN api_keys":                                "constant",
		"count() > 1 SETTINGS max_threads = 1":               "syntax error",
		"count() AS c > 1":                                   "aliases",
		"count() > {p:UInt8}":                                "query parameters",
		"1) GROUP BY Body HAVING (1":                         "one condition",
		"sum(Duration) > 1; DROP TABLE t":                    "syntax error",
		"countIf(Body IN (SELECT doc FROM otelhouse.t)) > 0": "constant",
		"anyLast(dictGet('d', 'a', 1)) = 1":                  "function dictGet",
		"count() > 1 AND sleepEachRow(3) = 0":                "function sleepEachRow",
	} {
		_, err := CheckSQLHaving(context.Background(), db, cond, whereCols, havingFns, havingAliases)
		var qe Error
		if assert.ErrorAs(t, err, &qe, cond) {
			assert.Contains(t, err.Error(), why, cond)
			assert.NotContains(t, err.Error(), "EXPLAIN", cond)
		}
	}
}

// TestSQLHavingOnTheEngine runs checked havings over grouped rows: they
// keep the groups that satisfy them.
func TestSQLHavingOnTheEngine(t *testing.T) {
	db := chtest.DB(t)
	cols := map[string]string{"g": "String", "v": "UInt64"}
	c, err := catalogOf(context.Background(), db)
	require.NoError(t, err)
	for cond, want := range map[string]string{
		"count() > 2":                       "b",
		"total < 3":                         "a",
		"quantile(0.5)(v) >= 20 AND 1 = 1":  "b",
		"countIf(v > 25) = 1 OR total = 99": "b",
	} {
		h, err := CheckSQLHaving(context.Background(), db, cond, cols, c, map[string]string{"total": "__s0"})
		require.NoError(t, err, cond)
		var got string
		require.NoError(t, db.QueryRow("SELECT arrayStringConcat(groupArray(g)) FROM (SELECT g, toFloat64(sum(v)) AS __s0 FROM"+
			" values('g String, v UInt64', ('a', 1), ('b', 10), ('b', 20), ('b', 30)) GROUP BY g HAVING "+h+" ORDER BY g)").Scan(&got), cond)
		assert.Equal(t, want, got, cond)
	}
}
