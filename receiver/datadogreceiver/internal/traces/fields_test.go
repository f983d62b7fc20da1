package traces

import (
	"testing"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"
	"github.com/stretchr/testify/assert"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestFieldNumbersMatchTheProtos(t *testing.T) {
	for _, tc := range []struct {
		msg    protoreflect.MessageDescriptor
		fields map[protoreflect.Name]protowire.Number
	}{
		{(&pb.AgentPayload{}).ProtoReflect().Descriptor(), map[protoreflect.Name]protowire.Number{
			"hostName": agentPayloadHostName, "env": agentPayloadEnv, "tracerPayloads": agentPayloadTracerPayloads,
			"tags": agentPayloadTags, "agentVersion": agentPayloadAgentVersion, "targetTPS": agentPayloadTargetTPS,
			"errorTPS": agentPayloadErrorTPS, "rareSamplerEnabled": agentPayloadRareSamplerEnabled, "idxTracerPayloads": agentPayloadIdxTracerPayloads,
		}},
		{(&pb.TracerPayload{}).ProtoReflect().Descriptor(), map[protoreflect.Name]protowire.Number{
			"containerID": tracerPayloadContainerID, "languageName": tracerPayloadLanguageName, "languageVersion": tracerPayloadLanguageVersion,
			"tracerVersion": tracerPayloadTracerVersion, "runtimeID": tracerPayloadRuntimeID, "chunks": tracerPayloadChunks,
			"tags": tracerPayloadTags, "env": tracerPayloadEnv, "hostname": tracerPayloadHostname, "appVersion": tracerPayloadAppVersion,
			"containerDebug": tracerPayloadContainerDebug,
		}},
		{(&pb.TraceChunk{}).ProtoReflect().Descriptor(), map[protoreflect.Name]protowire.Number{
			"priority": traceChunkPriority, "origin": traceChunkOrigin, "spans": traceChunkSpans, "tags": traceChunkTags,
			"droppedTrace": traceChunkDroppedTrace,
		}},
		{(&pb.Span{}).ProtoReflect().Descriptor(), map[protoreflect.Name]protowire.Number{
			"service": spanService, "name": spanName, "resource": spanResource, "traceID": spanTraceID, "spanID": spanSpanID,
			"parentID": spanParentID, "start": spanStart, "duration": spanDuration, "error": spanError, "meta": spanMeta,
			"metrics": spanMetrics, "type": spanType, "meta_struct": spanMetaStruct, "spanLinks": spanSpanLinks, "spanEvents": spanSpanEvents,
		}},
	} {
		t.Run(string(tc.msg.FullName()), func(t *testing.T) {
			assert.Len(t, tc.fields, tc.msg.Fields().Len(), "%s: every field named", tc.msg.FullName())
			for name, num := range tc.fields {
				f := tc.msg.Fields().ByName(name)
				if assert.NotNil(t, f, "%s.%s", tc.msg.FullName(), name) {
					assert.Equal(t, f.Number(), num, "%s.%s", tc.msg.FullName(), name)
				}
			}
		})
	}
}
