package logs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

var (
	now = time.Unix(1_800_000_000, 0).UTC()
	on  = Translator{DecodeJSONMessage: true, TraceIDs: true}
)

func TestAgentPayloadGolden(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "agent_payload.json"))
	require.NoError(t, err)
	ld, err := on.Translate(body, Defaults{}, now, nil)
	require.NoError(t, err)
	path := filepath.Join("testdata", "agent_payload.yaml")
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		require.NoError(t, golden.WriteLogsToFile(path, ld))
	}
	want, err := golden.ReadLogs(path)
	require.NoError(t, err)
	require.NoError(t, plogtest.CompareLogs(want, ld, plogtest.IgnoreResourceLogsOrder()))

	// The records keep their strings after the batch that made them is
	// reused for other payloads.
	for i := 0; i < 3; i++ {
		_, err := on.Translate(benchLogs(), Defaults{}, now, nil)
		require.NoError(t, err)
	}
	require.NoError(t, plogtest.CompareLogs(want, ld, plogtest.IgnoreResourceLogsOrder()))
}

// one translates a single object and returns its only record and resource.
func one(t *testing.T, tr Translator, body string, d Defaults) (plog.LogRecord, map[string]any) {
	t.Helper()
	ld, err := tr.Translate([]byte(body), d, now, nil)
	require.NoError(t, err)
	require.Equal(t, 1, ld.LogRecordCount())
	rl := ld.ResourceLogs().At(0)
	return rl.ScopeLogs().At(0).LogRecords().At(0), rl.Resource().Attributes().AsRaw()
}

func TestSeverities(t *testing.T) {
	cases := map[string]plog.SeverityNumber{
		"trace": plog.SeverityNumberTrace, "debug": plog.SeverityNumberDebug, "info": plog.SeverityNumberInfo,
		"notice": plog.SeverityNumberInfo2, "warn": plog.SeverityNumberWarn, "Warning": plog.SeverityNumberWarn,
		"error": plog.SeverityNumberError, "err": plog.SeverityNumberError, "critical": plog.SeverityNumberFatal2,
		"alert": plog.SeverityNumberFatal3, "emergency": plog.SeverityNumberFatal4, "fatal": plog.SeverityNumberFatal,
		"3": plog.SeverityNumberError, "bogus": plog.SeverityNumberUnspecified,
	}
	for status, want := range cases {
		lr, _ := one(t, on, `{"message":"m","status":"`+status+`"}`, Defaults{})
		assert.Equal(t, want, lr.SeverityNumber(), status)
		assert.Equal(t, status, lr.SeverityText())
	}
}

func TestTimestamps(t *testing.T) {
	cases := map[string]int64{
		`1700000000123`:            1_700_000_000_123_000_000, // Datadog's milliseconds
		`"1700000000123"`:          1_700_000_000_123_000_000,
		`1700000000`:               1_700_000_000_000_000_000, // seconds
		`1700000000123456`:         1_700_000_000_123_456_000, // µs
		`"2023-11-14T22:13:20.5Z"`: 1_700_000_000_500_000_000,
		`1700000000123456789`:      1_700_000_000_123_456_768, // float64 precision of ns input
	}
	for in, want := range cases {
		lr, _ := one(t, on, `{"message":"m","timestamp":`+in+`}`, Defaults{})
		assert.InDelta(t, want, int64(lr.Timestamp()), 1000, in)
		assert.Equal(t, pcommon.NewTimestampFromTime(now), lr.ObservedTimestamp())
	}
	lr, _ := one(t, on, `{"message":"no time"}`, Defaults{})
	assert.Equal(t, pcommon.NewTimestampFromTime(now), lr.Timestamp(), "receive time, never the epoch")
}

