package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// A chart or search the engine refused for memory: past one query's share
// it is the caller's to narrow (422); with the engine at its limit it is
// to retry (503 with Retry-After), as a refused ingestion is.
func TestQueryFailedForMemory(t *testing.T) {
	s := &Server{opts: Options{Logger: zap.NewNop()}}
	r := httptest.NewRequest(http.MethodPost, "/api/v2/charts/series", nil)
	for _, tc := range []struct {
		err        error
		status     int
		retryAfter string
		msg        string
	}{
		{fmt.Errorf("%w: Memory limit (for query) exceeded", query.ErrQueryMemory), http.StatusUnprocessableEntity, "", "chart query: the query needs more memory than one query may take"},
		{fmt.Errorf("%w: Memory limit (total) exceeded", query.ErrEngineMemory), http.StatusServiceUnavailable, "5", "chart query: the engine is at its memory limit; retry shortly"},
		{fmt.Errorf("%w: took too long", query.ErrTimeout), http.StatusGatewayTimeout, "", "chart query exceeded query_timeout"},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			w := httptest.NewRecorder()
			s.answer(w, r, selfHosted, s.queryFailed(r, "chart query", tc.err))
			assert.Equal(t, tc.status, w.Code, tc.err)
			assert.Equal(t, tc.retryAfter, w.Header().Get("Retry-After"), tc.err)
			assert.Contains(t, w.Body.String(), tc.msg)
		})
	}
}

// A request whose client left while its store call ran is no server
// failure: nothing is answered and nothing is logged as an error (a
// browser cancels a page's fetches when it navigates away).
func TestClientGoneIsNoServerError(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	s := &Server{opts: Options{Logger: zap.New(core)}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := httptest.NewRequest(http.MethodGet, "/api/v2/dashboards", nil).WithContext(ctx)
	w := httptest.NewRecorder()
	s.answer(w, r, selfHosted, failed("dashboard", fmt.Errorf("sendQuery: %w", context.Canceled)))
	assert.Empty(t, w.Body.String())
	assert.Zero(t, logs.FilterLevelExact(zap.ErrorLevel).Len())

	w = httptest.NewRecorder()
	s.answer(w, httptest.NewRequest(http.MethodGet, "/api/v2/dashboards", nil), selfHosted, failed("dashboard", fmt.Errorf("engine down")))
	assert.Equal(t, http.StatusInternalServerError, w.Code, "with the client still there, the same error is the server's")
	assert.Equal(t, 1, logs.FilterLevelExact(zap.ErrorLevel).Len())
}
