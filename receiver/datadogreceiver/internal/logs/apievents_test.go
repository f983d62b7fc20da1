package logs

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

func TestEventV1(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       Event
		err        string
	}{
		{
			name: "every field",
			body: `{"title":"Deploy","text":"v1.2 out","date_happened":1700000000,"host":"ci-1","tags":["env:prod","team:core"],
			  "alert_type":"success","priority":"low","aggregation_key":"deploy","source_type_name":"jenkins","device_name":"sda","related_event_id":42}`,
			want: Event{
				Title: "Deploy", Text: "v1.2 out", Time: time.Unix(1700000000, 0), Host: "ci-1", Tags: []string{"env:prod", "team:core"},
				AlertType: "success", Priority: "low", AggregationKey: "deploy", SourceTypeName: "jenkins", DeviceName: "sda", RelatedEventID: 42,
			},
		},
		{name: "only what is required", body: `{"title":"t","text":""}`, want: Event{Title: "t"}},
		{name: "null priority, as the client sends an unset nullable", body: `{"title":"t","text":"x","priority":null}`, want: Event{Title: "t", Text: "x"}},
		{name: "no title", body: `{"text":"x"}`, err: "event title is required"},
		{name: "empty title", body: `{"title":"","text":"x"}`, err: "event title is required"},
		{name: "no text", body: `{"title":"t"}`, err: "event text is required"},
		{name: "unknown alert type", body: `{"title":"t","text":"x","alert_type":"fatal"}`, err: `alert_type "fatal" is not one of error, warning, info, success, user_update, recommendation, snapshot`},
		{name: "unknown priority", body: `{"title":"t","text":"x","priority":"high"}`, err: `priority "high" is not one of normal, low`},
		{name: "negative date", body: `{"title":"t","text":"x","date_happened":-1}`, err: "date_happened -1 is before the epoch"},
		{name: "tags not a list", body: `{"title":"t","text":"x","tags":"a:b"}`, err: "decoding event JSON"},
		{name: "two values", body: `{"title":"t","text":"x"}{}`, err: "more than one value"},
		{name: "not JSON", body: `title=t`, err: "decoding event JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EventV1([]byte(tc.body), nil)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestEventV2(t *testing.T) {
	wrap := func(attrs string) string { return `{"data":{"type":"event","attributes":` + attrs + `}}` }
	for _, tc := range []struct {
		name, body string
		want       Event
		err        string
	}{
		{
			// datadog-api-client-go's examples/v2/events/CreateEvent.go.
			name: "change",
			body: wrap(`{"title":"Feature flag updated","message":"payment_processed flag changed","category":"change",
			  "timestamp":"2025-01-02T03:04:05.123Z","host":"web-1","tags":["env:api_client_test"],"aggregation_key":"flag-1",
			  "integration_id":"custom-events","attributes":{"author":{"name":"example@datadog.com","type":"user"},
			  "change_metadata":{"dd":{"team":"datadog_team","user_email":"datadog@datadog.com"},"resource_link":"datadog.com/feature/fallback_payments_test"},
			  "changed_resource":{"name":"fallback_payments_test","type":"feature_flag"},
			  "impacted_resources":[{"name":"payments_api","type":"service"}],
			  "new_value":{"enabled":true,"percentage":"50%","rule":{"datacenter":"devcycle.us1.prod"}},"prev_value":{"enabled":true,"percentage":"10%"}}}`),
			want: Event{
				Title: "Feature flag updated", Text: "payment_processed flag changed", Category: "change",
				Time: time.Date(2025, 1, 2, 3, 4, 5, 123e6, time.UTC), Host: "web-1", Tags: []string{"env:api_client_test"},
				AggregationKey: "flag-1", IntegrationID: "custom-events",
				Payload: []KeyValue{
					{"author.name", "example@datadog.com"},
					{"author.type", "user"},
					{"change_metadata.dd.team", "datadog_team"},
					{"change_metadata.dd.user_email", "datadog@datadog.com"},
					{"change_metadata.resource_link", "datadog.com/feature/fallback_payments_test"},
					{"changed_resource.name", "fallback_payments_test"},
					{"changed_resource.type", "feature_flag"},
					{"impacted_resources", `[{"name":"payments_api","type":"service"}]`},
					{"new_value.enabled", "true"},
					{"new_value.percentage", "50%"},
					{"new_value.rule.datacenter", "devcycle.us1.prod"},
					{"prev_value.enabled", "true"},
					{"prev_value.percentage", "10%"},
				},
			},
		},
		{
			name: "alert",
			body: wrap(`{"title":"CPU high","category":"alert","attributes":{"status":"warn","priority":"2","custom":{"threshold":90.5,"gone":null}}}`),
			want: Event{
				Title: "CPU high", Category: "alert", AlertType: "warning",
				Payload: []KeyValue{{"custom.threshold", "90.5"}, {"priority", "2"}, {"status", "warn"}},
			},
		},
		{
			name: "alert ok is success", body: wrap(`{"title":"t","category":"alert","attributes":{"status":"ok"}}`),
			want: Event{Title: "t", Category: "alert", AlertType: "success", Payload: []KeyValue{{"status", "ok"}}},
		},
		{name: "no data", body: `{}`, err: "data.attributes is required"},
		{name: "wrong type", body: `{"data":{"type":"log","attributes":{}}}`, err: `data.type "log" must be "event"`},
		{name: "no title", body: wrap(`{"category":"change","attributes":{}}`), err: "title is required"},
		{name: "no inner attributes", body: wrap(`{"title":"t","category":"change"}`), err: "attributes is required"},
		{name: "unknown category", body: wrap(`{"title":"t","category":"deploy","attributes":{}}`), err: `category "deploy" is not one of change, alert`},
		{name: "change without resource", body: wrap(`{"title":"t","category":"change","attributes":{"changed_resource":{"name":"x"}}}`), err: "changed_resource needs a name and a type"},
		{name: "alert without status", body: wrap(`{"title":"t","category":"alert","attributes":{}}`), err: `attributes.status "" is not one of error, warn, ok`},
		{name: "alert priority out of range", body: wrap(`{"title":"t","category":"alert","attributes":{"status":"ok","priority":"6"}}`), err: `attributes.priority "6" is not one of 1 to 5`},
		{name: "bad timestamp", body: wrap(`{"title":"t","category":"alert","timestamp":"yesterday","attributes":{"status":"ok"}}`), err: `timestamp "yesterday" is not ISO 8601`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EventV2([]byte(tc.body), nil)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestEventBodiesAreBudgeted(t *testing.T) {
	body := []byte(`{"title":"t","text":"x","tags":["a","b","c","d","e","f","g","h"]}`)
	_, err := EventV1(body, budget.New(64))
	var over *budget.ExceededError
	require.ErrorAs(t, err, &over)
	_, err = EventV2([]byte(`{"data":{"type":"event","attributes":{"title":"t","category":"alert","attributes":{"status":"ok","custom":{"a":[1,2,3,4,5,6,7,8]}}}}}`), budget.New(64))
	require.ErrorAs(t, err, &over)
}

// An event dated where the store cannot reach (date_happened is seconds;
// time.Unix(9e15) is in the year 285 million) keeps its receive time, and
// the date it gave is noted. Before, its nanoseconds wrapped to 1677 or a
// time far from both.
func TestEventDateUnstorable(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	for _, ts := range []int64{9_000_000_000_000_000, -9_000_000_000, -1} {
		e := Event{Title: "t", Text: "x", Time: time.Unix(ts, 0)}
		lr := plog.NewLogRecord()
		e.record(lr, now)
		assert.Equal(t, now, lr.Timestamp().AsTime().Local(), ts)
		v, ok := lr.Attributes().Get("datadog.event.date_unstorable")
		require.True(t, ok, ts)
		assert.Equal(t, strconv.FormatInt(ts, 10), v.Str())
	}
	e := Event{Title: "t", Text: "x", Time: time.Unix(9_000_000_000, 0)} // 2255
	lr := plog.NewLogRecord()
	e.record(lr, now)
	assert.Equal(t, int64(9_000_000_000), lr.Timestamp().AsTime().Unix())
}
