package logs

import (
	"fmt"
	"time"

	"github.com/valyala/fastjson"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// Events are rare next to logs: a sync.Pool lets a parser grown by a
// large body go at the next GC instead of pinning its tree.
var parsers fastjson.ParserPool

// IntakeEvents translates the events an Agent posts to /intake/:
// {"events":{"<source>":[{"msg_title","msg_text","timestamp","priority",
// "host","tags","alert_type","aggregation_key","source_type_name"}]},
// "internalHostname"}. The same path carries host metadata, which has no
// events and gives no records. What parsing and translating build is
// taken from bud.
func IntakeEvents(body []byte, now time.Time, bud *budget.Budget) (plog.Logs, error) {
	if err := bud.JSON(body, budget.TreeNode); err != nil {
		return plog.NewLogs(), err
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return plog.NewLogs(), fmt.Errorf("decoding intake JSON: %w", err)
	}
	events := v.GetObject("events")
	if events == nil {
		return plog.NewLogs(), nil
	}
	defaultHost := string(v.GetStringBytes("internalHostname"))
	out := NewEvents(now)
	var failed error
	events.Visit(func(source []byte, list *fastjson.Value) {
		for i, v := range list.GetArray() {
			if failed != nil {
				return
			}
			if v.Type() != fastjson.TypeObject {
				failed = fmt.Errorf("event %d of %q is not an object", i, source)
				return
			}
			e := intakeEvent(v, defaultHost)
			if !bud.Entries(e.EntryCount()) {
				failed = bud.Err()
				return
			}
			out.Add(&e)
		}
	})
	if failed != nil {
		return plog.NewLogs(), failed
	}
	return out.Logs(), nil
}

func intakeEvent(v *fastjson.Value, defaultHost string) Event {
	e := Event{
		Title:          string(v.GetStringBytes("msg_title")),
		Text:           string(v.GetStringBytes("msg_text")),
		Host:           string(v.GetStringBytes("host")),
		AlertType:      string(v.GetStringBytes("alert_type")),
		Priority:       string(v.GetStringBytes("priority")),
		AggregationKey: string(v.GetStringBytes("aggregation_key")),
		SourceTypeName: string(v.GetStringBytes("source_type_name")),
	}
	if e.Host == "" {
		e.Host = defaultHost
	}
	if ts := v.GetInt64("timestamp"); ts > 0 {
		e.Time = time.Unix(ts, 0)
	}
	for _, t := range v.GetArray("tags") {
		e.Tags = append(e.Tags, string(t.GetStringBytes()))
	}
	return e
}
