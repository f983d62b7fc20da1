package metrics

// Field numbers of agent-payload's MetricPayload (datadog
// agent-payload proto/metrics/agent_payload.proto), as series_v2.go reads
// them off the wire. TestFieldNumbersMatchTheProtos checks each against
// the descriptor the generated types carry.
const (
	metricPayloadSeries = 1

	seriesResources      = 1
	seriesMetric         = 2
	seriesTags           = 3
	seriesPoints         = 4
	seriesType           = 5
	seriesUnit           = 6
	seriesSourceTypeName = 7
	seriesInterval       = 8
	seriesMetadata       = 9

	resourceType = 1
	resourceName = 2

	pointValue     = 1
	pointTimestamp = 2

	metadataOrigin = 1

	originProduct  = 4
	originCategory = 5
	originService  = 6
)