// A time the store (DateTime64(9): 1970 to 2262-04-11 for pdata) cannot
// hold is not read as the record's time: before, 1e300 became whatever the
// float conversion gave and ms past 2262 wrapped to 1677. The record takes
// the receive time and keeps the field as it came, as an attribute.
func TestUnstorableTimestamps(t *testing.T) {
	for in, attr := range map[string]any{
		`1e300`:                  1e300,
		`9300000000000`:          int64(9_300_000_000_000),     // ms: year 2264
		`9300000000000000`:       int64(9_300_000_000_000_000), // µs: year 2264
		`18446744073709551615`:   18446744073709551615.0,       // 2^64-1 ns
		`9223372036854775808`:    9223372036854775808.0,        // 2^63 ns
		`"1e300"`:                "1e300",
		`"2263-01-01T00:00:00Z"`: "2263-01-01T00:00:00Z",
		`"1969-12-31T23:59:59Z"`: "1969-12-31T23:59:59Z",
		`"0001-01-01T00:00:00Z"`: "0001-01-01T00:00:00Z",
	} {
		lr, _ := one(t, on, `{"message":"m","timestamp":`+in+`}`, Defaults{})
		assert.Equal(t, pcommon.NewTimestampFromTime(now), lr.Timestamp(), in)
		v, ok := lr.Attributes().Get("timestamp")
		if assert.True(t, ok, "%s kept as an attribute", in) {
			assert.Equal(t, attr, v.AsRaw(), in)
		}
	}
	// The last storable instants still are times.
	lr, _ := one(t, on, `{"message":"m","timestamp":"2262-04-11T23:47:16Z"}`, Defaults{})
	assert.Equal(t, time.Date(2262, 4, 11, 23, 47, 16, 0, time.UTC), lr.Timestamp().AsTime())
	lr, _ = one(t, on, `{"message":"m","timestamp":9200000000000}`, Defaults{})
	assert.Equal(t, int64(9_200_000_000_000_000_000), int64(lr.Timestamp()), "ms in 2261")
}

func TestTraceIDs(t *testing.T) {
	cases := []struct{ name, fields, trace, span string }{
		{"decimal low half", `"dd.trace_id":"1234","dd.span_id":"5678"`, "000000000000000000000000000004d2", "000000000000162e"},
		{"split 128-bit", `"dd.trace_id":"1234","_dd.p.tid":"640cfd8d00000000"`, "640cfd8d0000000000000000000004d2", ""},
		{"full decimal", `"dd.trace_id":"132877905423286052834108813735952925906"`, "63f75a8c18ed090a3bd9e3b8307044d2", ""},
		{"hex 128", `"dd.trace_id":"0af7651916cd43dd8448eb211c80319c","dd.span_id":"b7ad6b7169203331"`, "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"},
		{"number", `"dd.trace_id":1234`, "000000000000000000000000000004d2", ""},
		{"nested dd", `"dd":{"trace_id":"1234","span_id":"99"}`, "000000000000000000000000000004d2", "0000000000000063"},
		{"garbage", `"dd.trace_id":"xyz!"`, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lr, _ := one(t, on, `{"message":"m",`+tc.fields+`}`, Defaults{})
			trace, span := "", ""
			if !lr.TraceID().IsEmpty() {
				trace = lr.TraceID().String()
			}
			if !lr.SpanID().IsEmpty() {
				span = lr.SpanID().String()
			}
			assert.Equal(t, tc.trace, trace, tc.name)
			assert.Equal(t, tc.span, span, tc.name)
			_, leaked := lr.Attributes().Get("dd.trace_id")
			assert.False(t, leaked, tc.name)
		})
	}
	off := Translator{DecodeJSONMessage: true}
	lr, _ := one(t, off, `{"message":"m","dd.trace_id":"1234"}`, Defaults{})
	assert.True(t, lr.TraceID().IsEmpty())
	v, ok := lr.Attributes().Get("dd.trace_id")
	assert.True(t, ok, "kept as an attribute when mapping is off")
	assert.Equal(t, "1234", v.Str())
}

func TestResourceFromTagsAndQuery(t *testing.T) {
	lr, res := one(t, on, `{"message":"m","ddtags":"kube_cluster_name:c1,container_id:abc,team:x"}`,
		Defaults{Tags: "env:dev,version:3", Source: "python", Service: "api", Hostname: "h1"})
	assert.Equal(t, map[string]any{
		"host.name": "h1", "service.name": "api", "deployment.environment.name": "dev", "service.version": "3",
		"k8s.cluster.name": "c1", "container.id": "abc", "datadog.log.source": "python",
	}, res)
	assert.Equal(t, map[string]any{"team": "x"}, lr.Attributes().AsRaw())
}

