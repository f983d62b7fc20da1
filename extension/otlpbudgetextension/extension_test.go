package otlpbudgetextension

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/bearertokenauthextension"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configauth"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configmiddleware"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	"go.uber.org/zap"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	budgetmetadata "github.com/otelhouse/otelhouse/extension/otlpbudgetextension/internal/metadata"
	"github.com/otelhouse/otelhouse/extension/otlpbudgetextension/internal/metadatatest"
	"github.com/otelhouse/otelhouse/internal/runtime/admission"
	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// host hands the receiver its middleware extension, as the service does.
type host struct {
	ext map[component.ID]component.Component
}

func (h host) GetExtensions() map[component.ID]component.Component { return h.ext }

var budgetID = component.MustNewID("otlp_budget")

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// startOTLP runs the collector's own OTLP receiver on loopback, its HTTP
// and gRPC servers wrapped by the middleware, logs into a sink; it returns
// the HTTP logs URL.
func startOTLP(t testing.TB, limit int64, maxBody int64) (string, *consumertest.LogsSink) {
	t.Helper()
	url, _, sink := startOTLPBoth(t, limit, maxBody)
	return url, sink
}

// startOTLPBoth is startOTLP that also returns the gRPC server's address.
func startOTLPBoth(t testing.TB, limit int64, maxBody int64) (url, grpcAddr string, sink *consumertest.LogsSink) {
	t.Helper()
	cfg := createDefaultConfig().(*Config)
	cfg.MaxDecodedSize, cfg.MaxDecodedInFlight = limit, 0
	sink = new(consumertest.LogsSink)
	url, grpcAddr, _, _ = startReceiver(t, cfg, maxBody, sink, nil)
	return url, grpcAddr, sink
}

// startReceiver runs the OTLP receiver with the middleware configured by
// cfg, logs into next; with token set, both servers also require it
// (bearertokenauth), as the shipped config does with OTLP_AUTH_TOKEN.
// The returned telemetry holds the middleware's own metrics.
func startReceiver(t testing.TB, cfg *Config, maxBody int64, next consumer.Logs, token *string) (url, grpcAddr string, tt *componenttest.Telemetry, ext *budgetExtension) {
	t.Helper()
	require.NoError(t, cfg.Validate())
	exts := map[component.ID]component.Component{}
	tt = componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tt.Shutdown(context.Background())) })
	created, err := NewFactory().Create(context.Background(), metadatatest.NewSettings(tt), cfg)
	require.NoError(t, err)
	ext = created.(*budgetExtension)
	exts[budgetID] = ext
	authID := component.MustNewID("bearertokenauth")
	if token != nil {
		af := bearertokenauthextension.NewFactory()
		acfg := af.CreateDefaultConfig().(*bearertokenauthextension.Config)
		acfg.BearerToken = configopaque.String(*token)
		auth, err := af.Create(context.Background(), extensiontest.NewNopSettings(af.Type()), acfg)
		require.NoError(t, err)
		exts[authID] = auth
	}
	for _, e := range exts {
		require.NoError(t, e.Start(context.Background(), nil))
	}

	// A port found free may be taken (by another test process's client)
	// before the receiver binds it: then the receiver tries other ports.
	var rcv receiver.Logs
	var addr string
	for attempt := 0; ; attempt++ {
		f := otlpreceiver.NewFactory()
		rcfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
		addr = freeAddr(t)
		srv := &rcfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig
		srv.NetAddr.Endpoint = addr
		srv.MaxRequestBodySize = maxBody
		srv.Middlewares = []configmiddleware.Config{{ID: budgetID}}
		grpcAddr = freeAddr(t)
		gs := rcfg.Protocols.GRPC.GetOrInsertDefault()
		gs.NetAddr.Endpoint = grpcAddr
		gs.Middlewares = []configmiddleware.Config{{ID: budgetID}}
		if token != nil {
			srv.Auth = configoptional.Some(confighttp.AuthConfig{Config: configauth.Config{AuthenticatorID: authID}})
			gs.Auth = configoptional.Some(configauth.Config{AuthenticatorID: authID})
		}
		var err error
		rcv, err = f.CreateLogs(context.Background(), receivertest.NewNopSettings(f.Type()), rcfg, next)
		require.NoError(t, err)
		err = rcv.Start(context.Background(), host{exts})
		if err != nil && errors.Is(err, syscall.EADDRINUSE) && attempt < 10 {
			require.NoError(t, rcv.Shutdown(context.Background()))
			continue
		}
		require.NoError(t, err)
		break
	}
	t.Cleanup(func() {
		require.NoError(t, rcv.Shutdown(context.Background()))
		for _, e := range exts {
			require.NoError(t, e.Shutdown(context.Background()))
		}
	})
	return "http://" + addr + "/v1/logs", grpcAddr, tt, ext
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
	require.NoError(t, budget.New(6*pbSize).Proto(requests["/v1/logs"], pbBody))
	require.Error(t, budget.New(3*pbSize).Proto(requests["/v1/logs"], pbBody), "not under-estimated either")
	require.NoError(t, budget.New(12*jsonSize).JSON(jsonBody, budget.Node))

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
	def := createDefaultConfig().(*Config)
	require.NoError(t, def.Validate())
	assert.Equal(t, &Config{MaxDecodedSize: 256 << 20, MaxDecodedInFlight: 1 << 30, MaxRequestWait: 5 * time.Second, RetryAfterSeconds: 1}, def)
	require.NoError(t, (&Config{}).Validate(), "0 everywhere: no bounds")
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{MaxDecodedSize: -1}, "max_decoded_size must not be negative"},
		{Config{MaxDecodedInFlight: -1}, "max_decoded_in_flight must not be negative"},
		{Config{MaxDecodedSize: 2 << 20, MaxDecodedInFlight: 1 << 20}, "must be at least max_decoded_size"},
		{Config{MaxRequestWait: -time.Second}, "max_request_wait"},
		{Config{RetryAfterSeconds: -1}, "retry_after_seconds"},
		{Config{GoMemoryLimit: -1}, "go_memory_limit"},
	} {
		t.Run(c.want, func(t *testing.T) {
			assert.ErrorContains(t, c.cfg.Validate(), c.want)
		})
	}
}

