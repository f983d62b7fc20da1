// Package memorybudgetconverter gives the whole process one memory budget:
// OTELHOUSE_MEMORY_LIMIT, or the configuration's otelhouse::memory_limit,
// defaulting to the container's (cgroup) limit, else half the machine's
// RAM. The budget is split by fixed shares (Split, docs/memory.md) between
// the embedded ClickHouse engine, when the configuration runs one, and the
// collector: the Go runtime's soft limit, the memory_limiter processors,
// the receivers' decode budgets. A value written in the configuration
// keeps its place; the budget fills in only what is not set. The converter
// only maps configuration: the Go soft limit is set by the otlp_budget
// extension's Start (go_memory_limit), so `otelcol validate` changes
// nothing in the process.
package memorybudgetconverter

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/dustin/go-humanize"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/internal/runtime/memlimit"
)

// EnvVar is the budget in bytes, with or without a unit (1GiB, 512MiB).
const EnvVar = "OTELHOUSE_MEMORY_LIMIT"

// Key is the budget's configuration key, which wins over EnvVar. The
// converter removes the otelhouse section: the collector knows no such
// top-level key.
const (
	Key     = "otelhouse::memory_limit"
	section = "otelhouse"
)

type converter struct {
	logger *zap.Logger
	getenv func(string) string
	// found is the budget when none is given: the container's limit,
	// else half the RAM, and which it is.
	found func() (uint64, string)
}

// NewFactory returns the converter factory ocb wires into the distribution.
func NewFactory() confmap.ConverterFactory {
	return confmap.NewConverterFactory(func(set confmap.ConverterSettings) confmap.Converter {
		logger := set.Logger
		if logger == nil {
			logger = zap.NewNop()
		}
		return converter{logger: logger, getenv: os.Getenv, found: found}
	})
}

func found() (uint64, string) {
	if c := memlimit.Container(memlimit.CgroupFiles()); c < memlimit.Unlimited {
		return c, "the cgroup's memory limit"
	}
	return memlimit.RAM() / 2, "half the RAM"
}

// Convert resolves the budget and fills in the settings it splits into.
func (c converter) Convert(_ context.Context, conf *confmap.Conf) error {
	given, from := conf.Get(Key), Key
	conf.Delete(section)
	if given == nil || given == "" {
		given, from = c.getenv(EnvVar), EnvVar
	}
	var budget uint64
	if given != nil && given != "" {
		var err error
		if budget, err = ParseSize(given); err != nil {
			return fmt.Errorf("%s: %w", from, err)
		}
	} else {
		budget, from = c.found()
	}
	if budget == 0 {
		// Neither a limit nor the RAM is known (no /proc): the memory
		// limiters keep a share of what they find themselves.
		return conf.Merge(confmap.NewFromStringMap(unknownBudget(conf)))
	}
	extensions, _ := conf.Get("service::extensions").([]any)
	engines := idsOf(extensions, "embedded_clickhouse")
	plan, err := Split(budget, len(engines) > 0)
	if err != nil {
		return fmt.Errorf("memory budget %s (from %s): %w", humanize.IBytes(budget), from, err)
	}
	goLimit := "GOMEMLIMIT from the environment"
	if c.getenv("GOMEMLIMIT") == "" {
		goLimit = humanize.IBytes(plan.GoLimit())
	}
	c.logger.Info("Memory budget (docs/memory.md)", zap.String("budget", humanize.IBytes(budget)), zap.String("from", from),
		zap.String("embedded_engine", humanize.IBytes(plan.Engine)), zap.String("collector", humanize.IBytes(plan.Collector)),
		zap.String("go_soft_limit", goLimit))
	settings := plan.Settings(conf, engines)
	update := make(map[string]any, len(settings))
	for key, v := range settings {
		if !conf.IsSet(key) {
			update[key] = v
		}
	}
	if c.getenv("GOMEMLIMIT") == "" {
		goMemoryLimit(conf, extensions, plan.GoLimit(), update)
	}
	return conf.Merge(confmap.NewFromStringMap(update))
}

// goRuntimeCarrier is the otlp_budget extension the converter adds, with
// no bounds, when none runs to carry the Go soft limit.
const goRuntimeCarrier = "otlp_budget/go_runtime"

// goMemoryLimit gives the Go soft limit to the first otlp_budget extension
// the service starts (its Start sets it), unless one already has a
// go_memory_limit of its own; with none started, it adds one that only
// carries the limit.
func goMemoryLimit(conf *confmap.Conf, started []any, limit uint64, update map[string]any) {
	ids := idsOf(started, "otlp_budget")
	for _, id := range ids {
		if conf.IsSet("extensions::" + id + "::go_memory_limit") {
			return
		}
	}
	if len(ids) > 0 {
		update["extensions::"+ids[0]+"::go_memory_limit"] = limit
		return
	}
	update["extensions::"+goRuntimeCarrier] = map[string]any{
		"go_memory_limit": limit, "max_decoded_size": 0, "max_decoded_in_flight": 0,
	}
	update["service::extensions"] = append(append([]any(nil), started...), goRuntimeCarrier)
}

// idsOf are the component ids of a type among ids (the type itself and
// type/name), in order.
func idsOf(ids []any, typ string) []string {
	var out []string
	for _, v := range ids {
		if id, ok := v.(string); ok && (id == typ || strings.HasPrefix(id, typ+"/")) {
			out = append(out, id)
		}
	}
	return out
}

// configured are the ids of a component type under a configuration
// section (receivers, processors, extensions), sorted.
func configured(conf *confmap.Conf, kind, typ string) []string {
	m, _ := conf.Get(kind).(map[string]any)
	var all []any
	for id := range m {
		all = append(all, id)
	}
	ids := idsOf(all, typ)
	slices.Sort(ids)
	return ids
}

// unknownBudget sets the memory limiters that have no limit of their own
// to a share of the memory they find (limit_percentage), as the collector's
// documentation suggests, since no budget can be split.
func unknownBudget(conf *confmap.Conf) map[string]any {
	out := map[string]any{}
	for _, id := range configured(conf, "processors", "memory_limiter") {
		base := "processors::" + id
		if !conf.IsSet(base+"::limit_mib") && !conf.IsSet(base+"::limit_percentage") {
			out[base+"::limit_percentage"] = 80
			out[base+"::spike_limit_percentage"] = 20
		}
	}
	return out
}
