package metrics

import (
	"errors"
	"fmt"

	"github.com/valyala/fastjson"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// CheckRuns translates the /api/v1/check_run body, a JSON array of
// {"check","host_name","timestamp","status","message","tags"}, into one
// gauge per check named after it, valued 0 OK, 1 warning, 2 critical,
// 3 unknown; the message is kept as the `message` attribute.
func CheckRuns(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	if err := bud.JSON(body, budget.TreeNode); err != nil {
		return pmetric.Metrics{}, err
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return pmetric.Metrics{}, fmt.Errorf("decoding check runs JSON: %w", err)
	}
	list, err := v.Array()
	if err != nil {
		return pmetric.Metrics{}, errors.New("check runs body must be a JSON array")
	}
	b := newBuilder(bud)
	defer b.release()
	for i, cv := range list {
		if !b.more() {
			break
		}
		if cv.Type() != fastjson.TypeObject {
			return pmetric.Metrics{}, fmt.Errorf("check run %d is not an object", i)
		}
		s := series{name: b.strs.String(cv.GetStringBytes("check")), host: b.strs.String(cv.GetStringBytes("host_name")), typ: Gauge}
		if s.name == "" {
			return pmetric.Metrics{}, fmt.Errorf("check run %d has no check name", i)
		}
		status := cv.GetInt("status")
		if status < 0 || status > 3 {
			return pmetric.Metrics{}, fmt.Errorf("check run %d (%s) has status %d, not 0-3", i, s.name, status)
		}
		for _, t := range cv.GetArray("tags") {
			if tb := t.GetStringBytes(); len(tb) > 0 {
				s.tags = append(s.tags, b.strs.String(tb))
			}
		}
		m := b.metric(&s)
		if msg := cv.GetStringBytes("message"); len(msg) > 0 {
			b.attrs.PutStr("message", string(msg))
		}
		// Read as a float: GetInt64 makes 1e300 a 0, stored in 1970. A
		// check run without one is at 0, as before.
		if sec, ok := b.floatSeconds(cv.GetFloat64("timestamp")); ok {
			b.point(m, &s, sec, float64(status))
		}
	}
	return b.result()
}
