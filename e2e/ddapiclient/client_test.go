package ddapiclient

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/DataDog/datadog-api-client-go/v2/api/datadog"
	"github.com/DataDog/datadog-api-client-go/v2/api/datadogV1"
	"github.com/DataDog/datadog-api-client-go/v2/api/datadogV2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver"
)

const apiKey = "e2e-ingestion-key"

// startReceiver runs the receiver for logs and metrics on a free loopback
// port, requiring apiKey as a real intake would.
func startReceiver(t *testing.T) (string, *consumertest.LogsSink, *consumertest.MetricsSink) {
	t.Helper()
	require.NoError(t, featuregate.GlobalRegistry().Set(datadogreceiver.FeatureGateID, true))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	f := datadogreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*datadogreceiver.Config)
	cfg.NetAddr.Endpoint = addr
	cfg.APIKeys = []configopaque.String{apiKey}
	set := receivertest.NewNopSettings(component.MustNewType("datadog"))
	logs, metrics := new(consumertest.LogsSink), new(consumertest.MetricsSink)
	lr, err := f.CreateLogs(context.Background(), set, cfg, logs)
	require.NoError(t, err)
	mr, err := f.CreateMetrics(context.Background(), set, cfg, metrics)
	require.NoError(t, err)
	for _, c := range []component.Component{lr, mr} {
		require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
		t.Cleanup(func() { require.NoError(t, c.Shutdown(context.Background())) })
	}
	return "http://" + addr, logs, metrics
}

// client points every operation the test uses at the receiver, as
// re-pointing a real client's site would.
func client(url string) (*datadog.APIClient, context.Context) {
	cfg := datadog.NewConfiguration()
	here := datadog.ServerConfigurations{{URL: url}}
	cfg.Servers = here
	for _, op := range []string{
		"v1.MetricsApi.SubmitMetrics", "v2.MetricsApi.SubmitMetrics", "v2.LogsApi.SubmitLog",
		"v1.EventsApi.CreateEvent", "v2.EventsApi.CreateEvent", "v1.MetricsApi.SubmitDistributionPoints",
	} {
		cfg.OperationServers[op] = here
	}
	cfg.RetryConfiguration.EnableRetry = false
	ctx := context.WithValue(context.Background(), datadog.ContextAPIKeys, map[string]datadog.APIKey{"apiKeyAuth": {Key: apiKey}})
	return datadog.NewAPIClient(cfg), ctx
}

func metricByName(md []pmetric.Metrics, name string) (pmetric.Metric, pcommon.Map, bool) {
	for _, m := range md {
		for i := 0; i < m.ResourceMetrics().Len(); i++ {
			rm := m.ResourceMetrics().At(i)
			for j := 0; j < rm.ScopeMetrics().Len(); j++ {
				ms := rm.ScopeMetrics().At(j).Metrics()
				for k := 0; k < ms.Len(); k++ {
					if ms.At(k).Name() == name {
						return ms.At(k), rm.Resource().Attributes(), true
					}
				}
			}
		}
	}
	return pmetric.Metric{}, pcommon.Map{}, false
}

func TestSubmitMetricsV1(t *testing.T) {
	url, _, sink := startReceiver(t)
	api, ctx := client(url)
	ts, v := float64(time.Now().Unix()), 42.5
	_, resp, err := datadogV1.NewMetricsApi(api).SubmitMetrics(ctx, datadogV1.MetricsPayload{Series: []datadogV1.Series{{
		Metric: "e2e.v1.gauge", Type: datadog.PtrString("gauge"), Host: datadog.PtrString("api-host"),
		Points: [][]*float64{{&ts, &v}}, Tags: []string{"env:e2e", "team:core"},
	}}})
	require.NoError(t, err)
	assert.Equal(t, 202, resp.StatusCode)
	m, res, ok := metricByName(sink.AllMetrics(), "e2e.v1.gauge")
	require.True(t, ok)
	dp := m.Gauge().DataPoints().At(0)
	assert.Equal(t, v, dp.DoubleValue())
	assert.Equal(t, pcommon.Timestamp(int64(ts)*1e9), dp.Timestamp())
	assert.Equal(t, "core", dp.Attributes().AsRaw()["team"])
	assert.Equal(t, "api-host", res.AsRaw()["host.name"])
	assert.Equal(t, "e2e", res.AsRaw()["deployment.environment.name"])
}

