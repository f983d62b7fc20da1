package search

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// facetOf finds a field's facet, or fails.
func facetOf(t *testing.T, fs Facets, field string) Facet {
	t.Helper()
	for _, f := range fs.Facets {
		if f.Field == field {
			return f
		}
	}
	t.Fatalf("no facet %q in %+v", field, fs.Facets)
	return Facet{}
}

// The facets of the logs of logsScope (250 events: service api/worker
// alternating, every third error, host.name h0-h2, n a unique number) are
// the counts the where selects, the chosen columns first.
func TestFacetsCountTheWhere(t *testing.T) {
	db := chtest.DB(t)
	sc := logsScope(t, db)
	ctx := context.Background()
	req := FacetRequest{Start: t0, End: t0.Add(time.Hour), Columns: FacetColumns("log", "ServiceName", "SeverityText", "", ""), Values: 3}
	fs, err := GetFacets(ctx, db, sc, req, time.Minute)
	require.NoError(t, err)
	assert.EqualValues(t, 250, fs.Sampled)
	require.GreaterOrEqual(t, len(fs.Facets), 4)
	assert.Equal(t, "ServiceName", fs.Facets[0].Field)
	assert.Equal(t, "SeverityText", fs.Facets[1].Field)
	assert.Equal(t, []FacetValue{{"api", 125}, {"worker", 125}}, facetOf(t, fs, "ServiceName").Values)
	assert.Equal(t, []FacetValue{{"info", 167}, {"error", 83}}, facetOf(t, fs, "SeverityText").Values)
	host := facetOf(t, fs, "Resource.host.name")
	assert.EqualValues(t, 250, host.Count)
	assert.Equal(t, []FacetValue{{"h0", 84}, {"h1", 83}, {"h2", 83}}, host.Values)
	// A unique attribute keeps only the asked number of values.
	assert.Len(t, facetOf(t, fs, "n").Values, 3)

	// Under a where, and what an exclusion leaves.
	req.Where = "level:error -service:worker"
	fs, err = GetFacets(ctx, db, sc, req, time.Minute)
	require.NoError(t, err)
	assert.EqualValues(t, 42, fs.Sampled)
	assert.Equal(t, []FacetValue{{"api", 42}}, facetOf(t, fs, "ServiceName").Values)
	assert.Equal(t, []FacetValue{{"error", 42}}, facetOf(t, fs, "SeverityText").Values)

	// Fields bounds the fields answered, columns first.
	req.Where, req.Fields = "", 2
	fs, err = GetFacets(ctx, db, sc, req, time.Minute)
	require.NoError(t, err)
	assert.Len(t, fs.Facets, 2)

	// A where mistake is the caller's.
	req.Where = "service:"
	_, err = GetFacets(ctx, db, sc, req, time.Minute)
	var qe query.Error
	require.ErrorAs(t, err, &qe)
}

// Autocomplete: names by prefix, any case, starting ones first; the
// values of a field by frequency and prefix, under a where.
func TestFieldNamesAndValues(t *testing.T) {
	db := chtest.DB(t)
	sc := logsScope(t, db)
	ctx := context.Background()
	names, err := FieldNames(ctx, db, sc, "serv", 0, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, []string{"ServiceName"}, names)
	names, err = FieldNames(ctx, db, sc, "host", 0, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, []string{"Resource.host.name"}, names)
	names, err = FieldNames(ctx, db, sc, "", 0, time.Minute)
	require.NoError(t, err)
	assert.Contains(t, names, "n")
	assert.NotContains(t, names, "LogAttributes")

	vals, err := FieldValues(ctx, db, sc, ValuesRequest{Start: t0, End: t0.Add(time.Hour), Field: "ServiceName"}, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, []FacetValue{{"api", 125}, {"worker", 125}}, vals)
	vals, err = FieldValues(ctx, db, sc, ValuesRequest{Start: t0, End: t0.Add(time.Hour), Field: "Resource.host.name", Prefix: "H1"}, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, []FacetValue{{"h1", 83}}, vals)
	vals, err = FieldValues(ctx, db, sc, ValuesRequest{Start: t0, End: t0.Add(time.Hour), Field: "service", Where: "level:error"}, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, []FacetValue{{"api", 42}, {"worker", 41}}, vals)
	_, err = FieldValues(ctx, db, sc, ValuesRequest{Start: t0, End: t0.Add(time.Hour), Field: "no\nsuch"}, time.Minute)
	var qe query.Error
	require.ErrorAs(t, err, &qe)
}
