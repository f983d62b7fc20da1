package metrics

import (
	"testing"

	"github.com/DataDog/agent-payload/v5/gogen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
)

// The schema rebuilt from gogo's descriptor counts each series and point
// of a MetricPayload, and each sketch of a SketchPayload, before gogo
// decodes them.
func TestPayloadDescriptorsCountMessages(t *testing.T) {
	var series []*gogen.MetricPayload_MetricSeries
	for range 100 {
		series = append(series, &gogen.MetricPayload_MetricSeries{
			Metric: "m",
			Points: []*gogen.MetricPayload_MetricPoint{{Timestamp: 1, Value: 2}},
		})
	}
	mp, err := (&gogen.MetricPayload{Series: series}).Marshal()
	require.NoError(t, err)
	// 100 series and 100 points, each a struct of at least two slots.
	const messages = 200
	assert.NoError(t, budget.New(messages*budget.Item).Proto(payloadDescriptor("MetricPayload"), mp))
	require.Error(t, budget.New(messages*2*budget.Slot).Proto(payloadDescriptor("MetricPayload"), mp))

	sp, err := (&gogen.SketchPayload{Sketches: make([]gogen.SketchPayload_Sketch, 50)}).Marshal()
	require.NoError(t, err)
	const sketches = 51 // 50 sketches and the metadata gogo always writes
	assert.NoError(t, budget.New(sketches*budget.Item).Proto(payloadDescriptor("SketchPayload"), sp))
	assert.Error(t, budget.New(sketches*2*budget.Slot).Proto(payloadDescriptor("SketchPayload"), sp))
}