func TestSubmitMetricsV2(t *testing.T) {
	url, _, sink := startReceiver(t)
	api, ctx := client(url)
	ts := time.Now().Unix()
	_, resp, err := datadogV2.NewMetricsApi(api).SubmitMetrics(ctx, datadogV2.MetricPayload{Series: []datadogV2.MetricSeries{{
		Metric: "e2e.v2.count", Type: datadogV2.METRICINTAKETYPE_COUNT.Ptr(), Interval: datadog.PtrInt64(20),
		Unit:      datadog.PtrString("request"),
		Points:    []datadogV2.MetricPoint{{Timestamp: datadog.PtrInt64(ts), Value: datadog.PtrFloat64(7)}},
		Resources: []datadogV2.MetricResource{{Type: datadog.PtrString("host"), Name: datadog.PtrString("api-host")}},
		Tags:      []string{"route:/cart"},
	}}})
	require.NoError(t, err)
	assert.Equal(t, 202, resp.StatusCode)
	m, res, ok := metricByName(sink.AllMetrics(), "e2e.v2.count")
	require.True(t, ok)
	require.Equal(t, pmetric.MetricTypeSum, m.Type())
	assert.True(t, m.Sum().IsMonotonic())
	assert.Equal(t, "request", m.Unit())
	dp := m.Sum().DataPoints().At(0)
	assert.Equal(t, 7.0, dp.DoubleValue())
	assert.Equal(t, pcommon.Timestamp((ts-20)*1e9), dp.StartTimestamp())
	assert.Equal(t, "api-host", res.AsRaw()["host.name"])
}

func TestSubmitDistributionPoints(t *testing.T) {
	url, _, sink := startReceiver(t)
	api, ctx := client(url)
	// As the client's examples/v1/metrics/SubmitDistributionPoints*.go,
	// plain and deflated.
	for i, opts := range []datadogV1.SubmitDistributionPointsOptionalParameters{
		{}, *datadogV1.NewSubmitDistributionPointsOptionalParameters().WithContentEncoding(datadogV1.DISTRIBUTIONPOINTSCONTENTENCODING_DEFLATE),
	} {
		ts := float64(time.Now().Unix())
		_, resp, err := datadogV1.NewMetricsApi(api).SubmitDistributionPoints(ctx, datadogV1.DistributionPointsPayload{
			Series: []datadogV1.DistributionPointsSeries{{
				Metric: "e2e.dist", Host: datadog.PtrString("lambda-host"), Tags: []string{"fn:checkout"},
				Points: [][]datadogV1.DistributionPointItem{{
					datadogV1.DistributionPointTimestampAsDistributionPointItem(&ts),
					datadogV1.DistributionPointDataAsDistributionPointItem(&[]float64{1.0, 2.0, 40.0}),
				}},
			}},
		}, opts)
		require.NoError(t, err, i)
		assert.Equal(t, 202, resp.StatusCode)
	}
	m, res, ok := metricByName(sink.AllMetrics(), "e2e.dist")
	require.True(t, ok)
	require.Equal(t, pmetric.MetricTypeExponentialHistogram, m.Type())
	dp := m.ExponentialHistogram().DataPoints().At(0)
	assert.Equal(t, uint64(3), dp.Count())
	assert.Equal(t, 43.0, dp.Sum())
	assert.Equal(t, 40.0, dp.Max())
	assert.Equal(t, "checkout", dp.Attributes().AsRaw()["fn"])
	assert.Equal(t, "lambda-host", res.AsRaw()["host.name"])
	assert.Equal(t, 2, sink.DataPointCount(), "two requests, one histogram point each")
}

