package logs

import (
	"fmt"
	"strings"
	"time"

	"github.com/valyala/fastjson"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelhouse/otelhouse/internal/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/tags"
)

// Events are rare next to logs: a sync.Pool lets a parser grown by a
// large body go at the next GC instead of pinning its tree.
var parsers fastjson.ParserPool

// EventName marks the records made from Datadog events (the OTel event.name).
const EventName = "datadog.event"

// IntakeEvents translates the events an Agent posts to /intake/:
// {"events":{"<source>":[{"msg_title","msg_text","timestamp","priority",
// "host","tags","alert_type","aggregation_key","source_type_name"}]},
// "internalHostname"}. The same path carries host metadata, which has no
// events and gives no records. What parsing and translating build is
// taken from bud.
func IntakeEvents(body []byte, now time.Time, bud *budget.Budget) (plog.Logs, error) {
	ld := plog.NewLogs()
	if err := bud.JSON(body, budget.TreeNode); err != nil {
		return ld, err
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return ld, fmt.Errorf("decoding intake JSON: %w", err)
	}
	events := v.GetObject("events")
	if events == nil {
		return ld, nil
	}
	defaultHost := string(v.GetStringBytes("internalHostname"))
	groups := map[string]plog.LogRecordSlice{}
	var failed error
	events.Visit(func(source []byte, list *fastjson.Value) {
		for i, e := range list.GetArray() {
			if e.Type() != fastjson.TypeObject {
				failed = fmt.Errorf("event %d of %q is not an object", i, source)
				return
			}
			host := string(e.GetStringBytes("host"))
			if host == "" {
				host = defaultHost
			}
			var evTags []string
			for _, t := range e.GetArray("tags") {
				evTags = append(evTags, string(t.GetStringBytes()))
			}
			if !bud.Entries(6 + len(evTags)) {
				failed = bud.Err()
				return
			}
			key := host + "\x00" + strings.Join(evTags, ",")
			records, ok := groups[key]
			if !ok {
				rl := ld.ResourceLogs().AppendEmpty()
				ra := rl.Resource().Attributes()
				tags.PutNonEmpty(ra, tags.Host, host)
				for _, t := range evTags {
					if k, val := tags.Split(t); k != "" {
						if rk, ok := tags.ResourceKey(k); ok {
							tags.Put(ra, rk, val)
						}
					}
				}
				sl := rl.ScopeLogs().AppendEmpty()
				sl.Scope().SetName(ScopeName)
				records = sl.LogRecords()
				groups[key] = records
			}
			eventRecord(records.AppendEmpty(), e, evTags, now)
		}
	})
	if failed != nil {
		return plog.NewLogs(), failed
	}
	return ld, nil
}

func eventRecord(lr plog.LogRecord, e *fastjson.Value, evTags []string, now time.Time) {
	title, text := string(e.GetStringBytes("msg_title")), string(e.GetStringBytes("msg_text"))
	switch {
	case title != "" && text != "":
		lr.Body().SetStr(title + "\n" + text)
	default:
		lr.Body().SetStr(title + text)
	}
	lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(now))
	if ts := e.GetInt64("timestamp"); ts > 0 {
		lr.SetTimestamp(pcommon.Timestamp(ts * 1e9))
	} else {
		lr.SetTimestamp(pcommon.NewTimestampFromTime(now))
	}
	alert := string(e.GetStringBytes("alert_type"))
	if alert == "" {
		alert = "info"
	}
	lr.SetSeverityText(alert)
	lr.SetSeverityNumber(severity(alert))
	a := lr.Attributes()
	a.PutStr("event.name", EventName)
	tags.PutNonEmpty(a, "datadog.event.title", title)
	tags.PutNonEmpty(a, "datadog.event.priority", string(e.GetStringBytes("priority")))
	tags.PutNonEmpty(a, "datadog.event.aggregation_key", string(e.GetStringBytes("aggregation_key")))
	tags.PutNonEmpty(a, "datadog.event.source_type_name", string(e.GetStringBytes("source_type_name")))
	for _, t := range evTags {
		if k, val := tags.Split(t); k != "" {
			if _, res := tags.ResourceKey(k); !res {
				tags.Put(a, k, val)
			}
		}
	}
}
