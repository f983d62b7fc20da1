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

// Field numbers of agent-payload's SketchPayload, as sketches.go reads
// them.
const (
	sketchPayloadSketches = 1
	sketchPayloadMetadata = 2

	sketchMetric        = 1
	sketchHost          = 2
	sketchDistributions = 3
	sketchTags          = 4
	sketchDogsketches   = 7
	sketchMetadata      = 8

	dogsketchTs  = 1
	dogsketchCnt = 2
	dogsketchMin = 3
	dogsketchMax = 4
	dogsketchAvg = 5
	dogsketchSum = 6
	dogsketchK   = 7
	dogsketchN   = 8
)
