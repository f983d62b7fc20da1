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

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
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
			require.Error(t, err, "accepted invalid JSON: %s", b)
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
		assert.Equal(t, want, std, "encoding/json agrees on %s", in)
	}
}

func TestNestingIsBounded(t *testing.T) {
	deep := `[{"a":` + strings.Repeat("[", maxDepth+5) + strings.Repeat("]", maxDepth+5) + `}]`
	_, err := on.Translate([]byte(deep), Defaults{}, now, nil)
	require.ErrorContains(t, err, "nested deeper")

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
	nums := []string{
		"0", "-0", "0.0", "-0.0", "0.5", "1.0", "12.817", "-3.25", "1748736000.123",
		"999999999999999", "99999999999999.9", "9999999999999999", "0.000000000000001",
		"0.1234567890123456", "123456789012345.6", "1e3", "1.5E-7", "-2.5e+300", "1e400", "0.30000000000000004",
	}
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

// randomJSON writes a random JSON value: Datadog's reserved names among
// the keys, nesting, every scalar kind, raw blanks between tokens and, now
// and then, a string that needs escaping.
func randomJSON(r *rand.Rand, sb *strings.Builder, depth int) {
	blank := func() {
		if r.IntN(6) == 0 {
			sb.WriteString([]string{" ", "  ", "\t"}[r.IntN(3)])
		}
	}
	str := func() {
		pieces := []string{
			"info", "warn", "error", "svc", "host-1", "dd", "a b", "é", "1700000000", "12",
			"ab12cd34ef56ab78", "u-519129", `\"`, `\\`, `\n`, `\u00e9`, `\/`,
		}
		sb.WriteByte('"')
		for k := r.IntN(3); k >= 0; k-- {
			p := pieces[r.IntN(len(pieces))]
			if strings.HasPrefix(p, `\`) && r.IntN(4) > 0 {
				continue // escapes are the rarer case
			}
			sb.WriteString(p)
		}
		sb.WriteByte('"')
	}
	blank()
	switch n := r.IntN(10); {
	case depth < 3 && n < 3:
		keys := []string{
			"message", "msg", "log", "level", "status", "timestamp", "ts", "host", "service",
			"dd", "ddtags", "ddsource", "dd.trace_id", "trace_id", "span_id", "dd.service", "k", "nested",
		}
		sb.WriteByte('{')
		for k := r.IntN(6); k > 0; k-- {
			blank()
			sb.WriteString(`"` + keys[r.IntN(len(keys))] + `"`)
			blank()
			sb.WriteByte(':')
			randomJSON(r, sb, depth+1)
			if k > 1 {
				sb.WriteByte(',')
			}
		}
		blank()
		sb.WriteByte('}')
	case depth < 3 && n == 3:
		sb.WriteByte('[')
		for k := r.IntN(4); k > 0; k-- {
			randomJSON(r, sb, depth+1)
			if k > 1 {
				sb.WriteByte(',')
			}
		}
		sb.WriteByte(']')
	case n < 7:
		str()
	case n == 7:
		sb.WriteString([]string{"200", "-3.25", "1700000000123", "1e3", "0", "4"}[r.IntN(6)])
	default:
		sb.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	}
	blank()
}

// translateBoth translates body with JSON messages lifted in place and
// with them unescaped first.
func translateBoth(body []byte) (lifted, twoStep plog.Logs, liftErr, twoStepErr error) {
	lifted, liftErr = on.Translate(body, Defaults{}, now, nil)
	liftMessages = false
	defer func() { liftMessages = true }()
	twoStep, twoStepErr = on.Translate(body, Defaults{}, now, nil)
	return
}

// TestLiftedMessagesMatchTwoStep: a JSON message read in place must give
// exactly what unescaping it and reading the copy gives, for random
// messages (objects, other values, escapes inside, a second "message")
// and for random corruptions of them.
func TestLiftedMessagesMatchTwoStep(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	lifted := 0
	for i := 0; i < 20000; i++ {
		var sb strings.Builder
		randomJSON(r, &sb, 0)
		msg := sb.String()
		if r.IntN(3) > 0 {
			// Mostly objects, as structured loggers write them.
			sb.Reset()
			sb.WriteByte('{')
			randomJSON(r, &sb, 2)
			msg = `{"msg":` + sb.String()[1:] + `,"level":"warn","dd":{"trace_id":"12","span_id":"34","service":"s","x":[1,{"y":null}]},"n":{"a":[true]}}`
		}
		enc, err := json.Marshal(msg)
		require.NoError(t, err)
		body := `[{"status":"info","message":` + string(enc) + `,"service":"web"}]`
		if r.IntN(5) == 0 {
			body = `[{"message":` + string(enc) + `,"message":"{\"level\":\"error\"}"}]`
		}
		b := []byte(body)
		switch r.IntN(6) {
		case 0, 1:
			alphabet := []byte(`{}[]":,\ 0a`)
			b[r.IntN(len(b))] = alphabet[r.IntN(len(alphabet))]
		case 2:
			n := r.IntN(len(b))
			b = b[:n:n] // truncated, with nothing readable past the end
		}
		got, want, gotErr, wantErr := translateBoth(b)
		if wantErr != nil {
			require.EqualError(t, gotErr, wantErr.Error(), "%s", b)
			continue
		}
		require.NoError(t, gotErr, "%s", b)
		require.NoError(t, plogtest.CompareLogs(want, got), "%s", b)
		if strings.Contains(body, `"message":"{`) && !strings.Contains(msg, `\`) {
			lifted++
		}
	}
	assert.Greater(t, lifted, 5000, "most messages are read in place")
}

// TestLiftedMessageInPlace checks what the scanner reads in place and what
// it leaves to unescaping.
func TestLiftedMessageInPlace(t *testing.T) {
	for msg, ok := range map[string]bool{
		`{"a":"b","c":{"d":[1,"e"]}}`: true,
		` {"a":1}`:                    false, // not an object from its first byte
		`{"a":1} `:                    true,
		`{"a":"x\"y"}`:                false, // an escape inside: unescaped first
		"{\n\"a\":1}":                 false,
		`{"a":1}x`:                    false,
		`{"a":1`:                      false,
		`{}`:                          true,
		`{"a":{"b":`:                  false,
	} {
		enc, err := json.Marshal(msg)
		require.NoError(t, err)
		var tmp []byte
		var members []field
		s := scanner{buf: enc, tmp: &tmp, lift: &members}
		raw, lifted := s.liftMessage()
		require.Equal(t, ok, lifted, msg)
		if ok {
			assert.Equal(t, len(enc), s.pos, "after the string")
			assert.Equal(t, strings.TrimSpace(msg), strings.TrimSpace(string(unquote(nil, raw))))
		} else {
			assert.Equal(t, 0, s.pos, "nothing read")
		}
	}
}

// FuzzLiftedMessage holds the in-place reading of JSON messages equal to
// unescaping them first, on any body.
func FuzzLiftedMessage(f *testing.F) {
	f.Add([]byte(`[{"message":"{\"dd\":{\"trace_id\":\"1\"},\"msg\":\"m\",\"k\":[1,{\"a\":null}]}"}]`))
	f.Add([]byte(`{"message":"{\"a\":\"x\\\"y\"}","message":"{}"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, want, gotErr, wantErr := translateBoth(body)
		if wantErr != nil {
			if gotErr == nil || gotErr.Error() != wantErr.Error() {
				t.Fatalf("two-step: %v, lifted: %v", wantErr, gotErr)
			}
			return
		}
		if gotErr != nil {
			t.Fatalf("two-step accepts, lifted: %v", gotErr)
		}
		if err := plogtest.CompareLogs(want, got); err != nil {
			t.Fatal(err)
		}
	})
}
