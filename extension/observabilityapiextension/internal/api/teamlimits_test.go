package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTeamLimits(t *testing.T) {
	fx := setupWith(t, func(o *Options) { o.TeamLimits = TeamLimits{Dashboards: 3} })
	self := fx.url + "/api/v2/dashboards"
	codes := make([]int, 8)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			codes[i] = call(t, http.MethodPost, self, bearer(fx.keyA), dashboard(fmt.Sprint("d", i))).status
		})
	}
	wg.Wait()
	created := 0
	for _, c := range codes {
		assert.Contains(t, []int{http.StatusOK, http.StatusForbidden}, c)
		if c == http.StatusOK {
			created++
		}
	}
	assert.Equal(t, 3, created, "concurrent creates pass the limit together: %v", codes)

	r := call(t, http.MethodPost, self, bearer(fx.keyA), dashboard("one more"))
	require.Equal(t, http.StatusForbidden, r.status)
	assert.Equal(t, "the team has 3 dashboards, its limit (team_limits.dashboards); delete some first", r.body["message"])
	m := call(t, http.MethodPost, fx.url+"/v1/organizations/org1/services/svc1/observability/dashboards", basic(fx.mgdID, fx.mgdSK), dashboard("managed"))
	assert.Equal(t, http.StatusForbidden, m.status, "the managed key is team a's too")

	require.NoError(t, fx.server.Bootstrap(context.Background(), "b"))
	b := call(t, http.MethodPost, self, bearer(fx.keyB), dashboard("team b's"))
	assert.Equal(t, http.StatusOK, b.status, "each team has its own count")
	w := call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA), map[string]any{"name": "h", "url": "https://hooks.example/h"})
	assert.Equal(t, http.StatusOK, w.status, "other kinds keep the default limit")

	first := call(t, http.MethodGet, self+"?limit=1", bearer(fx.keyA), nil).body["data"].([]any)[0].(map[string]any)["id"].(string)
	require.Equal(t, http.StatusOK, call(t, http.MethodDelete, self+"/"+first, bearer(fx.keyA), nil).status)
	assert.Equal(t, http.StatusOK, call(t, http.MethodPost, self, bearer(fx.keyA), dashboard("room again")).status)
}

func TestBodyLimitsByKind(t *testing.T) {
	fx := setup(t)
	big := strings.Repeat("x", 70<<10)
	r := call(t, http.MethodPost, fx.url+"/api/v2/webhooks", bearer(fx.keyA),
		map[string]any{"name": "h", "url": "https://hooks.example/h", "headers": map[string]string{"X-Token": big}})
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status)
	assert.Equal(t, "request body exceeds 64 KiB", r.body["message"])
	r = call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyA), bigDashboard("big", len(big)))
	assert.Equal(t, http.StatusOK, r.status, "a dashboard may be up to 1 MiB")
	r = call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyA), bigDashboard("too big", MaxBody))
	assert.Equal(t, "request body exceeds 1 MiB", r.body["message"])
}

// A page of large documents is read and written a part at a time; the
// answer is the whole page, in order, in both forms.
func TestListsStreamLargePages(t *testing.T) {
	fx := setup(t)
	var names []string
	for i := range 10 { // of 900 KiB: three parts of pagePart
		name := fmt.Sprintf("%02d", i)
		r := call(t, http.MethodPost, fx.url+"/api/v2/dashboards", bearer(fx.keyA), bigDashboard(name, 900<<10))
		require.Equal(t, http.StatusOK, r.status)
		names = append(names, name)
	}
	for _, f := range []struct{ url, auth, key string }{
		{fx.url + "/api/v2/dashboards", bearer(fx.keyA), "data"},
		{fx.url + "/v1/organizations/org1/services/svc1/observability/dashboards", basic(fx.mgdID, fx.mgdSK), "result"},
	} {
		t.Run(f.key, func(t *testing.T) {
			for _, page := range []struct{ query, want string }{{"?limit=500", "0:10"}, {"?limit=3&offset=4", "4:7"}, {"?offset=10", "10:10"}} {
				t.Run(page.query, func(t *testing.T) {
					r := call(t, http.MethodGet, f.url+page.query, f.auth, nil)
					require.Equal(t, http.StatusOK, r.status)
					var lo, hi int
					_, _ = fmt.Sscanf(page.want, "%d:%d", &lo, &hi)
					var got []string
					for _, d := range r.body[f.key].([]any) {
						got = append(got, d.(map[string]any)["name"].(string))
					}
					assert.Len(t, got, len(names[lo:hi]), page.query)
					assert.True(t, slices.Equal(names[lo:hi], got), "%s: the page in creation order", page.query)
					assert.Equal(t, float64(10), total(r))
				})
			}
		})
	}
}

// The streamed list is the envelope reply writes.
func TestListWriterWritesTheEnvelope(t *testing.T) {
	items := []any{map[string]any{"id": "a", "n": 1}, map[string]any{"id": "<b>"}}
	extra := map[string]any{"total": 7, "limit": 2, "offset": 0}
	for _, f := range []form{selfHosted, managed, clickstack} {
		for _, list := range [][]any{items, {}} {
			streamed := httptest.NewRecorder()
			l := newListWriter(streamed, f, extra)
			for _, it := range list {
				require.NoError(t, l.add(it))
			}
			l.end()
			whole := httptest.NewRecorder()
			reply(whole, f, http.StatusOK, list, extra)
			assert.Equal(t, whole.Code, streamed.Code)
			assert.Equal(t, whole.Header(), streamed.Header())
			var a, b map[string]any
			require.NoError(t, json.Unmarshal(whole.Body.Bytes(), &a))
			require.NoError(t, json.Unmarshal(streamed.Body.Bytes(), &b))
			if f.cloud() {
				assert.Len(t, b["requestId"], map[form]int{managed: 16, clickstack: 36}[f])
				delete(a, "requestId")
				delete(b, "requestId")
			} else {
				assert.Equal(t, whole.Body.String(), streamed.Body.String())
			}
			assert.Equal(t, a, b)
		}
	}
}