// BenchmarkOTLPLogs posts 1000 SDK-like records per request through the
// receiver, with the middleware's defaults (both bounds) and with it off.
func BenchmarkOTLPLogs(b *testing.B) {
	body, err := realLogs(nil, 1000).MarshalProto()
	require.NoError(b, err)
	for name, cfg := range map[string]*Config{"budget": createDefaultConfig().(*Config), "off": {}} {
		b.Run(name, func(b *testing.B) {
			sink := new(consumertest.LogsSink)
			url, _, _, _ := startReceiver(b, cfg, 20<<20, sink, nil)
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
	cfg := createDefaultConfig().(*Config)
	cfg.MaxDecodedSize = 16 << 20
	sink := new(consumertest.LogsSink)
	_, addr, tt, _ := startReceiver(t, cfg, 20<<20, sink, nil)
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
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "as gRPC's own answer to a message over its size limit: not retried")
	assert.Contains(t, err.Error(), "otlp_budget max_decoded_size")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8*len(hostile)), "bytes allocated")
	assert.Zero(t, sink.LogRecordCount())
	assertRefused(t, tt, "max_decoded_size", "grpc")

	_, err = plogotlp.NewGRPCClient(conn).Export(context.Background(), realLogs(t, 5000))
	require.NoError(t, err)
	assert.Equal(t, 5000, sink.LogRecordCount())
}

// assertRefused checks that exactly one request was counted refused, by
// the bound and transport given.
func assertRefused(t *testing.T, tt *componenttest.Telemetry, bound, transport string) {
	t.Helper()
	metadatatest.AssertEqualOtlpBudgetRefusedRequests(t, tt, []metricdata.DataPoint[int64]{{
		Value:      1,
		Attributes: attribute.NewSet(attribute.String("bound", bound), attribute.String("transport", transport)),
	}}, metricdatatest.IgnoreTimestamp())
}