func TestMultiValuedTags(t *testing.T) {
	lr, _ := one(t, on, `{"message":"m","ddtags":"team:a,team:b,team:c,solo"}`, Defaults{})
	assert.Equal(t, []any{"a", "b", "c"}, lr.Attributes().AsRaw()["team"])
	assert.Empty(t, lr.Attributes().AsRaw()["solo"], "a bare tag is a key with an empty value")
}

// A resource tag given twice, or under two Datadog names for one
// attribute, keeps every value.
func TestRepeatedResourceTags(t *testing.T) {
	_, res := one(t, on, `{"message":"m","ddtags":"zone:a,kube_namespace:ns,availability-zone:b,kube_namespace:ns2"}`, Defaults{})
	assert.Equal(t, map[string]any{
		"cloud.availability_zone": []any{"a", "b"}, "k8s.namespace.name": []any{"ns", "ns2"},
	}, res)
}

func TestJSONMessage(t *testing.T) {
	msg := `{\"message\":\"done\",\"level\":\"warn\",\"ts\":1700000000,\"service\":\"svc\",\"k\":{\"a\":[1,2]}}`
	lr, res := one(t, on, `{"message":"`+msg+`","status":"info"}`, Defaults{})
	assert.Equal(t, "done", lr.Body().Str())
	assert.Equal(t, plog.SeverityNumberWarn, lr.SeverityNumber(), "the message's level wins over the agent default")
	assert.Equal(t, int64(1_700_000_000_000_000_000), int64(lr.Timestamp()))
	assert.Equal(t, "svc", res["service.name"])
	assert.Equal(t, []any{int64(1), int64(2)}, lr.Attributes().AsRaw()["k.a"], "nested, flattened; the array kept whole")

	off := Translator{TraceIDs: true}
	lr, _ = one(t, off, `{"message":"`+msg+`"}`, Defaults{})
	assert.Equal(t, `{"message":"done","level":"warn","ts":1700000000,"service":"svc","k":{"a":[1,2]}}`, lr.Body().Str()) //nolint:testifylint // the exact text, not only the same JSON

	// An access log's HTTP status is an attribute, not the level.
	lr, _ = one(t, on, `{"message":"{\"level\":\"warn\",\"status\":200,\"msg\":\"x\"}"}`, Defaults{})
	assert.Equal(t, plog.SeverityNumberWarn, lr.SeverityNumber())
	assert.Equal(t, int64(200), lr.Attributes().AsRaw()["status"])
	lr, _ = one(t, on, `{"message":"{\"status\":\"done\",\"msg\":\"x\"}","status":"error"}`, Defaults{})
	assert.Equal(t, plog.SeverityNumberError, lr.SeverityNumber())
	assert.Equal(t, "done", lr.Attributes().AsRaw()["status"])

	lr, _ = one(t, on, `{"message":"{not json"}`, Defaults{})
	assert.Equal(t, "{not json", lr.Body().Str())
}

func TestShapes(t *testing.T) {
	ld, err := on.Translate([]byte(`  `), Defaults{}, now, nil)
	require.NoError(t, err)
	assert.Equal(t, 0, ld.LogRecordCount())
	ld, err = on.Translate([]byte(`[]`), Defaults{}, now, nil)
	require.NoError(t, err)
	assert.Equal(t, 0, ld.LogRecordCount())
	for _, bad := range []string{`[1,2]`, `"str"`, `{"message":`, `[{"a":1},"x"]`, `nul`} {
		_, err := on.Translate([]byte(bad), Defaults{}, now, nil)
		assert.Error(t, err, bad)
	}
}

func TestGrouping(t *testing.T) {
	body := `[{"message":"a","hostname":"h","service":"s"},{"message":"b","hostname":"h","service":"s"},{"message":"c","hostname":"h","service":"t"}]`
	ld, err := on.Translate([]byte(body), Defaults{}, now, nil)
	require.NoError(t, err)
	require.Equal(t, 2, ld.ResourceLogs().Len())
	assert.Equal(t, 2, ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().Len())
}

