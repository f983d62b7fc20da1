package webuiextension

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// Every UI endpoint that reads telemetry resolves its source through the
// catalog, which checks the team's tenancy on each use: a source row of
// the account's team that names a database the team was not assigned
// (another team's, or the API's state) is refused by search, the
// histogram, a tile's series, the column picker, the trace view and
// services, however the row got into the state.
func TestUIReadsOnlyTheTeamsDatabases(t *testing.T) {
	const state = "webui_tenancy"
	st := realStateIn(t, state)
	db := chtest.DB(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS otel",
		"CREATE TABLE IF NOT EXISTS otel.ui_tenancy (Timestamp DateTime64(9), TraceId String, SpanId String, ParentSpanId String," +
			" ServiceName String, SpanName String, Duration UInt64, StatusCode String) ENGINE = MergeTree ORDER BY Timestamp",
		"TRUNCATE TABLE otel.ui_tenancy",
		"INSERT INTO otel.ui_tenancy VALUES ('2026-11-01 12:00:10', 'abc123', 's1', '', 'checkout', 'GET /', 1000, 'Ok')",
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	now := time.Now()
	for _, src := range []sources.Source{
		{ID: "theirs", Name: "theirs", Kind: "trace", Database: "otel", Table: "ui_tenancy", TimestampColumn: "Timestamp",
			BodyColumn: "SpanName", ServiceColumn: "ServiceName", DurationColumn: "Duration"},
		{ID: "state", Name: "state", Kind: "trace", Database: state, Table: "api_resources", TimestampColumn: "updated_at"},
	} {
		doc, _ := json.Marshal(src)
		require.NoError(t, st.Store.Put(ctx, "default", sources.Kind, src.ID, doc, now, now))
	}
	h := newUI(t, st, "")
	signup := do(t, h, http.MethodPost, "/api/register", `{"email":"owner@example.com","password":"a long enough password"}`, csrfHeader, "1")
	require.Equal(t, http.StatusOK, signup.Code, signup.Body.String())
	cookie := sessionCookie + "=" + signup.Result().Cookies()[0].Value

	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	end := start.Add(5 * time.Minute)
	paths := func(id string) [][3]string {
		w := fmt.Sprintf(`"sourceId":%q,"startTime":%d,"endTime":%d`, id, start.UnixMilli(), end.UnixMilli())
		rng := fmt.Sprintf("startTime=%d&endTime=%d", start.UnixMilli(), end.UnixMilli())
		return [][3]string{
			{http.MethodPost, "/api/search", `{` + w + `,"limit":10}`},
			{http.MethodPost, "/api/histogram", `{` + w + `}`},
			{http.MethodPost, "/api/series", `{` + w + `,"aggFn":"count","granularity":"auto"}`},
			{http.MethodGet, "/api/sources/" + id + "/fields", ""},
			{http.MethodGet, "/api/traces/abc123?source=" + id, ""},
			{http.MethodGet, "/api/services?source=" + id + "&" + rng, ""},
		}
	}
	check := func(id string, want int, message string) {
		t.Helper()
		for _, p := range paths(id) {
			w := do(t, h, p[0], p[1], p[2], csrfHeader, "1", "Cookie", cookie)
			assert.Equal(t, want, w.Code, "%s %s: %s", p[0], p[1], w.Body.String())
			assert.Contains(t, w.Body.String(), message, "%s %s", p[0], p[1])
		}
	}

	// The account's team ("default") is not the install's here: the
	// install's team owns otel.
	st.Sources.Tenancy = &sources.Tenancy{Store: st.Store, State: state, Owner: "install", OwnerDatabases: []string{"otel"}}
	check("theirs", http.StatusBadRequest, `database \"otel\" is not open to sources of team \"default\"`)
	check("state", http.StatusBadRequest, `database \"`+state+`\" is not open to sources`)

	// The install's own team reads the same row; the state stays closed.
	st.Sources.Tenancy = &sources.Tenancy{Store: st.Store, State: state, Owner: "default", OwnerDatabases: []string{"otel", state}}
	check("theirs", http.StatusOK, `"data"`)
	search := paths("theirs")[0]
	assert.Contains(t, do(t, h, search[0], search[1], search[2], csrfHeader, "1", "Cookie", cookie).Body.String(), "checkout")
	check("state", http.StatusBadRequest, "the API's state")
}