// gate is a logs consumer that holds each batch until the test lets it
// through, so that requests stay in flight.
type gate struct {
	entered chan int
	release chan struct{}
}

func newGate() *gate { return &gate{entered: make(chan int, 16), release: make(chan struct{}, 16)} }

// open lets every batch through from now on: a cleanup, registered after
// the receiver's so that it runs first, or a failed test would leave the
// receiver's shutdown waiting on a held request.
func (g *gate) open() { close(g.release) }

// admitted returns the record count of the next batch to reach the
// consumer, failing if none does in time.
func (g *gate) admitted(t testing.TB) int {
	t.Helper()
	select {
	case n := <-g.entered:
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the pipeline")
		return 0
	}
}

func (g *gate) consumer(t testing.TB) consumer.Logs {
	t.Helper()
	c, err := consumer.NewLogs(func(_ context.Context, ld plog.Logs) error {
		g.entered <- ld.LogRecordCount()
		<-g.release
		return nil
	})
	require.NoError(t, err)
	return c
}

// weight is what a body takes from max_decoded_in_flight.
func weight(t testing.TB, body []byte) int64 {
	t.Helper()
	bud := budget.New(1 << 40)
	require.NoError(t, bud.Proto(requests["/v1/logs"], body))
	return bud.Used() + int64(len(body))
}

type answer struct {
	status     int
	retryAfter string
	body       string
	err        error
}

func postAsync(url string, body []byte) <-chan answer {
	done := make(chan answer, 1)
	go func() {
		resp, err := http.Post(url, "application/x-protobuf", bytes.NewReader(body))
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), body: string(b)}
	}()
	return done
}

// await is the answer to a request, failing the test if none comes in
// time (a request held in the pipeline never answers).
func await(t testing.TB, ch <-chan answer) answer {
	t.Helper()
	select {
	case a := <-ch:
		require.NoError(t, a.err)
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
		return answer{}
	}
}

// inFlightConfig admits one request of the given weight at a time, not
// two, and lets the second wait briefly.
func inFlightConfig(w int64) *Config {
	cfg := createDefaultConfig().(*Config)
	cfg.MaxDecodedSize, cfg.MaxDecodedInFlight, cfg.MaxRequestWait = w, w*3/2, 200*time.Millisecond
	return cfg
}

// TestInFlightBoundHTTP: while one request is decoded and consumed, a
// second that would take the sum past max_decoded_in_flight waits, then is
// answered 429 with Retry-After, which SDKs retry; once the first is
// answered its room is free again.
func TestInFlightBoundHTTP(t *testing.T) {
	body, err := realLogs(t, 2000).MarshalProto()
	require.NoError(t, err)
	g := newGate()
	url, _, tt, _ := startReceiver(t, inFlightConfig(weight(t, body)), 20<<20, g.consumer(t), nil)
	t.Cleanup(g.open)

	first := postAsync(url, body)
	assert.Equal(t, 2000, g.admitted(t), "the first request is in the pipeline")
	second := await(t, postAsync(url, body))
	assert.Equal(t, http.StatusTooManyRequests, second.status, second.body)
	assert.Equal(t, "1", second.retryAfter)
	assert.Contains(t, second.body, "otlp_budget max_decoded_in_flight")
	assertRefused(t, tt, "max_decoded_in_flight", "http")

	g.release <- struct{}{}
	a := await(t, first)
	assert.Equal(t, http.StatusOK, a.status, a.body)

	third := postAsync(url, body)
	assert.Equal(t, 2000, g.admitted(t), "admitted: the first gave its room back")
	g.release <- struct{}{}
	a = await(t, third)
	assert.Equal(t, http.StatusOK, a.status, a.body)
}