// TestMutationsNeverPanic feeds corrupted and truncated payloads (fixed
// seed and count): each must either translate or fail with an error.
func TestMutationsNeverPanic(t *testing.T) {
	seed, err := os.ReadFile(filepath.Join("testdata", "agent_payload.json"))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte(`{}[]":,\0123456789.eE-+ tfnul` + "\x00\xff")
	for i := 0; i < 30000; i++ {
		b := append([]byte(nil), seed...)
		for k := 0; k < 1+r.IntN(6); k++ {
			b[r.IntN(len(b))] = alphabet[r.IntN(len(alphabet))]
		}
		if r.IntN(3) == 0 {
			b = b[:r.IntN(len(b))]
		}
		ld, err := on.Translate(b, Defaults{Tags: "env:x"}, now, nil)
		if err == nil {
			assert.LessOrEqual(t, ld.LogRecordCount(), 3)
		}
	}
}

func FuzzTranslateLogs(f *testing.F) {
	seed, _ := os.ReadFile(filepath.Join("testdata", "agent_payload.json"))
	f.Add(seed)
	f.Add([]byte(`{"message":"{\"dd\":{\"trace_id\":\"1\"}}"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, err := on.Translate(body, Defaults{Tags: "a:b"}, now, nil)
		// The scanner is as strict as encoding/json, except that it keeps
		// raw control characters inside strings and takes a blank body for
		// no records.
		if err == nil && !json.Valid(body) && len(bytes.TrimSpace(body)) > 0 &&
			!bytes.ContainsFunc(body, func(r rune) bool { return r < 0x20 }) {
			t.Fatalf("accepted invalid JSON %q", body)
		}
	})
}

// TestConcurrentBatchesAgree translates one payload from several
// goroutines at once: the tag-list cache and the batch free list are
// shared, and every result must equal the sequential one.
func TestConcurrentBatchesAgree(t *testing.T) {
	body := benchLogs()
	want, err := on.Translate(body, Defaults{Tags: "team:core"}, now, nil)
	require.NoError(t, err)
	var wg sync.WaitGroup
	results := make([]plog.Logs, 8)
	for i := range results {
		wg.Go(func() {
			for k := 0; k < 5; k++ {
				results[i], _ = on.Translate(body, Defaults{Tags: "team:core"}, now, nil)
			}
		})
	}
	wg.Wait()
	for _, got := range results {
		require.NoError(t, plogtest.CompareLogs(want, got))
	}
}

// TestWideRecordsAreLinear: a record with 50,000 fields, an object of
// 50,000 members and a tag repeated 30,000 times keeps them all (pdata's
// own puts are quadratic: seconds for this, hours at the body limit).
func TestWideRecordsAreLinear(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`[{"message":"m"`)
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&sb, `,"k%d":%d`, i, i)
	}
	sb.WriteString(`,"nested":{`)
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&sb, `"n%d":"v",`, i)
	}
	sb.WriteString(`"last":true}}]`)
	lr, _ := one(t, on, sb.String(), Defaults{Tags: strings.Repeat("team:x,", 30000)})
	attrs := lr.Attributes()
	assert.Equal(t, 50000+2, attrs.Len()) // the fields, nested, team
	v, _ := attrs.Get("k49999")
	assert.Equal(t, int64(49999), v.Int())
	nested, _ := attrs.Get("nested")
	assert.Equal(t, 50001, nested.Map().Len())
	team, _ := attrs.Get("team")
	assert.Equal(t, 30000, team.Slice().Len())
}

// TestPooledBatchesStartEmpty: a batch goes back to the pool with its
// scratch emptied (single-object bodies once let it grow per request).
func TestPooledBatchesStartEmpty(t *testing.T) {
	for i := 0; i < 3; i++ {
		lr, _ := one(t, on, `{"message":"a \"quoted\" line"}`, Defaults{})
		assert.Equal(t, `a "quoted" line`, lr.Body().Str())
	}
	b := batches.Get()
	defer batches.Put(b)
	assert.Empty(t, b.tmp)
}
