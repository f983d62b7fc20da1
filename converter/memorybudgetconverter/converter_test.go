package memorybudgetconverter

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

const gib = 1 << 30

func TestParseSize(t *testing.T) {
	for in, want := range map[any]uint64{
		"1GiB": gib, "1Gi": gib, "512MiB": 512 * mib, "1.5GiB": gib + gib/2, "1GB": 1e9, "1073741824": gib, 1073741824: gib,
	} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []any{"lots", "-1GiB", -5, 1.5, true} {
		_, err := ParseSize(bad)
		assert.Error(t, err, bad)
	}
}

func TestSplit(t *testing.T) {
	p, err := Split(gib, true)
	require.NoError(t, err)
	assert.Equal(t, Plan{Engine: 512 * mib, Collector: 512 * mib}, p)
	assert.EqualValues(t, 512*mib/10*9, p.GoLimit(), "nine tenths of the collector's half")

	p, err = Split(gib, false)
	require.NoError(t, err)
	assert.Equal(t, Plan{Collector: gib}, p, "without the engine the collector has it all")

	_, err = Split(256*mib, true)
	require.ErrorContains(t, err, "under 512 MiB")
	_, err = Split(64*mib, false)
	assert.ErrorContains(t, err, "under 128 MiB")
}

// shipped is the shape of otelcol-config.yaml after the storage switch:
// the engine started, a memory limiter, OTLP's budget, a Datadog receiver.
func shipped() map[string]any {
	return map[string]any{
		"otelhouse":  map[string]any{"memory_limit": ""},
		"receivers":  map[string]any{"otlp": nil, "datadog": map[string]any{"endpoint": "0.0.0.0:8126"}},
		"processors": map[string]any{"memory_limiter": map[string]any{"check_interval": "1s"}, "transform/log_time": nil},
		"extensions": map[string]any{"embedded_clickhouse": map[string]any{"server": map[string]any{"mark_cache_size": 1 << 20}}, "otlp_budget": nil},
		"service":    map[string]any{"extensions": []any{"embedded_clickhouse", "otlp_budget"}},
	}
}

func convert(t *testing.T, env map[string]string, raw map[string]any) (*confmap.Conf, int64) {
	t.Helper()
	conf, goLimit, _ := convertLogged(t, env, raw)
	return conf, goLimit
}

func convertLogged(t *testing.T, env map[string]string, raw map[string]any) (*confmap.Conf, int64, *observer.ObservedLogs) {
	t.Helper()
	conf := confmap.NewFromStringMap(raw)
	core, logs := observer.New(zap.InfoLevel)
	c := converter{
		logger: zap.New(core),
		getenv: func(k string) string { return env[k] },
		found:  func() (uint64, string) { return 4 * gib, "half the RAM" },
	}
	require.NoError(t, c.Convert(context.Background(), conf))
	return conf, goLimitOf(conf), logs
}

// goLimitOf is the go_memory_limit the converted configuration gives an
// otlp_budget extension the service starts, or -1.
func goLimitOf(conf *confmap.Conf) int64 {
	started, _ := conf.Get("service::extensions").([]any)
	for _, id := range idsOf(started, "otlp_budget") {
		switch v := conf.Get("extensions::" + id + "::go_memory_limit").(type) {
		case uint64:
			return int64(v) //nolint:gosec // a test's small budget
		case int:
			return int64(v)
		}
	}
	return -1
}

func TestBudgetFromEnv(t *testing.T) {
	conf, goLimit, logs := convertLogged(t, map[string]string{EnvVar: "1GiB"}, shipped())
	require.Equal(t, 1, logs.Len(), "the split is said once, at start")
	assert.Equal(t, map[string]any{"budget": "1.0 GiB", "from": EnvVar, "embedded_engine": "512 MiB", "collector": "512 MiB", "go_soft_limit": "461 MiB"},
		logs.All()[0].ContextMap())
	assert.False(t, conf.IsSet("otelhouse"), "the collector knows no otelhouse section")
	assert.EqualValues(t, 512*mib/10*9, goLimit)
	for key, want := range map[string]any{
		"extensions::embedded_clickhouse::server::max_server_memory_usage": uint64(512 * mib),
		"extensions::embedded_clickhouse::profile::max_memory_usage":       uint64(256 * mib),
		"extensions::embedded_clickhouse::server::mark_cache_size":         1 << 20, // written: kept
		"processors::memory_limiter::limit_mib":                            uint64(460),
		"processors::memory_limiter::spike_limit_mib":                      uint64(153),
		"extensions::otlp_budget::max_decoded_in_flight":                   uint64(256 * mib),
		"extensions::otlp_budget::max_decoded_size":                        uint64(128 * mib),
		"receivers::datadog::max_decoded_size":                             uint64(64 * mib),
		"receivers::datadog::max_concurrent_requests":                      uint64(2), // 256 MiB / (32 + 64 MiB)
	} {
		assert.Equal(t, want, conf.Get(key), key)
	}
	assert.Nil(t, conf.Get("processors::transform/log_time::limit_mib"))
}

