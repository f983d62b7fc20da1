package metrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

var statsdNow = time.Unix(1_700_000_000, 0)

func TestDogStatsD(t *testing.T) {
	body := "page.views:1|c|#env:prod,route:/cart\n" +
		"page.views:3|c|@0.5|#env:prod,route:/cart\n" +
		"queue.size:42|g|#env:prod|c:abc123|T1699999990\n" +
		"req.latency:10|ms|#env:prod\nreq.latency:20:30|ms|@0.5|#env:prod\n" +
		"payload.size:100|d\n" +
		"users:alice|s\nusers:bob|s\nusers:alice|s\n" +
		"_sc|db.up|2|h:db-1|#env:prod|m:connection refused\n" +
		"_e{5,4}:title|text|#env:prod\n" +
		"\n"
	md, res, err := DogStatsD([]byte(body), statsdNow, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Events)
	assert.Equal(t, 0, res.Malformed)
	m := byName(md)

	views := m["page.views"].Sum()
	assert.True(t, views.IsMonotonic())
	require.Equal(t, 2, views.DataPoints().Len())
	assert.Equal(t, 6.0, views.DataPoints().At(1).DoubleValue(), "scaled by 1/rate")
	assert.Equal(t, map[string]any{"route": "/cart"}, views.DataPoints().At(0).Attributes().AsRaw())

	q := m["queue.size"].Gauge().DataPoints().At(0)
	assert.Equal(t, 42.0, q.DoubleValue())
	assert.Equal(t, pcommon.Timestamp(1_699_999_990*1e9), q.Timestamp(), "T sets the timestamp")
	assert.Equal(t, "abc123", resourceOf(md, "queue.size")["container.id"])

	lat := m["req.latency"]
	require.Equal(t, pmetric.MetricTypeExponentialHistogram, lat.Type())
	assert.Equal(t, "ms", lat.Unit())
	dp := lat.ExponentialHistogram().DataPoints().At(0)
	assert.Equal(t, uint64(5), dp.Count(), "10, then 20 and 30 at rate 0.5")
	assert.Equal(t, 110.0, dp.Sum())
	assert.Equal(t, 10.0, dp.Min())
	assert.Equal(t, 30.0, dp.Max())

	assert.Equal(t, uint64(1), m["payload.size"].ExponentialHistogram().DataPoints().At(0).Count())
	assert.Equal(t, 2.0, m["users"].Gauge().DataPoints().At(0).DoubleValue(), "distinct set members")

	sc := m["db.up"].Gauge().DataPoints().At(0)
	assert.Equal(t, 2.0, sc.DoubleValue())
	assert.Equal(t, "connection refused", sc.Attributes().AsRaw()["message"])
	assert.Equal(t, "db-1", resourceOf(md, "db.up")["host.name"])
}

func TestDogStatsDMalformed(t *testing.T) {
	md, res, err := DogStatsD([]byte("good:1|g\nbad\nworse:x|g\nodd:1|zz\nrate:1|c|@7"), statsdNow, nil)
	require.NoError(t, err)
	assert.Equal(t, 4, res.Malformed)
	assert.Contains(t, res.FirstError, "bad")
	assert.Equal(t, 1, md.DataPointCount())

	_, _, err = DogStatsD([]byte("nope\nnada"), statsdNow, nil)
	require.Error(t, err)
	md, _, err = DogStatsD(nil, statsdNow, nil)
	require.NoError(t, err)
	assert.Equal(t, 0, md.DataPointCount())
}
