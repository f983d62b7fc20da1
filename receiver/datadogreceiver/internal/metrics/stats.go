package metrics

import (
	"fmt"
	"math"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/pb/sketchpb"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"google.golang.org/protobuf/proto"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/attrmap"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/tags"
)

// APM stats become ordinary metrics a user can chart, one data point per
// stats bucket and group (service, resource, operation, kind, status…):
const (
	HitsMetric         = "datadog.trace.hits"           // delta sum: spans seen
	ErrorsMetric       = "datadog.trace.errors"         // delta sum: spans in error
	TopLevelHitsMetric = "datadog.trace.top_level_hits" // delta sum: service entry spans
	DurationMetric     = "datadog.trace.duration"       // delta sum: total span time, seconds
	LatencyMetric      = "datadog.trace.latency"        // exponential histogram, seconds, status ok|error
)

// ClientStats translates what a tracer posts to /v0.6/stats (msgpack
// ClientStatsPayload).
func ClientStats(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	if err := bud.Msgpack(body); err != nil {
		return pmetric.Metrics{}, err
	}
	var p pb.ClientStatsPayload
	if _, err := p.UnmarshalMsg(body); err != nil {
		return pmetric.Metrics{}, fmt.Errorf("decoding ClientStatsPayload msgpack: %w", err)
	}
	b := newBuilder(bud)
	defer b.release()
	if err := statsPayload(b, &p, "", ""); err != nil {
		return pmetric.Metrics{}, err
	}
	return b.result()
}

// AgentStats translates what a trace-agent posts to /api/v0.2/stats
// (msgpack StatsPayload, usually gzip).
func AgentStats(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	if err := bud.Msgpack(body); err != nil {
		return pmetric.Metrics{}, err
	}
	var p pb.StatsPayload
	if _, err := p.UnmarshalMsg(body); err != nil {
		return pmetric.Metrics{}, fmt.Errorf("decoding StatsPayload msgpack: %w", err)
	}
	b := newBuilder(bud)
	defer b.release()
	for _, c := range p.Stats {
		if c == nil {
			continue
		}
		if err := statsPayload(b, c, p.AgentHostname, p.AgentEnv); err != nil {
			return pmetric.Metrics{}, err
		}
	}
	return b.result()
}

func statsPayload(b *builder, p *pb.ClientStatsPayload, agentHost, agentEnv string) error {
	env := p.Env
	if env == "" {
		env = agentEnv
	}
	host := p.Hostname
	if host == "" {
		host = agentHost
	}
	var bins []bin
	for _, bucket := range p.Stats {
		if bucket == nil || bucket.Duration == 0 {
			continue
		}
		// A bucket ending past 2^63 ns (or whose end overflows) gets a
		// negative end, which its points' storable check leaves out.
		end, interval := int64(-1), int64(bucket.Duration/1e9) //nolint:gosec // under 2^64/1e9
		if bucket.Start <= math.MaxInt64 && bucket.Duration <= math.MaxInt64-bucket.Start {
			end = int64(bucket.Start+bucket.Duration) / 1e9 //nolint:gosec // checked just above
		}
		for _, g := range bucket.Stats {
			if !b.more() {
				return b.bud.Err()
			}
			if g == nil {
				continue
			}
			// The resource is the service that emitted the spans.
			res := append(make([]string, 0, len(p.Tags)+4), p.Tags...)
			for _, kv := range [][2]string{{"service", first(g.Service, p.Service)}, {"env", env}, {"version", p.Version}, {"container_id", p.ContainerID}} {
				if kv[1] != "" {
					res = append(res, kv[0]+":"+kv[1])
				}
			}
			for _, m := range []struct {
				name string
				v    float64
			}{
				{HitsMetric, float64(g.Hits)},
				{ErrorsMetric, float64(g.Errors)},
				{TopLevelHitsMetric, float64(g.TopLevelHits)},
				{DurationMetric, float64(g.Duration) / 1e9},
			} {
				s := series{name: m.name, host: host, typ: Count, interval: interval, tags: res}
				if m.name == DurationMetric {
					s.unit = "s"
				}
				metric := b.metric(&s)
				groupAttrs(b, g)
				b.point(metric, &s, end, m.v)
			}
			for _, sum := range []struct {
				status string
				raw    []byte
			}{{"ok", g.OkSummary}, {"error", g.ErrorSummary}} {
				if len(sum.raw) == 0 {
					continue
				}
				sk, err := decodeSketch(sum.raw)
				if err != nil {
					return fmt.Errorf("stats for %s %s: %s summary: %w", g.Service, g.Resource, sum.status, err)
				}
				s := series{name: LatencyMetric, unit: "s", host: host, typ: distribution, interval: interval, tags: res}
				metric := b.metric(&s)
				groupAttrs(b, g)
				b.attrs.PutStr("status", sum.status)
				bins = bins[:0]
				var count float64
				sk.ForEach(func(v, n float64) bool {
					bins = append(bins, valueBin(v/1e9, uint64(math.Round(n))))
					count += n
					return false
				})
				if !b.storable(end) {
					continue
				}
				dp, ok := b.histogram(metric)
				if !ok {
					return b.bud.Err()
				}
				dp.SetStartTimestamp(startSeconds(end, interval))
				dp.SetTimestamp(seconds(end))
				dp.SetCount(uint64(math.Round(count)))
				b.setBuckets(dp, bins)
			}
		}
	}
	return nil
}

// groupAttrs sets the data-point attributes of a stats group.
func groupAttrs(b *builder, g *pb.ClientGroupedStats) {
	a := b.attrs
	tags.PutNonEmpty(a, "resource.name", g.Resource)
	tags.PutNonEmpty(a, "span.name", g.Name)
	tags.PutNonEmpty(a, "span.kind", g.SpanKind)
	tags.PutNonEmpty(a, "span.type", g.Type)
	tags.PutNonEmpty(a, "db.type", g.DBType)
	tags.PutNonEmpty(a, "http.request.method", g.HTTPMethod)
	tags.PutNonEmpty(a, "http.route", g.HTTPEndpoint)
	tags.PutNonEmpty(a, "rpc.grpc.status_code", g.GRPCStatusCode)
	if g.HTTPStatusCode != 0 {
		a.PutInt("http.response.status_code", int64(g.HTTPStatusCode))
	}
	if g.Synthetics {
		a.PutBool("synthetics", true)
	}
	switch g.IsTraceRoot {
	case pb.Trilean_TRUE:
		a.PutBool("is_trace_root", true)
	case pb.Trilean_FALSE:
		a.PutBool("is_trace_root", false)
	}
	w := attrmap.NewWriter(a)
	for _, t := range g.PeerTags {
		if k, v := tags.Split(t); k != "" {
			w.PutStr(k, v)
		}
	}
	w.Flush()
}

func decodeSketch(raw []byte) (*ddsketch.DDSketch, error) {
	var sp sketchpb.DDSketch
	if err := proto.Unmarshal(raw, &sp); err != nil {
		return nil, err
	}
	return ddsketch.FromProto(&sp)
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