// TestInFlightBoundGRPC: the same over gRPC, where the second message is
// not decoded and is answered UNAVAILABLE with RetryInfo, which the
// collector's exporters and the SDKs retry.
func TestInFlightBoundGRPC(t *testing.T) {
	req := realLogs(t, 2000)
	body, err := req.MarshalProto()
	require.NoError(t, err)
	g := newGate()
	_, addr, tt, _ := startReceiver(t, inFlightConfig(weight(t, body)), 20<<20, g.consumer(t), nil)
	t.Cleanup(g.open)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	client := plogotlp.NewGRPCClient(conn)
	// A request held in the pipeline never answers: every call has a
	// deadline, so a broken bound fails the test instead of hanging it.
	export := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := client.Export(ctx, req)
		return err
	}

	first := make(chan error, 1)
	go func() { first <- export() }()
	assert.Equal(t, 2000, g.admitted(t))
	err = export()
	st := status.Convert(err)
	assert.Equal(t, codes.Unavailable, st.Code(), "%v", err)
	assert.Contains(t, st.Message(), "otlp_budget max_decoded_in_flight")
	require.Len(t, st.Details(), 1)
	info, ok := st.Details()[0].(*errdetails.RetryInfo)
	require.True(t, ok, "%T", st.Details()[0])
	assert.Equal(t, time.Second, info.RetryDelay.AsDuration())
	assertRefused(t, tt, "max_decoded_in_flight", "grpc")

	g.release <- struct{}{}
	require.NoError(t, <-first)
	go func() { first <- export() }()
	assert.Equal(t, 2000, g.admitted(t), "admitted: the first gave its room back")
	g.release <- struct{}{}
	require.NoError(t, <-first)
}

// TestInFlightRoomIsGivenBackWhenAuthRefuses: a gRPC message is admitted before
// authentication runs (gRPC decodes first); one refused by the
// authenticator still gives its room back, or unauthenticated senders
// could lock everyone out.
func TestInFlightRoomIsGivenBackWhenAuthRefuses(t *testing.T) {
	req := realLogs(t, 2000)
	body, err := req.MarshalProto()
	require.NoError(t, err)
	sink := new(consumertest.LogsSink)
	token := "s3cret"
	_, addr, _, _ := startReceiver(t, inFlightConfig(weight(t, body)), 20<<20, sink, &token)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	client := plogotlp.NewGRPCClient(conn)

	for range 5 {
		_, err := client.Export(context.Background(), req)
		assert.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)
	}
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+token)
	_, err = client.Export(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, 2000, sink.LogRecordCount())
}

// TestBodiesBeingReadAreBounded: a body is in memory while it is read,
// before it can be weighed, so bodies arriving at once count against
// max_decoded_in_flight: a chunked one as it is read, one with a
// Content-Length from its headers, before a byte of it has come. One
// sender holds most of the bound with a body it has not finished; a
// second is answered 429 before its body is read, and the first, once
// complete, passes.
func TestBodiesBeingReadAreBounded(t *testing.T) {
	body, err := realLogs(t, 5000).MarshalProto()
	require.NoError(t, err)
	cut := len(body) * 9 / 10
	for _, tc := range []struct {
		name        string
		first, rest string
		held        int
	}{{
		name:  "chunked, counted as read",
		first: fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", cut, body[:cut]),
		rest:  fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body)-cut, body[cut:]),
		held:  cut,
	}, {
		name:  "declared, counted from its headers",
		first: fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)),
		rest:  string(body),
		held:  len(body),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := createDefaultConfig().(*Config)
			cfg.MaxDecodedSize, cfg.MaxDecodedInFlight = 0, int64(len(body))*3/2
			sink := &consumertest.LogsSink{}
			url, _, tt, ext := startReceiver(t, cfg, 20<<20, sink, nil)

			conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/v1/logs"))
			require.NoError(t, err)
			defer conn.Close()
			_, err = io.WriteString(conn, "POST /v1/logs HTTP/1.1\r\nHost: otlp\r\nContent-Type: application/x-protobuf\r\n"+tc.first)
			require.NoError(t, err)
			require.Eventually(t, func() bool { return ext.admission.Waiting() == int64(tc.held) }, 10*time.Second, time.Millisecond,
				"the slow body is counted")

			second := await(t, postAsync(url, body))
			assert.Equal(t, http.StatusTooManyRequests, second.status, second.body)
			assert.Equal(t, "1", second.retryAfter)
			assert.Contains(t, second.body, "the requests waiting or being read hold")
			assertRefused(t, tt, "max_decoded_in_flight", "http")
			assert.Equal(t, int64(tc.held), ext.admission.Waiting(), "the refused body holds no room")

			_, err = io.WriteString(conn, tc.rest)
			require.NoError(t, err)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, 5000, sink.LogRecordCount())
			assert.Zero(t, ext.admission.Waiting(), "nothing held once answered")
		})
	}
}

