package otlpbudgetextension

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configmiddleware"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/otelhouse/otelhouse/internal/budget"
)

// host hands the receiver its middleware extension, as the service does.
type host struct {
	ext map[component.ID]component.Component
}

func (h host) GetExtensions() map[component.ID]component.Component { return h.ext }

var budgetID = component.MustNewID("otlp_budget")

func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// startOTLP runs the collector's own OTLP receiver on loopback, its HTTP
// and gRPC servers wrapped by the middleware, logs into a sink; it returns
// the HTTP logs URL.
func startOTLP(t testing.TB, limit int64, maxBody int64) (string, *consumertest.LogsSink) {
	url, _, sink := startOTLPBoth(t, limit, maxBody)
	return url, sink
}

// startOTLPBoth is startOTLP that also returns the gRPC server's address.
func startOTLPBoth(t testing.TB, limit int64, maxBody int64) (url, grpcAddr string, sink *consumertest.LogsSink) {
	t.Helper()
	ext, err := NewFactory().Create(context.Background(), extensiontest.NewNopSettings(NewFactory().Type()), &Config{MaxDecodedSize: limit})
	require.NoError(t, err)
	require.NoError(t, ext.Start(context.Background(), nil))

	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	addr := freeAddr(t)
	srv := &cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig
	srv.NetAddr.Endpoint = addr
	srv.MaxRequestBodySize = maxBody
	srv.Middlewares = []configmiddleware.Config{{ID: budgetID}}
	grpcAddr = freeAddr(t)
	gs := cfg.Protocols.GRPC.GetOrInsertDefault()
	gs.NetAddr.Endpoint = grpcAddr
	gs.Middlewares = []configmiddleware.Config{{ID: budgetID}}
	sink = new(consumertest.LogsSink)
	rcv, err := f.CreateLogs(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, rcv.Start(context.Background(), host{map[component.ID]component.Component{budgetID: ext}}))
	t.Cleanup(func() {
		require.NoError(t, rcv.Shutdown(context.Background()))
		require.NoError(t, ext.Shutdown(context.Background()))
	})
	return "http://" + addr + "/v1/logs", grpcAddr, sink
}

func post(t *testing.T, url, contentType, encoding string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// emptyRecords is an ExportLogsServiceRequest of n empty log records, two
// bytes each on the wire.
func emptyRecords(n int) []byte {
	records := bytes.Repeat([]byte{0x12, 0x00}, n) // ScopeLogs.log_records
	scope := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), records)
	return protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), scope)
}

