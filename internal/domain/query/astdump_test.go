package query

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseASTDump(t *testing.T) {
	dump := "SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n  SelectQuery (children 2)\n" +
		"   ExpressionList (children 1)\n    Literal UInt64_1\n   Function equals (children 1)\n" +
		"    ExpressionList (children 2)\n     Identifier a b\n     Literal 'it\\'s'\n"
	root, err := parseASTDump(dump)
	require.NoError(t, err)
	cond, err := conditionOf(root)
	require.NoError(t, err)
	assert.Equal(t, "Function equals\n ExpressionList\n  Identifier a b\n  Literal 'it\\'s'\n", cond.String())

	for name, bad := range map[string]string{
		"fewer children than announced": "Function f (children 2)\n ExpressionList\n",
		"a name's line break":           "Function f (children 1)\n ExpressionList (children 1)\n  Identifier e\nf\n",
		"a name announcing children":    "Function f (children 1)\n ExpressionList (children 1)\n  Identifier a (children 1)\n",
		"a skipped level":               "Function f (children 1)\n   Identifier a\n",
		"not a node":                    "Function f (children 1)\n ()\n",
		"empty":                         "",
	} {
		_, err := parseASTDump(bad)
		assert.Error(t, err, name)
	}
}

func TestConditionOfRefusesMore(t *testing.T) {
	for name, dump := range map[string]string{
		"settings": "SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n  SelectQuery (children 3)\n" +
			"   ExpressionList (children 1)\n    Literal UInt64_1\n   Literal UInt64_1\n   Set\n",
		"union": "SelectWithUnionQuery (children 1)\n ExpressionList (children 2)\n  SelectQuery (children 1)\n" +
			"   ExpressionList (children 1)\n    Literal UInt64_1\n  SelectQuery (children 1)\n   ExpressionList (children 1)\n    Literal UInt64_1\n",
	} {
		root, err := parseASTDump(dump)
		require.NoError(t, err, name)
		_, err = conditionOf(root)
		assert.ErrorContains(t, err, "one condition", name)
	}
}

func TestLiterals(t *testing.T) {
	for in, want := range map[string]string{
		"NULL":                        "NULL",
		"'a\\'b\\\\c\\n\\x01'":        `'a\'b\\c\x0A\x01'`,
		"UInt64_18446744073709551615": "18446744073709551615",
		"Int64_-9223372036854775808":  "-9223372036854775808",
		"Float64_1":                   "1.0",
		"Float64_-0":                  "-0.0",
		"Float64_1.5e-7":              "1.5e-7",
		"Float64_inf":                 "inf",
		"Float64_nan":                 "nan",
		"Bool_0":                      "false",
		"Array_[Array_[UInt64_1, 'a'], Array_[]]": "[[1, 'a'], []]",
		"Tuple_(UInt64_1, NULL, 'x')":             "(1, NULL, 'x')",
	} {
		l, err := parseLiteral(in)
		require.NoError(t, err, in)
		var b strings.Builder
		writeLiteral(&b, l)
		assert.Equal(t, want, b.String(), in)
	}
	for _, bad := range []string{"'open", "UInt64_1x", "Decimal64_1", "Array_[UInt64_1", "Map_('a', UInt64_1)", "Bool_2", "x"} {
		_, err := parseLiteral(bad)
		assert.Error(t, err, bad)
	}
}
