package charts

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFormula(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	values := []*float64{f(6), f(2), nil, f(0)}
	for _, tc := range []struct {
		expr string
		want *float64 // evaluated over values
		err  string
	}{
		{"A / B * 100", f(300), ""},
		{"A / (A + B) * 100", f(75), ""},
		{"-A + 2 * B", f(-2), ""},
		{"--A", f(6), ""},
		{".5 * A", f(3), ""},
		{"A + C", nil, ""}, // a missing operand
		{"A / D", nil, ""}, // by zero
		{"A +", nil, "Unexpected end of expression"},
		{"(A", nil, "Missing closing parenthesis"},
		{"A)", nil, "Unmatched closing parenthesis"},
		{"A B", nil, `Unexpected series reference "B"`},
		{"E * 2", nil, `Unknown series "E" — this chart only has series A through D`},
		{"1 + 2", nil, "Expression must reference at least one series"},
		{"abs(A)", nil, `Unexpected "abs"`},
		{"AB", nil, "series references are single letters"},
		{"A % B", nil, `Unexpected character "%"`},
		{"  ", nil, "Expression is empty"},
	} {
		got, err := ParseFormula(tc.expr, len(values))
		if tc.err != "" {
			require.Error(t, err, tc.expr)
			assert.Contains(t, err.Error(), tc.err, tc.expr)
			continue
		}
		require.NoError(t, err, tc.expr)
		assert.Equal(t, tc.want, got.Eval(values), tc.expr)
	}
	// Nesting is bounded rather than recursed without end.
	deep := ""
	for range 1000 {
		deep += "("
	}
	_, err := ParseFormula(deep+"A", 1)
	assert.ErrorContains(t, err, "nests deeper")
}
