package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/DataDog/agent-payload/v5/gogen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleDir holds the integrations-core assets the importers are measured
// on (internal/domain/importers/datadog/testdata/integrations-core/README.md
// names each file's source and commit).
const sampleDir = "../internal/domain/importers/datadog/testdata/integrations-core/sample"

// A metric a Datadog query names (before its {scope}, after its space
// aggregator if it has one): what the Agent must have sent for the tile
// to draw.
var queryMetric = regexp.MustCompile(`(?:\b(avg|sum|min|max|count|p[0-9]{2}(?:\.[0-9]+)?):)?\b([A-Za-z][A-Za-z0-9_.]*)\{`)

// Issue 45's "done when": every dashboard of the sample, imported through
// the API, runs each of its tiles without an error on what the Datadog
// receiver stored (a point of every metric the tiles name, sent as the
// Agent sends series), and every saved view, imported, runs as a search.
func TestImportedSampleRunsOnReceiverData(t *testing.T) {
	c := run(t, []string{"ENABLE_DATADOG_RECEIVER=true"}, shippedConfig(t))
	c.waitHealthy(t)
	key := generatedKey(t, c.dataDir, "personal_api_access_key")
	api := fmt.Sprintf("http://127.0.0.1:%d", c.api)
	call := func(path string, body any) (int, map[string]any) {
		t.Helper()
		b, err := json.Marshal(body)
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodPost, api+path, bytes.NewReader(b))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		if m == nil {
			m = map[string]any{"raw": string(raw)}
		}
		return resp.StatusCode, m
	}
	entries, err := os.ReadDir(sampleDir)
	require.NoError(t, err)
	var dashboards, views []map[string]any
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(sampleDir, e.Name()))
		require.NoError(t, err)
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			continue // the sample's one view that is not JSON
		}
		m["_file"] = e.Name()
		switch {
		case strings.Contains(e.Name(), "_dashboard_"):
			dashboards = append(dashboards, m)
		case strings.Contains(e.Name(), "_saved_view_"):
			views = append(views, m)
		}
	}
	require.NotEmpty(t, dashboards)
	require.NotEmpty(t, views)

	// The dashboards, imported; their chart tiles and the metrics they
	// name.
	type tile struct {
		name   string
		config map[string]any
	}
	var tiles []tile
	// true: a distribution (a percentile aggregator reads it), sent as
	// the Agent sends one (a sketch); false: a gauge.
	metrics := map[string]bool{}
	for _, d := range dashboards {
		file := d["_file"].(string)
		delete(d, "_file")
		status, r := call("/api/v2/dashboards/import", d)
		require.Equal(t, http.StatusOK, status, "%s: %v", file, r)
		for _, x := range r["data"].(map[string]any)["tiles"].([]any) {
			tl := x.(map[string]any)
			cfg, _ := tl["config"].(map[string]any)
			if cfg == nil {
				continue
			}
			tiles = append(tiles, tile{file + ": " + fmt.Sprint(tl["name"]), cfg})
			items, _ := cfg["select"].([]any)
			for _, it := range items {
				q, _ := it.(map[string]any)["query"].(string)
				for _, m := range queryMetric.FindAllStringSubmatch(q, -1) {
					metrics[m[2]] = metrics[m[2]] || strings.HasPrefix(m[1], "p")
				}
			}
		}
	}
	require.NotEmpty(t, metrics)

	// A point of each metric a minute ago and two minutes ago, from one
	// host, through the receiver; a distribution as a sketch.
	now := time.Now().Unix()
	var series []string
	sp := gogen.SketchPayload{}
	gauges := 0
	for name, dist := range metrics {
		if dist {
			sp.Sketches = append(sp.Sketches, gogen.SketchPayload_Sketch{
				Metric: name, Host: "sample-host", Tags: []string{"env:prod"},
				Dogsketches: []gogen.SketchPayload_Sketch_Dogsketch{agentSketch(now-60, []float64{1, 2, 3, 4})},
			})
			continue
		}
		gauges++
		series = append(series, fmt.Sprintf(`{"metric":%q,"type":3,"points":[{"timestamp":%d,"value":2},{"timestamp":%d,"value":3}],"resources":[{"type":"host","name":"sample-host"}],"tags":["env:prod"]}`,
			name, now-120, now-60))
	}
	slices.Sort(series)
	for i := 0; i < len(series); i += 200 {
		batch := series[i:min(i+200, len(series))]
		require.Equal(t, http.StatusAccepted, postWithKey(t, fmt.Sprintf("http://127.0.0.1:%d/api/v2/series", c.datadog), "DD-API-KEY", ingestKey, "application/json",
			`{"series":[`+strings.Join(batch, ",")+`]}`))
	}
	if len(sp.Sketches) > 0 {
		raw, err := sp.Marshal()
		require.NoError(t, err)
		require.Equal(t, http.StatusAccepted, postWithKey(t, fmt.Sprintf("http://127.0.0.1:%d/api/beta/sketches", c.datadog), "DD-API-KEY", ingestKey, "application/x-protobuf", string(raw)))
	}
	require.Eventually(t, func() bool {
		return c.sql(t, "SELECT uniqExact(MetricName) FROM otel.otel_metrics_gauge") == fmt.Sprint(gauges) &&
			c.sql(t, "SELECT uniqExact(MetricName) FROM otel.otel_metrics_exponential_histogram") == fmt.Sprint(len(sp.Sketches))
	}, 60*time.Second, 250*time.Millisecond, "every metric stored")

	// Each chart tile as the UI runs it: its select items through
	// /api/v2/charts/series (five to a request), a search tile through
	// /api/v2/search.
	from, to := (now-3600)*1000, (now+60)*1000
	var failed, empty []string
	ran := 0
	for _, tl := range tiles {
		cfg := tl.config
		switch cfg["displayType"] {
		case "search":
			ran++
			status, r := call("/api/v2/search", map[string]any{"sourceId": cfg["sourceId"], "where": cfg["where"], "whereLanguage": cfg["whereLanguage"], "startTime": from, "endTime": to})
			if status != http.StatusOK {
				failed = append(failed, fmt.Sprintf("%s: %d %v", tl.name, status, r["message"]))
			}
			continue
		case "markdown", "alerts":
			continue
		}
		items, _ := cfg["select"].([]any)
		var groupBy []string
		if g, _ := cfg["groupBy"].(string); g != "" {
			for _, f := range strings.Split(g, ",") {
				groupBy = append(groupBy, strings.TrimSpace(f))
			}
		}
		rows := 0
		for i := 0; i < len(items); i += 5 {
			var ss []map[string]any
			for _, x := range items[i:min(i+5, len(items))] {
				it := x.(map[string]any)
				if q, _ := it["query"].(string); q != "" {
					ss = append(ss, map[string]any{"sourceId": cfg["sourceId"], "query": q})
					continue
				}
				ss = append(ss, map[string]any{"sourceId": cfg["sourceId"], "aggFn": it["aggFn"], "field": it["valueExpression"], "where": it["where"], "whereLanguage": it["whereLanguage"], "groupBy": groupBy})
			}
			ran++
			status, r := call("/api/v2/charts/series", map[string]any{"startTime": from, "endTime": to, "granularity": "auto", "series": ss})
			if status != http.StatusOK {
				failed = append(failed, fmt.Sprintf("%s: %d %v", tl.name, status, r["message"]))
				continue
			}
			data, _ := r["data"].([]any)
			rows += len(data)
		}
		if rows == 0 {
			empty = append(empty, tl.name)
		}
	}
	assert.Empty(t, failed, "every imported tile runs")
	t.Logf("%d tiles, %d requests; %d drew nothing from the metrics sent (a tag filter the one host lacks): %s",
		len(tiles), ran, len(empty), strings.Join(empty, "; "))
	assert.Less(t, len(empty), len(tiles)/10, "all but a few tiles draw the receiver's points")

	// The saved views, imported: each runs as the search it became.
	for _, v := range views {
		file := v["_file"].(string)
		delete(v, "_file")
		status, r := call("/api/v2/saved-searches/import", v)
		if status == http.StatusBadRequest {
			// A view of something else than logs (a process view):
			// refused, with the reason.
			assert.NotEmpty(t, r["message"], file)
			continue
		}
		require.Equal(t, http.StatusOK, status, "%s: %v", file, r)
		ss := r["data"].(map[string]any)
		status, r = call("/api/v2/search", map[string]any{"sourceId": ss["sourceId"], "where": ss["where"], "whereLanguage": ss["whereLanguage"], "startTime": from, "endTime": to})
		assert.Equal(t, http.StatusOK, status, "%s: %v", file, r["message"])
	}
}
