package metrics

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// DogStatsDResult says what a DogStatsD body held besides metrics.
type DogStatsDResult struct {
	// Events are `_e{…}` lines, which have no metrics form; the caller
	// counts them as dropped on purpose.
	Events int
	// Malformed lines are skipped, as the DogStatsD server does.
	Malformed int
	// FirstError describes the first malformed line.
	FirstError string
}

// DogStatsD translates DogStatsD datagrams, one per line, as tracers post
// them to the agent's /dogstatsd/v2/proxy:
// `name:value[:value…]|type[|@rate][|#tag,…][|c:container][|T<unix>]`.
// Gauges are gauges; counts are delta sums scaled by 1/rate; timers,
// histograms and distributions of one series become one exponential
// histogram per request; sets become a gauge of their distinct values;
// service checks (`_sc|name|status|…`) become a gauge like /check_run.
func DogStatsD(body []byte, now time.Time, bud *budget.Budget) (pmetric.Metrics, DogStatsDResult, error) {
	var res DogStatsDResult
	b := newBuilder(bud)
	defer b.release()
	dists := map[string]*distAcc{}
	var order []string
	sets := map[string]map[string]struct{}{}
	setSeries := map[string]*series{}
	lines := 0
	for len(body) > 0 && b.more() {
		var line []byte
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		lines++
		var err error
		switch {
		case bytes.HasPrefix(line, []byte("_e{")):
			res.Events++
		case bytes.HasPrefix(line, []byte("_sc|")):
			err = serviceCheck(b, string(line), now)
		default:
			err = statsdMetric(b, string(line), now, dists, &order, sets, setSeries)
		}
		if err != nil {
			if res.Malformed == 0 {
				res.FirstError = err.Error()
			}
			res.Malformed++
		}
	}
	for _, k := range order {
		d := dists[k]
		if !b.distribution(b.metric(&d.s), d.ts, &d.values) {
			break
		}
	}
	for k, vals := range sets {
		s := setSeries[k]
		m := b.metric(s)
		b.point(m, s, now.Unix(), float64(len(vals)))
	}
	if res.Malformed > 0 && res.Malformed == lines {
		return pmetric.Metrics{}, res, fmt.Errorf("no valid DogStatsD line: %s", res.FirstError)
	}
	md, err := b.result()
	return md, res, err
}

type distAcc struct {
	s      series
	ts     int64
	values values
}

// statsdMetric parses one metric line and adds it.
func statsdMetric(b *builder, line string, now time.Time, dists map[string]*distAcc, order *[]string,
	sets map[string]map[string]struct{}, setSeries map[string]*series,
) error {
	fields := strings.Split(line, "|")
	if len(fields) < 2 {
		return fmt.Errorf("%q: want name:value|type", line)
	}
	name, values, ok := strings.Cut(fields[0], ":")
	if !ok || name == "" || values == "" {
		return fmt.Errorf("%q: want name:value", line)
	}
	s := series{name: name}
	rate, ts := 1.0, now.Unix()
	for _, f := range fields[2:] {
		switch {
		case strings.HasPrefix(f, "@"):
			r, err := strconv.ParseFloat(f[1:], 64)
			if err != nil || r <= 0 || r > 1 {
				return fmt.Errorf("%q: bad sample rate %q", line, f)
			}
			rate = r
		case strings.HasPrefix(f, "#"):
			for _, t := range strings.Split(f[1:], ",") {
				if t != "" {
					s.tags = append(s.tags, t)
				}
			}
		case strings.HasPrefix(f, "c:"):
			s.tags = append(s.tags, "container_id:"+f[2:])
		case strings.HasPrefix(f, "T"):
			v, err := strconv.ParseInt(f[1:], 10, 64)
			if err != nil {
				return fmt.Errorf("%q: bad timestamp %q", line, f)
			}
			ts = v
		}
	}
	typ := fields[1]
	if typ == "s" {
		key := name + "|s|" + strings.Join(s.tags, ",")
		if sets[key] == nil {
			sets[key] = map[string]struct{}{}
			s.typ = Gauge
			setSeries[key] = &s
		}
		sets[key][values] = struct{}{}
		return nil
	}
	var nums []float64
	for _, v := range strings.Split(values, ":") {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%q: bad value %q", line, v)
		}
		nums = append(nums, f)
	}
	switch typ {
	case "g":
		s.typ = Gauge
		m := b.metric(&s)
		for _, v := range nums {
			b.point(m, &s, ts, v)
		}
	case "c":
		s.typ = Count
		m := b.metric(&s)
		for _, v := range nums {
			b.point(m, &s, ts, v/rate)
		}
	case "ms", "h", "d":
		if typ == "ms" {
			s.unit = "ms"
		}
		s.typ = distribution
		key := name + "|" + typ + "|" + strings.Join(s.tags, ",")
		d, ok := dists[key]
		if !ok {
			d = &distAcc{s: s, ts: ts}
			dists[key] = d
			*order = append(*order, key)
		}
		// A sampled value stands for 1/rate values; counts stay whole so
		// the buckets add up to the count.
		n := max(uint64(math.Round(1/rate)), 1)
		for _, v := range nums {
			d.values.add(v, n)
		}
	default:
		return fmt.Errorf("%q: unknown type %q", line, typ)
	}
	return nil
}

// serviceCheck parses `_sc|name|status[|d:ts][|h:host][|#tags][|m:message]`.
func serviceCheck(b *builder, line string, now time.Time) error {
	fields := strings.Split(line, "|")
	if len(fields) < 3 {
		return fmt.Errorf("%q: want _sc|name|status", line)
	}
	status, err := strconv.Atoi(fields[2])
	if err != nil || status < 0 || status > 3 || fields[1] == "" {
		return fmt.Errorf("%q: want a name and a status 0-3", line)
	}
	s := series{name: fields[1], typ: Gauge}
	ts := now.Unix()
	var msg string
	for _, f := range fields[3:] {
		switch {
		case strings.HasPrefix(f, "d:"):
			if v, err := strconv.ParseInt(f[2:], 10, 64); err == nil {
				ts = v
			}
		case strings.HasPrefix(f, "h:"):
			s.host = f[2:]
		case strings.HasPrefix(f, "#"):
			for _, t := range strings.Split(f[1:], ",") {
				if t != "" {
					s.tags = append(s.tags, t)
				}
			}
		case strings.HasPrefix(f, "m:"):
			msg = f[2:]
		}
	}
	m := b.metric(&s)
	if msg != "" {
		b.attrs.PutStr("message", msg)
	}
	b.point(m, &s, ts, float64(status))
	return nil
}
