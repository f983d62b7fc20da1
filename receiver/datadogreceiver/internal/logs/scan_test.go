package logs

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScannerAcceptsWhatEncodingJSONAccepts mutates a payload many times
// (fixed seed): the translator must fail exactly when encoding/json calls
// the text invalid. Raw control characters are left out of the alphabet:
// the scanner keeps them inside strings, as agents never send them.
func TestScannerAcceptsWhatEncodingJSONAccepts(t *testing.T) {
	seed, err := os.ReadFile(filepath.Join("testdata", "agent_payload.json"))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte(`{}[]":,\/0123456789.eE-+ tfnulrbu` + "\xff")
	valid, invalid := 0, 0
	for i := 0; i < 20000; i++ {
		b := append([]byte(nil), seed...)
		for k := 0; k < 1+r.IntN(3); k++ {
			b[r.IntN(len(b))] = alphabet[r.IntN(len(alphabet))]
		}
		ld, err := on.Translate(b, Defaults{}, now, nil)
		if !json.Valid(b) {
			invalid++
			assert.Error(t, err, "accepted invalid JSON: %s", b)
			continue
		}
		var shape []map[string]any
		if json.Unmarshal(b, &shape) != nil {
			continue // valid JSON, but not an array of objects
		}
		valid++
		if assert.NoError(t, err, "refused valid JSON: %s", b) {
			assert.Equal(t, len(shape), ld.LogRecordCount())
		}
	}
	assert.Greater(t, valid, 1000)
	assert.Greater(t, invalid, 1000)
}

// TestStringsDecodeLikeEncodingJSON round-trips random strings (quotes,
// backslashes, control characters, astral runes, lone surrogates) through
// json.Marshal and the scanner.
func TestStringsDecodeLikeEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{`"`, `\`, "/", "\n", "\t", "\x01", "\u2028", "é", "😀", "a", "bc", "<>&", " "}
	for i := 0; i < 5000; i++ {
		var sb strings.Builder
		for k := r.IntN(12); k > 0; k-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		want := sb.String()
		enc, err := json.Marshal(want)
		require.NoError(t, err)
		var tmp []byte
		s := scanner{buf: enc, tmp: &tmp}
		assert.Equal(t, want, string(s.str()), "%s", enc)
		require.NoError(t, s.err)
	}
	for in, want := range map[string]string{
		`"\ud83d\ude00"`: "😀", `"\ud83d"`: "\ufffd", `"\ud83dx"`: "\ufffdx", `"\u00e9\/"`: "é/",
		`"\ude00\ud83d"`: "\ufffd\ufffd", `"\u0041\u0042"`: "AB",
	} {
		var tmp []byte
		s := scanner{buf: []byte(in), tmp: &tmp}
		assert.Equal(t, want, string(s.str()), in)
		var std string
		require.NoError(t, json.Unmarshal([]byte(in), &std))
		assert.Equal(t, std, want, "encoding/json agrees on %s", in)
	}
}

func TestNestingIsBounded(t *testing.T) {
	deep := `[{"a":` + strings.Repeat("[", maxDepth+5) + strings.Repeat("]", maxDepth+5) + `}]`
	_, err := on.Translate([]byte(deep), Defaults{}, now, nil)
	assert.ErrorContains(t, err, "nested deeper")

	ok := `[{"a":` + strings.Repeat(`{"b":`, maxDepth-2) + `1` + strings.Repeat("}", maxDepth-2) + `}]`
	ld, err := on.Translate([]byte(ok), Defaults{}, now, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, ld.LogRecordCount())
}

func TestScannerErrorsSayWhere(t *testing.T) {
	for body, want := range map[string]string{
		`[{"message":"a"} {"message":"b"}]`: "expected ',' or ']' in an array at offset 17",
		`[{"message":"a\q"}]`:               `invalid escape \q at offset 14`,
		`[{"message":01}]`:                  "expected ',' or '}' in an object at offset 13",
		`[{"message":"a"}]x`:                "unexpected data after the logs JSON at offset 17",
		`[{"message":tru}]`:                 "invalid literal, expected true at offset 12",
	} {
		_, err := on.Translate([]byte(body), Defaults{}, now, nil)
		assert.ErrorContains(t, err, want, body)
	}
}

// TestNumbersReadLikeStrconv checks the hand-read number paths against
// strconv on random and edge-case JSON numbers, bit for bit.
func TestNumbersReadLikeStrconv(t *testing.T) {
	nums := []string{"0", "-0", "0.0", "-0.0", "0.5", "1.0", "12.817", "-3.25", "1748736000.123",
		"999999999999999", "99999999999999.9", "9999999999999999", "0.000000000000001",
		"0.1234567890123456", "123456789012345.6", "1e3", "1.5E-7", "-2.5e+300", "1e400", "0.30000000000000004"}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		var sb strings.Builder
		if r.IntN(4) == 0 {
			sb.WriteByte('-')
		}
		sb.WriteString(strconv.FormatUint(r.Uint64N(1_000_000_000_000), 10))
		if r.IntN(8) > 0 {
			sb.WriteByte('.')
			for k := 1 + r.IntN(10); k > 0; k-- {
				sb.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		nums = append(nums, sb.String())
	}
	for _, n := range nums {
		want, _ := strconv.ParseFloat(n, 64)
		got := float([]byte(n))
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("float(%q) = %v (%#x), strconv says %v (%#x)", n, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}
