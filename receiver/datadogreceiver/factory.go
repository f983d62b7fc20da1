package datadogreceiver

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/metadata"
)

// FeatureGateID names the gate that guards the receiver.
// FeatureGateID is the receiver's gate, declared in metadata.yaml.
const FeatureGateID = "receiver.datadog"

// EnableEnvVar is the switch the shipped configuration reads.
const EnableEnvVar = "ENABLE_DATADOG_RECEIVER"

// Gate guards the receiver: experimental, off unless switched on.
var Gate = metadata.ReceiverDatadogFeatureGate

const (
	defaultEndpoint = "localhost:8126"
	// Agents send at most a few MiB per payload; the trace-agent's own cap is
	// 25 MiB. This bounds both the wire and the decompressed size.
	defaultMaxBodySize = 32 << 20
	// A trace-agent lets a payload wait 1 s for a decoder before it answers
	// 429; a receiver that serves whole Agents gets larger payloads, so it
	// waits longer, still well under the 10 s senders give a request.
	defaultMaxRequestWait = 5 * time.Second
	// A full 32 MiB body of real spans, records or points takes two to
	// eight times its size decoded; hostile ones are cut here, at 256 MiB.
	defaultMaxDecodedSize = 256 << 20
)

// defaultMaxConcurrentRequests keeps both cores busy while one request
// waits on the network or the pipeline, without more bodies in memory than
// that takes.
func defaultMaxConcurrentRequests() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// NewFactory returns the factory of the `datadog` receiver.
func NewFactory() receiver.Factory {
	return receiver.NewFactory(
		metadata.Type,
		createDefaultConfig,
		receiver.WithTraces(createTraces, metadata.TracesStability),
		receiver.WithLogs(createLogs, metadata.LogsStability),
		receiver.WithMetrics(createMetrics, metadata.MetricsStability),
	)
}

func createDefaultConfig() component.Config {
	srv := confighttp.NewDefaultServerConfig()
	srv.NetAddr.Endpoint = defaultEndpoint
	srv.MaxRequestBodySize = defaultMaxBodySize
	return &Config{
		ServerConfig: srv,
		Settings: Settings{
			RetryAfterSeconds:     1,
			TracerNetworks:        []string{"127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"},
			MaxConcurrentRequests: defaultMaxConcurrentRequests(),
			MaxRequestWait:        defaultMaxRequestWait,
			MaxDecodedSize:        defaultMaxDecodedSize,
			Logs: LogsConfig{
				DecodeJSONMessage: true,
				TraceIDs:          true,
			},
		},
	}
}

// One receiver instance serves every signal of a component ID: the signals
// share one port.
var (
	instancesMu sync.Mutex
	instances   = map[component.ID]*datadogReceiver{}
)

func instance(set receiver.Settings, cfg component.Config) (*datadogReceiver, error) {
	if !Gate.IsEnabled() {
		return nil, fmt.Errorf("the datadog receiver is experimental and its feature gate %q is off: set %s=true with the shipped configuration, or start the collector with --feature-gates=%s",
			FeatureGateID, EnableEnvVar, FeatureGateID)
	}
	instancesMu.Lock()
	defer instancesMu.Unlock()
	if r, ok := instances[set.ID]; ok {
		return r, nil
	}
	r, err := newReceiver(set, cfg.(*Config), func() {
		instancesMu.Lock()
		delete(instances, set.ID)
		instancesMu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	instances[set.ID] = r
	return r, nil
}

func createTraces(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Traces) (receiver.Traces, error) {
	r, err := instance(set, cfg)
	if err != nil {
		return nil, err
	}
	r.nextTraces = next
	return r, nil
}

func createLogs(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Logs) (receiver.Logs, error) {
	r, err := instance(set, cfg)
	if err != nil {
		return nil, err
	}
	r.nextLogs = next
	return r, nil
}

func createMetrics(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Metrics) (receiver.Metrics, error) {
	r, err := instance(set, cfg)
	if err != nil {
		return nil, err
	}
	r.nextMetrics = next
	return r, nil
}
