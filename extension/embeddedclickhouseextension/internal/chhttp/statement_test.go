package chhttp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMultiStatement(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want bool
	}{
		{"SELECT 1", false},
		{"SELECT 1;", false},
		{"SELECT 1;  -- done\n /* really */ ", false},
		{"SELECT 1; SELECT 2", true},
		{"SELECT 1;SET readonly = 1", true},
		{"SELECT ';' AS a, \"b;c\" , `d;e`", false},
		{"SELECT 'it''s; fine', 'back\\'slash;'", false},
		{"SELECT 1 -- ; SET x = 1\n", false},
		{"SELECT 1 # ; SET x = 1\n", false},
		{"SELECT 1 /* outer /* inner; */ still; */", false},
		{"SELECT $tag$ ; $tag$, $$;$$", false},
		{"SELECT 1; 'x'", true},
		{"INSERT INTO t VALUES ('a;b'), ('c')", false},
		{"SELECT 'unterminated; SET x = 1", false},
	} {
		assert.Equal(t, tc.want, multiStatement(tc.sql), tc.sql)
	}
}

func TestSessionEffect(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want effect
	}{
		{"SELECT 1", effectNone},
		{"set max_threads = 1", effectSettings},
		{"/* c */ -- d\n# e\n  SET readonly = 1", effectSettings},
		{"USE system", effectDatabase},
		{"CREATE TEMPORARY TABLE t (x UInt8)", effectTemporary},
		{"create or replace temporary table t (x UInt8)", effectTemporary},
		{"CREATE TABLE t (x UInt8) ENGINE = Memory", effectNone},
		{"SELECT * FROM t SETTINGS max_threads = 1", effectNone},
		{"(SELECT 1)", effectNone},
		{"", effectNone},
	} {
		assert.Equal(t, tc.want, sessionEffect(tc.sql), tc.sql)
	}
}

// Only what reads goes through the engine's streaming API, which refuses
// SHOW, DESCRIBE and DDL.
func TestStreams(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want bool
	}{
		{"SELECT 1", true},
		{"/* c */ -- d\n  select * FROM t", true},
		{"WITH x AS (SELECT 1) SELECT * FROM x", true},
		{"(SELECT 1) UNION ALL (SELECT 2)", true},
		{"SHOW TABLES", false},
		{"DESCRIBE TABLE t", false},
		{"INSERT INTO t SELECT 1", false},
		{"CREATE TABLE t (x UInt8) ENGINE = Memory", false},
		{"", false},
	} {
		assert.Equal(t, tc.want, streams(tc.sql), tc.sql)
	}
}

// An INSERT's data is found past any leading comment the lexer knows,
// multi-line and nested ones included.
func TestParseStatementSkipsLeadingComments(t *testing.T) {
	for _, q := range []string{
		"INSERT INTO t FORMAT CSV\n1,2",
		"-- a\n/* b\n c /* d */ */ # e\nINSERT INTO t FORMAT CSV\n1,2",
	} {
		st := parseStatement(q)
		assert.True(t, st.insert, q)
		assert.Equal(t, "CSV", st.format, q)
		assert.Equal(t, "1,2", st.inline, q)
	}
}
