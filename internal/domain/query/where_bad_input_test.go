package query

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A value is bound in the engine's escaped parameter form, so what the
// user typed is what the engine compares with: before, a trailing
// backslash or a newline was an engine error and \t became a tab.
func TestParamsAreEscapedForTheEngine(t *testing.T) {
	var p Params
	for v, want := range map[string]string{
		"plain":       "plain",
		`C:\temp`:     `C:\\temp`,
		`ends\`:       `ends\\`,
		"a\nb\tc\rd":  `a\nb\tc\rd`,
		"nul\x00":     `nul\0`,
		`\N`:          `\\N`,
		"unicode é ✓": "unicode é ✓",
	} {
		ph := p.Add(v, "String")
		name := strings.TrimSuffix(strings.TrimPrefix(ph, "{"), ":String}")
		assert.Equal(t, want, p.Values[name], "%q", v)
		assert.Equal(t, v, unescapeParam(t, p.Values[name]), "round trip of %q", v)
	}
}

// unescapeParam reads a value as the engine reads an escaped String
// parameter (only the escapes escapeParam writes, which is all it may
// hold): a lone backslash at the end, or a raw tab or newline, fails.
func unescapeParam(t testing.TB, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\t', '\n':
			t.Fatalf("raw %q in parameter %q ends it early in the engine", c, s)
		case '\\':
			if i+1 == len(s) {
				t.Fatalf("parameter %q ends with a lone backslash", s)
			}
			i++
			switch s[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func TestLuceneBadInput(t *testing.T) {
	for q, why := range map[string]string{
		`boom\`:                            "ends with a backslash",
		`level:error \`:                    "ends with a backslash",
		"level:x\\ \t\n":                   "ends with a backslash",
		`"unclosed\`:                       "ends with a backslash",
		strings.Repeat("x", 64<<10+1):      "where is longer than 65536 bytes",
		strings.Repeat("a ", 40<<10):       "where is longer than 65536 bytes",
		strings.Repeat("x", MaxWhereBytes): "", // at the bound: accepted
	} {
		var p Params
		_, err := Lucene(q, testFields{}, &p)
		if why == "" {
			require.NoError(t, err)
			continue
		}
		if assert.Error(t, err, q[:min(len(q), 20)]) {
			assert.Contains(t, err.Error(), why)
		}
	}
	// A backslash elsewhere is a character to search for.
	var p Params
	sql, err := Lucene(`Attr.path:C:\temp "a\"b\\"`, testFields{}, &p)
	require.NoError(t, err)
	assert.Equal(t, "(toString(LogAttributes[{p0:String}]) ILIKE {p1:String} AND (hasTokenCaseInsensitive(Body, {p2:String}) AND hasTokenCaseInsensitive(Body, {p3:String}) AND positionCaseInsensitiveUTF8(Body, {p4:String}) > 0))", sql)
	assert.Equal(t, `%C:\\\\temp%`, p.Values["p1"], "a LIKE pattern's backslash, bound")
	assert.Equal(t, `a"b\\`, p.Values["p4"])
}

func TestCheckField(t *testing.T) {
	for _, ok := range []string{"a", "Attr.k", "résumé", "a b", strings.Repeat("k", 1024)} {
		require.NoError(t, CheckField(ok), ok)
	}
	for name, why := range map[string]string{
		"":                        "empty",
		"a\nb":                    "control character at byte 1",
		"tab\there":               "control character",
		"\x7f":                    "control character",
		strings.Repeat("k", 1025): "longer than 1024 bytes",
	} {
		err := CheckField(name)
		if assert.Error(t, err, "%q", name) {
			assert.Contains(t, err.Error(), why)
		}
	}
}

// The compiled SQL holds only the translator's own words and the fields'
// expressions; every user value is a {pN:Type} placeholder with a value.
var (
	placeholder = regexp.MustCompile(`\{(p[0-9]+):(String|Float64)\}`)
	sqlWords    = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*|[0-9]+`)
	ownWords    = map[string]bool{
		"SeverityText": true, "Duration": true, "LogAttributes": true, "Body": true,
		"toString": true, "toFloat64": true, "toFloat64OrNull": true, "positionCaseInsensitiveUTF8": true, "hasTokenCaseInsensitive": true,
		"indexHint": true, "mapContains": true,
		"notEmpty": true, "lower": true, "ILIKE": true, "NOT": true, "AND": true, "OR": true, "0": true, "1": true,
	}
)

// FuzzLucene: no input panics, and whatever is accepted compiles to SQL
// in which no user text appears outside a bound parameter, every
// placeholder has its value and every value is one the engine can read.
func FuzzLucene(f *testing.F) {
	for _, s := range []string{
		"", "level:error", `level:"out of memory"`, "level:err*", "-level:info",
		"NOT level:info OR (duration:>100 AND Attr.k:v)", "duration:[10 TO 20]", "Attr.user:*", `"two words"`,
		`boom\`, `a\\b`, `"a\"b"`, "x\ny", `Attr.a'b:c`, `'; DROP TABLE t; --`, "((((", "a:[1 TO", `"unclosed`,
		"level:{a TO b}", "-", "- -x", "duration:>=", "Attr.:x", ":x", "\x00", "é:ü*?",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		var p Params
		sql, err := Lucene(q, testFields{}, &p)
		if err != nil {
			return
		}
		used := map[string]bool{}
		rest := placeholder.ReplaceAllStringFunc(sql, func(ph string) string {
			used[placeholder.FindStringSubmatch(ph)[1]] = true
			return " "
		})
		if strings.ContainsAny(rest, "'\"`\\;{}#/-") || strings.IndexFunc(rest, func(r rune) bool { return r > unicode.MaxASCII || unicode.IsControl(r) }) >= 0 {
			t.Fatalf("%q compiled to %q: user text outside a parameter", q, sql)
		}
		for _, w := range sqlWords.FindAllString(rest, -1) {
			if !ownWords[w] {
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

// What a person types by mistake is refused with how to write it, never
// searched as written to find nothing without a word (issue 42.2).
func TestLuceneMistakesAreRefused(t *testing.T) {
	for q, why := range map[string]string{
		`service:`:                   `service: has no value`,
		`level:error service:`:       `service: has no value`,
		`Attr.status:>=abc`:          `compares with "abc", which is not a number`,
		`Attr.status:>`:              `needs a number after >`,
		`"unterminated`:              `the quote at position 0 is never closed`,
		`level:error Attr.k:"open x`: `the quote at position 19 is never closed`,
		`a:b:c`:                      `a:b:c has a second ':'`,
	} {
		var p Params
		_, err := Lucene(q, testFields{}, &p)
		if assert.Error(t, err, q) {
			assert.Contains(t, err.Error(), why, q)
		}
	}
	for _, q := range []string{
		`Attr.k:""`, `Attr.url:http://x/y`, `Attr.path:C:\temp`, `Attr.k:"a:b"`, `Attr.n:>=5`, `Attr.n:<-1.5`,
		`Attr.n:>*`, `Attr.t:>=2026-01-01T10:00:00`, `Attr.t:[2026-01-01T10:00:00 TO *]`, `"a \"quoted\" phrase"`,
	} {
		var p Params
		_, err := Lucene(q, testFields{}, &p)
		assert.NoError(t, err, q)
	}
}
