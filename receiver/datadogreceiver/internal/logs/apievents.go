package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// The values Datadog's v1 events API takes (datadogV1.EventAlertType,
// EventPriority); anything else is refused as Datadog refuses it.
var (
	v1AlertTypes = []string{"error", "warning", "info", "success", "user_update", "recommendation", "snapshot"}
	v1Priorities = []string{"normal", "low"}
)

// eventV1 is datadogV1.EventCreateRequest.
type eventV1 struct {
	Title          *string  `json:"title"`
	Text           *string  `json:"text"`
	DateHappened   int64    `json:"date_happened"`
	Host           string   `json:"host"`
	Tags           []string `json:"tags"`
	AlertType      string   `json:"alert_type"`
	Priority       *string  `json:"priority"`
	AggregationKey string   `json:"aggregation_key"`
	SourceTypeName string   `json:"source_type_name"`
	DeviceName     string   `json:"device_name"`
	RelatedEventID int64    `json:"related_event_id"`
}

// EventV1 reads a POST /api/v1/events body. Title and text are required;
// date_happened is in seconds since the epoch, and absent means now.
func EventV1(body []byte, bud *budget.Budget) (Event, error) {
	var in eventV1
	if err := decodeEvent(body, bud, &in); err != nil {
		return Event{}, err
	}
	switch {
	case in.Title == nil || *in.Title == "":
		return Event{}, errors.New("event title is required")
	case in.Text == nil:
		return Event{}, errors.New("event text is required")
	case in.AlertType != "" && !slices.Contains(v1AlertTypes, in.AlertType):
		return Event{}, fmt.Errorf("alert_type %q is not one of %s", in.AlertType, strings.Join(v1AlertTypes, ", "))
	case in.Priority != nil && !slices.Contains(v1Priorities, *in.Priority):
		return Event{}, fmt.Errorf("priority %q is not one of %s", *in.Priority, strings.Join(v1Priorities, ", "))
	case in.DateHappened < 0:
		return Event{}, fmt.Errorf("date_happened %d is before the epoch", in.DateHappened)
	}
	e := Event{
		Title: *in.Title, Text: *in.Text, Host: in.Host, Tags: in.Tags,
		AlertType: in.AlertType, AggregationKey: in.AggregationKey,
		SourceTypeName: in.SourceTypeName, DeviceName: in.DeviceName,
		RelatedEventID: in.RelatedEventID,
	}
	if in.Priority != nil {
		e.Priority = *in.Priority
	}
	if in.DateHappened > 0 {
		e.Time = time.Unix(in.DateHappened, 0)
	}
	return e, nil
}

// eventV2 is datadogV2.EventCreateRequestPayload.
type eventV2 struct {
	Data *struct {
		Type       string `json:"type"`
		Attributes *struct {
			Title          string         `json:"title"`
			Message        string         `json:"message"`
			Category       string         `json:"category"`
			Timestamp      string         `json:"timestamp"`
			Host           string         `json:"host"`
			Tags           []string       `json:"tags"`
			AggregationKey string         `json:"aggregation_key"`
			IntegrationID  string         `json:"integration_id"`
			Attributes     map[string]any `json:"attributes"`
		} `json:"attributes"`
	} `json:"data"`
}

// An alert event's status is its alert type: what the v1 API and the
// Agent call warning and success, v2 calls warn and ok.
var v2Statuses = map[string]string{"error": "error", "warn": "warning", "ok": "success"}

// EventV2 reads a POST /api/v2/events body: {"data":{"type":"event",
// "attributes":{title, message, category, timestamp, host, tags,
// aggregation_key, integration_id, attributes}}}. The category decides
// what the inner attributes must hold, as Datadog checks it: a change
// names its changed_resource, an alert has a status.
func EventV2(body []byte, bud *budget.Budget) (Event, error) {
	var in eventV2
	if err := decodeEvent(body, bud, &in); err != nil {
		return Event{}, err
	}
	if in.Data == nil || in.Data.Attributes == nil {
		return Event{}, errors.New("data.attributes is required")
	}
	if in.Data.Type != "event" {
		return Event{}, fmt.Errorf("data.type %q must be \"event\"", in.Data.Type)
	}
	a := in.Data.Attributes
	if a.Title == "" {
		return Event{}, errors.New("title is required")
	}
	if a.Attributes == nil {
		return Event{}, errors.New("attributes is required")
	}
	e := Event{
		Title: a.Title, Text: a.Message, Host: a.Host, Tags: a.Tags,
		AggregationKey: a.AggregationKey, Category: a.Category, IntegrationID: a.IntegrationID,
	}
	switch a.Category {
	case "change":
		r, _ := a.Attributes["changed_resource"].(map[string]any)
		if r["name"] == nil || r["type"] == nil {
			return Event{}, errors.New("a change event's attributes.changed_resource needs a name and a type")
		}
	case "alert":
		status, _ := a.Attributes["status"].(string)
		alert, ok := v2Statuses[status]
		if !ok {
			return Event{}, fmt.Errorf("an alert event's attributes.status %q is not one of error, warn, ok", status)
		}
		e.AlertType = alert
		if p, ok := a.Attributes["priority"].(string); ok && (len(p) != 1 || p[0] < '1' || p[0] > '5') {
			return Event{}, fmt.Errorf("attributes.priority %q is not one of 1 to 5", p)
		}
	default:
		return Event{}, fmt.Errorf("category %q is not one of change, alert", a.Category)
	}
	if a.Timestamp != "" {
		t, err := time.Parse(time.RFC3339Nano, a.Timestamp)
		if err != nil {
			return Event{}, fmt.Errorf("timestamp %q is not ISO 8601 (2006-01-02T15:04:05Z)", a.Timestamp)
		}
		e.Time = t
	}
	e.Payload = Flatten(a.Attributes)
	return e, nil
}

// decodeEvent decodes one JSON event body into v after charging the budget
// for the tree it builds; numbers keep their text.
func decodeEvent(body []byte, bud *budget.Budget, v any) error {
	if err := bud.JSON(body, budget.TreeNode); err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("decoding event JSON: %w", err)
	}
	if d.More() {
		return errors.New("decoding event JSON: more than one value in the body")
	}
	return nil
}

// Flatten turns nested attributes into dotted keys in key order: objects
// nest, arrays stay one JSON value (a list of resources reads better
// whole than as .0, .1 keys), null is left out.
func Flatten(m map[string]any) []KeyValue {
	var out []KeyValue
	flatten("", m, &out)
	return out
}

func flatten(prefix string, m map[string]any, out *[]KeyValue) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		key := prefix + k
		switch v := m[k].(type) {
		case nil:
		case string:
			*out = append(*out, KeyValue{key, v})
		case json.Number:
			*out = append(*out, KeyValue{key, v.String()})
		case bool:
			*out = append(*out, KeyValue{key, fmt.Sprint(v)})
		case map[string]any:
			flatten(key+".", v, out)
		default:
			b, _ := json.Marshal(v)
			*out = append(*out, KeyValue{key, string(b)})
		}
	}
}