// realLogs is what an SDK sends: records with a body and attributes.
func realLogs(_ testing.TB, n int) plogotlp.ExportRequest {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "checkout")
	sl := rl.ScopeLogs().AppendEmpty()
	for i := range n {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetSeverityText("INFO")
		lr.Body().SetStr(fmt.Sprintf("order %d placed for customer %d", i, i*7))
		for _, k := range []string{"http.method", "http.route", "user.id", "cart.items", "region"} {
			lr.Attributes().PutStr(k, fmt.Sprintf("%s-%d", k, i%10))
		}
	}
	return plogotlp.NewExportRequestFromLogs(ld)
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// TestHostileBodiesAreRefusedBeforeDecoding: 2 MB of empty records would
// be 1.5 million log records (about 250 MB); the middleware answers 413
// having allocated little more than the body, and nothing is decoded.
func TestHostileBodiesAreRefusedBeforeDecoding(t *testing.T) {
	const limit = 16 << 20
	url, sink := startOTLP(t, limit, 20<<20)
	pbBody := emptyRecords(1_000_000)
	jsonBody := []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[` + strings.Repeat("{},", 300_000) + `{}]}]}]}`)
	for _, c := range []struct {
		name, contentType, encoding string
		body                        []byte
	}{
		{"protobuf", "application/x-protobuf", "", pbBody},
		{"protobuf, gzip", "application/x-protobuf", "gzip", gzipped(pbBody)},
		{"JSON", "application/json", "", jsonBody},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			status, body := post(t, url, c.contentType, c.encoding, c.body)
			runtime.ReadMemStats(&after)
			assert.Equal(t, http.StatusRequestEntityTooLarge, status, body)
			assert.Contains(t, body, "otlp_budget max_decoded_size")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8*len(pbBody)), "bytes allocated")
		})
	}
	assert.Zero(t, sink.LogRecordCount())
}

// TestRealBodiesPass: what SDKs send goes through unchanged, estimated at a
// few times its size; a bound of 0 counts nothing.
func TestRealBodiesPass(t *testing.T) {
	req := realLogs(t, 20_000)
	pbBody, err := req.MarshalProto()
	require.NoError(t, err)
	jsonBody, err := req.MarshalJSON()
	require.NoError(t, err)

	url, sink := startOTLP(t, 256<<20, 20<<20)
	status, body := post(t, url, "application/x-protobuf", "gzip", gzipped(pbBody))
	assert.Equal(t, http.StatusOK, status, body)
	status, body = post(t, url, "application/json", "", jsonBody)
	assert.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, 40_000, sink.LogRecordCount())

	// Estimated at about five times the protobuf's size and eleven times
	// the JSON's (JSON has no schema: every object counts as a struct), so
	// a full 20 MiB body of either fits the default 256 MiB.
	pbSize, jsonSize := int64(len(pbBody)), int64(len(jsonBody))
	assert.NoError(t, budget.New(6*pbSize).Proto(requests["/v1/logs"], pbBody))
	assert.Error(t, budget.New(3*pbSize).Proto(requests["/v1/logs"], pbBody), "not under-estimated either")
	assert.NoError(t, budget.New(12*jsonSize).JSON(jsonBody, budget.Node))

	unbounded, sink := startOTLP(t, 0, 20<<20)
	status, body = post(t, unbounded, "application/x-protobuf", "", emptyRecords(10_000))
	assert.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, 10_000, sink.LogRecordCount())
}

// TestReceiverErrorsStayTheReceivers: a body over max_request_body_size is
// answered by the receiver as without the middleware.
func TestReceiverErrorsStayTheReceivers(t *testing.T) {
	url, _ := startOTLP(t, 256<<20, 1000)
	status, body := post(t, url, "application/x-protobuf", "", emptyRecords(1000))
	assert.Equal(t, http.StatusBadRequest, status, body)
	assert.Contains(t, body, "request body too large")
	assert.NotContains(t, body, "otlp_budget")

	status, _ = post(t, url, "application/x-protobuf", "", []byte{0xff, 0xff})
	assert.Equal(t, http.StatusBadRequest, status, "malformed protobuf is the receiver's 400")
}

func TestConfigValidate(t *testing.T) {
	assert.NoError(t, createDefaultConfig().(*Config).Validate())
	assert.Equal(t, int64(256<<20), createDefaultConfig().(*Config).MaxDecodedSize)
	assert.ErrorContains(t, (&Config{MaxDecodedSize: -1}).Validate(), "max_decoded_size")
}

// BenchmarkOTLPLogs posts 1000 SDK-like records per request through the
// receiver, with the middleware counting and with it off.
func BenchmarkOTLPLogs(b *testing.B) {
	body, err := realLogs(nil, 1000).MarshalProto()
	require.NoError(b, err)
	for name, limit := range map[string]int64{"budget": 256 << 20, "off": 0} {
		b.Run(name, func(b *testing.B) {
			url, sink := startOTLP(b, limit, 20<<20)
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				sink.Reset()
				resp, err := http.Post(url, "application/x-protobuf", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/record")
		})
	}
}

// raw sends bytes as they are, so a test can post what no SDK would build.
type raw struct{}

func (raw) Name() string { return "proto" }
func (raw) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}
func (raw) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

// TestGRPC: the same bounds over OTLP/gRPC, where the message is refused
// in the codec, before pdata decodes it; real requests pass.
func TestGRPC(t *testing.T) {
	const limit = 16 << 20
	_, addr, sink := startOTLPBoth(t, limit, 20<<20)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()

	hostile := emptyRecords(1_500_000) // 3 MB, within gRPC's 4 MiB
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var reply []byte
	err = conn.Invoke(context.Background(), "/opentelemetry.proto.collector.logs.v1.LogsService/Export", &hostile, &reply,
		grpc.ForceCodecV2(raw{}))
	runtime.ReadMemStats(&after)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "otlp_budget max_decoded_size")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8*len(hostile)), "bytes allocated")
	assert.Zero(t, sink.LogRecordCount())

	_, err = plogotlp.NewGRPCClient(conn).Export(context.Background(), realLogs(t, 5000))
	require.NoError(t, err)
	assert.Equal(t, 5000, sink.LogRecordCount())
}
