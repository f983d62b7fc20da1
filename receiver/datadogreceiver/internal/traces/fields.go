package traces

// Field numbers of the trace-agent's protos (datadog-agent
// pkg/proto/datadog/trace: agent_payload.proto, tracer_payload.proto,
// span.proto), as agentproto.go reads them off the wire.
// TestFieldNumbersMatchTheProtos checks each against the descriptors of
// the generated types, so a reader can trust the names.
const (
	agentPayloadHostName           = 1
	agentPayloadEnv                = 2
	agentPayloadTracerPayloads     = 5
	agentPayloadTags               = 6
	agentPayloadAgentVersion       = 7
	agentPayloadTargetTPS          = 8
	agentPayloadErrorTPS           = 9
	agentPayloadRareSamplerEnabled = 10
	agentPayloadIdxTracerPayloads  = 11

	tracerPayloadContainerID     = 1
	tracerPayloadLanguageName    = 2
	tracerPayloadLanguageVersion = 3
	tracerPayloadTracerVersion   = 4
	tracerPayloadRuntimeID       = 5
	tracerPayloadChunks          = 6
	tracerPayloadTags            = 7
	tracerPayloadEnv             = 8
	tracerPayloadHostname        = 9
	tracerPayloadAppVersion      = 10
	tracerPayloadContainerDebug  = 11

	traceChunkPriority     = 1
	traceChunkOrigin       = 2
	traceChunkSpans        = 3
	traceChunkTags         = 4
	traceChunkDroppedTrace = 5

	spanService    = 1
	spanName       = 2
	spanResource   = 3
	spanTraceID    = 4
	spanSpanID     = 5
	spanParentID   = 6
	spanStart      = 7
	spanDuration   = 8
	spanError      = 9
	spanMeta       = 10
	spanMetrics    = 11
	spanType       = 12
	spanMetaStruct = 13
	spanSpanLinks  = 14
	spanSpanEvents = 15
)
