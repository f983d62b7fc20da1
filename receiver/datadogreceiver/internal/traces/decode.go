// Package traces decodes every trace format Datadog tracers and trace-agents
// send, with Datadog's own generated types, and translates it to pdata.
package traces

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"

	pb "github.com/DataDog/datadog-agent/pkg/proto/pbgo/trace"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// Tracer is what a tracer says about itself in the Datadog-Meta-* and
// Datadog-Container-ID headers of the local trace endpoints.
type Tracer struct {
	Lang, LangVersion, TracerVersion, ContainerID string
}

// DecodeTracer decodes the body a tracer sends to /v0.3/traces,
// /v0.4/traces, /v0.5/traces or /v0.7/traces into one TracerPayload. An
// empty body (the probe some tracers send at start-up) decodes to an empty
// payload. What decoding builds is taken from bud first.
func DecodeTracer(version, contentType string, body []byte, t Tracer, bud *budget.Budget) (*pb.TracerPayload, error) {
	tp := &pb.TracerPayload{
		LanguageName:    t.Lang,
		LanguageVersion: t.LangVersion,
		TracerVersion:   t.TracerVersion,
		ContainerID:     t.ContainerID,
	}
	if len(body) == 0 {
		return tp, nil
	}
	if err := countBody(version, contentType, body, bud); err != nil {
		return nil, err
	}
	var traces pb.Traces
	switch version {
	case "v0.3", "v0.4":
		if isJSON(contentType) {
			if err := json.Unmarshal(body, &traces); err != nil {
				return nil, fmt.Errorf("decoding %s JSON traces: %w", version, err)
			}
		} else if _, err := traces.UnmarshalMsg(body); err != nil {
			return nil, fmt.Errorf("decoding %s msgpack traces: %w", version, err)
		}
	case "v0.5":
		if err := traces.UnmarshalMsgDictionary(body); err != nil {
			return nil, fmt.Errorf("decoding v0.5 msgpack traces: %w", err)
		}
	case "v1.0":
		return nil, errors.New("v1.0 payloads decode with DecodeV1")
	case "v0.7":
		if _, err := tp.UnmarshalMsg(body); err != nil {
			return nil, fmt.Errorf("decoding v0.7 tracer payload: %w", err)
		}
		fillTracer(tp, t)
		return tp, nil
	default:
		return nil, fmt.Errorf("unknown trace format %q", version)
	}
	tp.Chunks = make([]*pb.TraceChunk, 0, len(traces))
	for _, tr := range traces {
		if len(tr) > 0 {
			tp.Chunks = append(tp.Chunks, &pb.TraceChunk{Spans: tr})
		}
	}
	return tp, nil
}

// countBody takes from bud what decoding a tracer body builds.
func countBody(version, contentType string, body []byte, bud *budget.Budget) error {
	if (version == "v0.3" || version == "v0.4") && isJSON(contentType) {
		return bud.JSON(body, budget.Node)
	}
	return bud.Msgpack(body)
}

// fillTracer completes a payload's own fields with the headers where the
// payload left them empty.
func fillTracer(tp *pb.TracerPayload, t Tracer) {
	if tp.LanguageName == "" {
		tp.LanguageName = t.Lang
	}
	if tp.LanguageVersion == "" {
		tp.LanguageVersion = t.LangVersion
	}
	if tp.TracerVersion == "" {
		tp.TracerVersion = t.TracerVersion
	}
	if tp.ContainerID == "" {
		tp.ContainerID = t.ContainerID
	}
}

// DecodeAgent decodes the AgentPayload protobuf a trace-agent (or the
// contrib datadogexporter) sends to /api/v0.2/traces, after taking from
// bud what decoding it builds.
func DecodeAgent(body []byte, bud *budget.Budget) (*pb.AgentPayload, error) {
	if len(body) == 0 {
		return nil, errors.New("empty AgentPayload")
	}
	if err := bud.Proto(agentPayload, body); err != nil {
		return nil, err
	}
	var ap pb.AgentPayload
	if err := ap.UnmarshalVT(body); err != nil {
		return nil, fmt.Errorf("decoding AgentPayload protobuf: %w", err)
	}
	return &ap, nil
}

var agentPayload = (&pb.AgentPayload{}).ProtoReflect().Descriptor()

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || mt == "text/json")
}