func TestKeyWinsOverEnv(t *testing.T) {
	raw := shipped()
	raw["otelhouse"] = map[string]any{"memory_limit": "2GiB"}
	conf, _ := convert(t, map[string]string{EnvVar: "1GiB"}, raw)
	assert.Equal(t, uint64(gib), conf.Get("extensions::embedded_clickhouse::server::max_server_memory_usage"))
}

func TestDefaultBudgetIsFound(t *testing.T) {
	conf, goLimit := convert(t, nil, shipped())
	assert.Equal(t, uint64(2*gib), conf.Get("extensions::embedded_clickhouse::server::max_server_memory_usage"))
	assert.EqualValues(t, 2*gib/10*9, goLimit)
}

func TestGOMEMLIMITIsTheUsersWord(t *testing.T) {
	_, goLimit := convert(t, map[string]string{EnvVar: "1GiB", "GOMEMLIMIT": "300MiB"}, shipped())
	assert.EqualValues(t, -1, goLimit, "GOMEMLIMIT set: the runtime's limit is left alone")
}

func TestExternalClickHouseGivesTheCollectorAll(t *testing.T) {
	raw := shipped()
	raw["service"] = map[string]any{"extensions": []any{"otlp_budget"}}
	conf, goLimit := convert(t, map[string]string{EnvVar: "1GiB"}, raw)
	assert.EqualValues(t, gib/10*9, goLimit)
	assert.Nil(t, conf.Get("extensions::embedded_clickhouse::server::max_server_memory_usage"), "an engine defined but not started is left alone")
	assert.Equal(t, uint64(gib/2), conf.Get("extensions::otlp_budget::max_decoded_in_flight"))
}

func TestWrittenLimiterIsKept(t *testing.T) {
	raw := shipped()
	raw["processors"] = map[string]any{"memory_limiter": map[string]any{"limit_percentage": 80}}
	conf, _ := convert(t, map[string]string{EnvVar: "1GiB"}, raw)
	assert.Nil(t, conf.Get("processors::memory_limiter::limit_mib"))
	assert.Nil(t, conf.Get("processors::memory_limiter::spike_limit_mib"))
}

func TestBadBudgetIsRefused(t *testing.T) {
	for env, msg := range map[string]string{"lots": "OTELHOUSE_MEMORY_LIMIT", "100MiB": "under 512 MiB"} {
		c := converter{logger: zap.NewNop(), getenv: func(k string) string { return map[string]string{EnvVar: env}[k] }, found: func() (uint64, string) { return 0, "half the RAM" }}
		assert.ErrorContains(t, c.Convert(context.Background(), confmap.NewFromStringMap(shipped())), msg, env)
	}
}

func TestUnknownMemoryLeavesLimitersAShare(t *testing.T) {
	conf := confmap.NewFromStringMap(shipped())
	c := converter{logger: zap.NewNop(), getenv: func(string) string { return "" }, found: func() (uint64, string) { return 0, "half the RAM" }}
	require.NoError(t, c.Convert(context.Background(), conf))
	assert.Equal(t, 80, conf.Get("processors::memory_limiter::limit_percentage"))
	assert.Nil(t, conf.Get("extensions::embedded_clickhouse::server::max_server_memory_usage"))
	assert.EqualValues(t, -1, goLimitOf(conf), "no budget, no Go limit")
}

func TestGoLimitGetsACarrierWithoutOTLPBudget(t *testing.T) {
	raw := shipped()
	raw["service"] = map[string]any{"extensions": []any{"embedded_clickhouse"}}
	conf, goLimit := convert(t, map[string]string{EnvVar: "1GiB"}, raw)
	assert.EqualValues(t, 512*mib/10*9, goLimit)
	assert.Equal(t, []any{"embedded_clickhouse", goRuntimeCarrier}, conf.Get("service::extensions"))
	assert.Equal(t, 0, conf.Get("extensions::"+goRuntimeCarrier+"::max_decoded_size"), "the carrier bounds nothing")
}

func TestWrittenGoLimitIsKept(t *testing.T) {
	raw := shipped()
	raw["extensions"].(map[string]any)["otlp_budget"] = map[string]any{"go_memory_limit": 100 * mib}
	_, goLimit := convert(t, map[string]string{EnvVar: "1GiB"}, raw)
	assert.EqualValues(t, 100*mib, goLimit)
}
