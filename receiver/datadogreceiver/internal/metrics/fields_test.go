package metrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestFieldNumbersMatchTheProtos(t *testing.T) {
	f := payloadFile()
	payload := f.Messages().ByName("MetricPayload")
	sketches := f.Messages().ByName("SketchPayload")
	for _, tc := range []struct {
		msg    protoreflect.MessageDescriptor
		fields map[protoreflect.Name]protowire.Number
	}{
		{payload, map[protoreflect.Name]protowire.Number{"series": metricPayloadSeries}},
		{payload.Messages().ByName("MetricSeries"), map[protoreflect.Name]protowire.Number{
			"resources": seriesResources, "metric": seriesMetric, "tags": seriesTags, "points": seriesPoints, "type": seriesType,
			"unit": seriesUnit, "source_type_name": seriesSourceTypeName, "interval": seriesInterval, "metadata": seriesMetadata,
		}},
		{payload.Messages().ByName("Resource"), map[protoreflect.Name]protowire.Number{"type": resourceType, "name": resourceName}},
		{payload.Messages().ByName("MetricPoint"), map[protoreflect.Name]protowire.Number{"value": pointValue, "timestamp": pointTimestamp}},
		{sketches, map[protoreflect.Name]protowire.Number{"sketches": sketchPayloadSketches, "metadata": sketchPayloadMetadata}},
		{sketches.Messages().ByName("Sketch"), map[protoreflect.Name]protowire.Number{
			"metric": sketchMetric, "host": sketchHost,
			"distributions": sketchDistributions, "tags": sketchTags, "dogsketches": sketchDogsketches, "metadata": sketchMetadata,
		}},
		{sketches.Messages().ByName("Sketch").Messages().ByName("Dogsketch"), map[protoreflect.Name]protowire.Number{
			"ts": dogsketchTs, "cnt": dogsketchCnt, "min": dogsketchMin, "max": dogsketchMax, "avg": dogsketchAvg,
			"sum": dogsketchSum, "k": dogsketchK, "n": dogsketchN,
		}},
		{f.Messages().ByName("Metadata"), map[protoreflect.Name]protowire.Number{"origin": metadataOrigin}},
		{f.Messages().ByName("Origin"), map[protoreflect.Name]protowire.Number{
			"origin_product": originProduct, "origin_category": originCategory, "origin_service": originService,
		}},
	} {
		if !assert.NotNil(t, tc.msg) {
			continue
		}
		t.Run(string(tc.msg.FullName()), func(t *testing.T) {
			assert.Len(t, tc.fields, tc.msg.Fields().Len(), "%s: every field named", tc.msg.FullName())
			for name, num := range tc.fields {
				fd := tc.msg.Fields().ByName(name)
				if assert.NotNil(t, fd, "%s.%s", tc.msg.FullName(), name) {
					assert.Equal(t, fd.Number(), num, "%s.%s", tc.msg.FullName(), name)
				}
			}
		})
	}
}