func TestSubmitLogs(t *testing.T) {
	url, sink, _ := startReceiver(t)
	api, ctx := client(url)
	encodings := []datadogV2.ContentEncoding{datadogV2.CONTENTENCODING_GZIP, datadogV2.CONTENTENCODING_DEFLATE, datadogV2.CONTENTENCODING_IDENTITY}
	for _, enc := range encodings {
		_, resp, err := datadogV2.NewLogsApi(api).SubmitLog(ctx, []datadogV2.HTTPLogItem{{
			Message: "payment failed", Ddsource: datadog.PtrString("go"), Ddtags: datadog.PtrString("env:e2e,version:3"),
			Hostname: datadog.PtrString("api-host"), Service: datadog.PtrString("billing"),
			AdditionalProperties: map[string]any{"status": "error", "dd.trace_id": "1234"},
		}}, *datadogV2.NewSubmitLogOptionalParameters().WithContentEncoding(enc))
		require.NoError(t, err, enc)
		assert.Equal(t, 202, resp.StatusCode)
	}
	require.Equal(t, len(encodings), sink.LogRecordCount())
	rl := sink.AllLogs()[0].ResourceLogs().At(0)
	lr := rl.ScopeLogs().At(0).LogRecords().At(0)
	assert.Equal(t, "payment failed", lr.Body().Str())
	assert.Equal(t, plog.SeverityNumberError, lr.SeverityNumber())
	assert.Equal(t, "000000000000000000000000000004d2", lr.TraceID().String())
	assert.Equal(t, map[string]any{
		"host.name": "api-host", "service.name": "billing", "deployment.environment.name": "e2e",
		"service.version": "3", "datadog.log.source": "go",
	}, rl.Resource().Attributes().AsRaw())
}

// recordOf is the one record a sink holds after one event.
func recordOf(t *testing.T, sink *consumertest.LogsSink) (plog.LogRecord, pcommon.Map) {
	t.Helper()
	require.Equal(t, 1, sink.LogRecordCount())
	rl := sink.AllLogs()[0].ResourceLogs().At(0)
	return rl.ScopeLogs().At(0).LogRecords().At(0), rl.Resource().Attributes()
}

func TestCreateEventV1(t *testing.T) {
	url, sink, _ := startReceiver(t)
	api, ctx := client(url)
	req := datadogV1.NewEventCreateRequest("Rolled out v1.2 to 10% of hosts", "Deploy checkout")
	req.SetAlertType(datadogV1.EVENTALERTTYPE_SUCCESS)
	req.SetPriority(datadogV1.EVENTPRIORITY_LOW)
	req.SetHost("ci-runner")
	req.SetTags([]string{"env:e2e", "service:checkout", "team:payments"})
	req.SetAggregationKey("deploy-checkout")
	req.SetSourceTypeName("jenkins")
	out, resp, err := datadogV1.NewEventsApi(api).CreateEvent(ctx, *req)
	require.NoError(t, err)
	assert.Equal(t, 202, resp.StatusCode)
	assert.Equal(t, "ok", out.GetStatus())
	assert.NotZero(t, out.Event.GetId())
	assert.Equal(t, "Deploy checkout", out.Event.GetTitle())
	assert.Equal(t, datadogV1.EVENTALERTTYPE_SUCCESS, out.Event.GetAlertType())
	assert.Nil(t, out.UnparsedObject, "the answer parses as the client's model")

	lr, res := recordOf(t, sink)
	assert.Equal(t, "Deploy checkout\nRolled out v1.2 to 10% of hosts", lr.Body().Str())
	assert.Equal(t, plog.SeverityNumberInfo, lr.SeverityNumber())
	assert.Equal(t, map[string]any{"host.name": "ci-runner", "deployment.environment.name": "e2e", "service.name": "checkout"}, res.AsRaw())
	assert.Equal(t, map[string]any{
		"event.name": "datadog.event", "datadog.event.id": out.Event.GetIdStr(),
		"datadog.event.title": "Deploy checkout", "datadog.event.alert_type": "success", "datadog.event.priority": "low",
		"datadog.event.aggregation_key": "deploy-checkout", "datadog.event.source_type_name": "jenkins", "team": "payments",
	},
		lr.Attributes().AsRaw())
}