func TestBusySaysWhichWayTheBoundWasMet(t *testing.T) {
	e := &budgetExtension{cfg: &Config{MaxDecodedInFlight: 100 << 20, MaxRequestWait: 30 * time.Millisecond}}
	require.EqualError(t, e.busy(admission.ErrTimedOut), "for 30ms, the requests being decoded held 100 MiB, "+
		"the most allowed in memory at once (otlp_budget max_decoded_in_flight); retry later")
	assert.EqualError(t, e.busy(admission.ErrWaitersFull), "the requests waiting or being read hold 100 MiB, "+
		"the most allowed in memory at once (otlp_budget max_decoded_in_flight); retry later")
}

// Every 429 and 503 the receiver answers (the memory limiter's, a full
// queue's) leaves with Retry-After; other answers are left alone, and a
// Retry-After the receiver set is kept.
func TestRetryAfterOnEveryRetryableRefusal(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	ext, err := NewFactory().Create(context.Background(), extensiontest.NewNopSettings(NewFactory().Type()), cfg)
	require.NoError(t, err)
	wrap, err := ext.(*budgetExtension).GetHTTPHandler(context.Background())
	require.NoError(t, err)
	for _, tc := range []struct {
		status      int
		set, expect string
	}{
		{http.StatusServiceUnavailable, "", "1"},
		{http.StatusTooManyRequests, "", "1"},
		{http.StatusServiceUnavailable, "7", "7"},
		{http.StatusBadRequest, "", ""},
		{http.StatusOK, "", ""},
	} {
		t.Run(fmt.Sprintf("%d retry-after %q", tc.status, tc.set), func(t *testing.T) {
			h, err := wrap(context.Background(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.set != "" {
					w.Header().Set("Retry-After", tc.set)
				}
				w.WriteHeader(tc.status)
			}))
			require.NoError(t, err)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/traces", strings.NewReader("")))
			assert.Equal(t, tc.status, rec.Code)
			assert.Equal(t, tc.expect, rec.Header().Get("Retry-After"), "%d", tc.status)
		})
	}
}

func TestGoMemoryLimitIsSetByStartAndPutBackByShutdown(t *testing.T) {
	limit := int64(-1)
	set := func(n int64) int64 { prev := limit; limit = n; return prev }
	limit = 1 << 40
	e := &budgetExtension{cfg: &Config{GoMemoryLimit: 300 << 20}, logger: zap.NewNop(), telemetry: nopTelemetry(t), prevGoLimit: -1, setGoLimit: set}
	require.NoError(t, e.Start(context.Background(), componenttest.NewNopHost()))
	assert.EqualValues(t, 300<<20, limit)
	require.NoError(t, e.Shutdown(context.Background()))
	assert.EqualValues(t, 1<<40, limit, "the runtime's limit from before Start")

	e = &budgetExtension{cfg: &Config{}, logger: zap.NewNop(), telemetry: nopTelemetry(t), prevGoLimit: -1, setGoLimit: set}
	require.NoError(t, e.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, e.Shutdown(context.Background()))
	assert.EqualValues(t, 1<<40, limit, "0: the runtime's own limit is left alone")
}

func nopTelemetry(t *testing.T) *budgetmetadata.TelemetryBuilder {
	t.Helper()
	tb, err := budgetmetadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
	require.NoError(t, err)
	return tb
}
