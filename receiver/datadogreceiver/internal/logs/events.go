package logs

import (
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/tags"
)

// EventName marks the records made from Datadog events (the OTel event.name).
const EventName = "datadog.event"

// eventPrefix names every attribute taken from an event's own fields.
const eventPrefix = "datadog.event."

// Event is one Datadog event, whichever intake brought it: the Agent's
// /intake/, the v1 events API or the v2 one. It becomes one log record.
type Event struct {
	ID             string // what the API answered the client; empty from the Agent
	Title, Text    string
	Time           time.Time // zero: when it was received
	Host           string
	Tags           []string
	AlertType      string // error, warning, info, success, …; empty is info
	Priority       string
	AggregationKey string
	SourceTypeName string
	DeviceName     string
	RelatedEventID int64
	Category       string // v2: change or alert
	IntegrationID  string
	// Payload is the v2 event's category-specific attributes (author,
	// changed_resource, status, custom, …), flattened into dotted
	// datadog.event.* attributes by Flatten.
	Payload []KeyValue
}

// KeyValue is one flattened payload attribute.
type KeyValue struct {
	Key   string
	Value string
}

// EntryCount is how many map entries the event's record will hold, for the
// decode budget.
func (e *Event) EntryCount() int { return 12 + len(e.Tags) + len(e.Payload) }

// Events collects events as logs, one resource per host and tag set, as
// the logs of one source share a resource.
type Events struct {
	ld     plog.Logs
	groups map[string]plog.LogRecordSlice
	now    time.Time
}

// NewEvents starts a collection; now stamps what has no time of its own.
func NewEvents(now time.Time) *Events {
	return &Events{ld: plog.NewLogs(), groups: map[string]plog.LogRecordSlice{}, now: now}
}

// Logs is what was collected.
func (b *Events) Logs() plog.Logs { return b.ld }

// Add appends e's record to the resource of its host and tags.
func (b *Events) Add(e *Event) {
	key := e.Host + "\x00" + strings.Join(e.Tags, ",")
	records, ok := b.groups[key]
	if !ok {
		rl := b.ld.ResourceLogs().AppendEmpty()
		ra := rl.Resource().Attributes()
		tags.PutNonEmpty(ra, tags.Host, e.Host)
		for _, t := range e.Tags {
			if k, val := tags.Split(t); k != "" {
				if rk, ok := tags.ResourceKey(k); ok {
					tags.Put(ra, rk, val)
				}
			}
		}
		sl := rl.ScopeLogs().AppendEmpty()
		sl.Scope().SetName(ScopeName)
		records = sl.LogRecords()
		b.groups[key] = records
	}
	e.record(records.AppendEmpty(), b.now)
}

// record writes the event as a log record: the title and text are the
// body, as the event stream shows them; the alert type is the severity;
// every other field is a datadog.event.* attribute, and tags that are not
// resource attributes are record attributes, as on logs.
func (e *Event) record(lr plog.LogRecord, now time.Time) {
	switch {
	case e.Title != "" && e.Text != "":
		lr.Body().SetStr(e.Title + "\n" + e.Text)
	default:
		lr.Body().SetStr(e.Title + e.Text)
	}
	lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(now))
	if e.Time.IsZero() || !Storable(e.Time) {
		// A date the store cannot hold would wrap to another century;
		// the event is kept at its receive time, its date noted.
		if !e.Time.IsZero() {
			lr.Attributes().PutStr("datadog.event.date_unstorable", strconv.FormatInt(e.Time.Unix(), 10))
		}
		lr.SetTimestamp(pcommon.NewTimestampFromTime(now))
	} else {
		lr.SetTimestamp(pcommon.NewTimestampFromTime(e.Time))
	}
	alert := e.AlertType
	if alert == "" {
		alert = "info"
	}
	lr.SetSeverityText(alert)
	n := severity(alert)
	if n == plog.SeverityNumberUnspecified { // user_update, recommendation, snapshot
		n = plog.SeverityNumberInfo
	}
	lr.SetSeverityNumber(n)
	a := lr.Attributes()
	a.PutStr("event.name", EventName)
	tags.PutNonEmpty(a, eventPrefix+"id", e.ID)
	tags.PutNonEmpty(a, eventPrefix+"title", e.Title)
	tags.PutNonEmpty(a, eventPrefix+"alert_type", e.AlertType)
	tags.PutNonEmpty(a, eventPrefix+"priority", e.Priority)
	tags.PutNonEmpty(a, eventPrefix+"aggregation_key", e.AggregationKey)
	tags.PutNonEmpty(a, eventPrefix+"source_type_name", e.SourceTypeName)
	tags.PutNonEmpty(a, eventPrefix+"device_name", e.DeviceName)
	if e.RelatedEventID != 0 {
		a.PutStr(eventPrefix+"related_event_id", strconv.FormatInt(e.RelatedEventID, 10))
	}
	tags.PutNonEmpty(a, eventPrefix+"category", e.Category)
	tags.PutNonEmpty(a, eventPrefix+"integration_id", e.IntegrationID)
	for _, kv := range e.Payload {
		a.PutStr(eventPrefix+kv.Key, kv.Value)
	}
	for _, t := range e.Tags {
		if k, val := tags.Split(t); k != "" {
			if _, res := tags.ResourceKey(k); !res {
				tags.Put(a, k, val)
			}
		}
	}
}