func TestCreateEventV2(t *testing.T) {
	url, sink, _ := startReceiver(t)
	api, ctx := client(url)
	// As datadog-api-client-go's examples/v2/events/CreateEvent.go builds it.
	change := datadogV2.NewChangeEventCustomAttributes(*datadogV2.NewChangeEventCustomAttributesChangedResource(
		"fallback_payments_test", datadogV2.CHANGEEVENTCUSTOMATTRIBUTESCHANGEDRESOURCETYPE_FEATURE_FLAG))
	change.SetAuthor(datadogV2.ChangeEventCustomAttributesAuthor{Name: "example@datadog.com", Type: datadogV2.CHANGEEVENTCUSTOMATTRIBUTESAUTHORTYPE_USER})
	change.SetNewValue(map[string]any{"enabled": true, "percentage": "50%"})
	change.SetImpactedResources([]datadogV2.ChangeEventCustomAttributesImpactedResourcesItems{{Name: "payments_api", Type: datadogV2.CHANGEEVENTCUSTOMATTRIBUTESIMPACTEDRESOURCESITEMSTYPE_SERVICE}})
	payload := datadogV2.NewEventPayload(datadogV2.ChangeEventCustomAttributesAsEventPayloadAttributes(change),
		datadogV2.EVENTCATEGORY_CHANGE, "payment_processed feature flag updated")
	payload.SetMessage("payment_processed feature flag has been enabled")
	payload.SetTags([]string{"env:e2e"})
	payload.SetAggregationKey("aggregation_key_123")
	payload.SetIntegrationId(datadogV2.EVENTPAYLOADINTEGRATIONID_CUSTOM_EVENTS)
	out, resp, err := datadogV2.NewEventsApi(api).CreateEvent(ctx, *datadogV2.NewEventCreateRequestPayload(
		*datadogV2.NewEventCreateRequest(*payload, datadogV2.EVENTCREATEREQUESTTYPE_EVENT)))
	require.NoError(t, err)
	assert.Equal(t, 202, resp.StatusCode)
	evt := out.GetData().Attributes.Attributes.GetEvt()
	assert.NotEmpty(t, evt.GetId())
	assert.NotEmpty(t, evt.GetUid())

	lr, _ := recordOf(t, sink)
	assert.Equal(t, "payment_processed feature flag updated\npayment_processed feature flag has been enabled", lr.Body().Str())
	assert.Equal(t, map[string]any{
		"event.name": "datadog.event", "datadog.event.id": evt.GetId(),
		"datadog.event.title": "payment_processed feature flag updated", "datadog.event.category": "change",
		"datadog.event.aggregation_key": "aggregation_key_123", "datadog.event.integration_id": "custom-events",
		"datadog.event.author.name": "example@datadog.com", "datadog.event.author.type": "user",
		"datadog.event.changed_resource.name": "fallback_payments_test", "datadog.event.changed_resource.type": "feature_flag",
		"datadog.event.impacted_resources": `[{"name":"payments_api","type":"service"}]`,
		"datadog.event.new_value.enabled":  "true", "datadog.event.new_value.percentage": "50%",
	},
		lr.Attributes().AsRaw())
}

func TestWrongKeyIsRefused(t *testing.T) {
	url, _, sink := startReceiver(t)
	api, _ := client(url)
	ctx := context.WithValue(context.Background(), datadog.ContextAPIKeys, map[string]datadog.APIKey{"apiKeyAuth": {Key: "wrong"}})
	ts, v := float64(time.Now().Unix()), 1.0
	_, resp, err := datadogV1.NewMetricsApi(api).SubmitMetrics(ctx, datadogV1.MetricsPayload{Series: []datadogV1.Series{{
		Metric: "x", Points: [][]*float64{{&ts, &v}},
	}}})
	require.Error(t, err)
	assert.Equal(t, 403, resp.StatusCode)
	assert.Equal(t, 0, sink.DataPointCount())
}
