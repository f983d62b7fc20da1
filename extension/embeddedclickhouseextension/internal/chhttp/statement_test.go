package chhttp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The places an INSERT's data may begin are offered in order; what is in
// literals, comments, quoted names, heredocs and parentheses is passed
// over, and '$' inside a name starts no heredoc.
func TestDataCandidates(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want []string // format@data
	}{
		{"SELECT 1 FORMAT CSV", nil},
		{"INSERT INTO t FORMAT CSV\n1,2", []string{"CSV@1,2"}},
		{"-- a\n/* b\n c /* d */ */ # e\nINSERT INTO t FORMAT CSV\r\n1,2", []string{"CSV@1,2"}},
		{"INSERT INTO t (format) FORMAT JSONEachRow {\"a\":1}", []string{"JSONEachRow@{\"a\":1}"}},
		{"INSERT INTO t VALUES ('the format x', 'values')", []string{"Values@ ('the format x', 'values')"}},
		{"INSERT INTO t SETTINGS a = 'format CSV' VALUES (1)", []string{"Values@ (1)"}},
		{"INSERT INTO t VALUES ($$ format x $$)", []string{"Values@ ($$ format x $$)"}},
		{"INSERT INTO a$a$ VALUES (1) -- $a$", []string{"Values@ (1) -- $a$"}},
		{"INSERT INTO t FORMAT\fCSV\t\n1", []string{"CSV@1"}},
		{"INSERT INTO t SELECT 1", nil},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			var got []string
			for _, c := range dataCandidates(tc.sql) {
				got = append(got, c.format+"@"+tc.sql[c.dataStart:])
			}
			assert.Equal(t, tc.want, got, tc.sql)
		})
	}
}

func TestEscapeParam(t *testing.T) {
	assert.Equal(t, `a\\b\nc\td\re\0`, escapeParam("a\\b\nc\td\re\x00"))
}
