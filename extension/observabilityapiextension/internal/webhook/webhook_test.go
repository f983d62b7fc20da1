package webhook

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRetriesUntilDelivered(t *testing.T) {
	var calls atomic.Int32
	var gotKey, gotAuth, gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		gotKey, gotAuth, gotBody = r.Header.Get("Idempotency-Key"), r.Header.Get("Authorization"), string(b)
	}))
	defer srv.Close()
	s := New(Options{Attempts: 4, Backoff: 10 * time.Millisecond, AllowPrivate: true})
	res := s.Send(context.Background(), srv.URL, map[string]string{"Authorization": "secret"}, []byte(`{"a":1}`), "alert-1:123")
	require.NoError(t, res.Err)
	assert.Equal(t, 3, res.Attempts)
	assert.Equal(t, "alert-1:123", gotKey)
	assert.Equal(t, "secret", gotAuth)
	assert.Equal(t, `{"a":1}`, gotBody)
}

func TestGivesUpAndDoesNotRetryClientErrors(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusBadRequest)
	}))
	defer srv.Close()
	res := New(Options{Attempts: 5, Backoff: time.Millisecond, AllowPrivate: true}).Send(context.Background(), srv.URL, nil, nil, "k")
	require.Error(t, res.Err)
	assert.Equal(t, 1, res.Attempts, "a 400 is not retried")
	assert.Equal(t, int32(1), calls.Load())
}

func TestRefusesPrivateTargets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("reached") }))
	defer srv.Close()
	res := New(Options{Attempts: 3, Backoff: time.Millisecond}).Send(context.Background(), srv.URL, nil, nil, "k")
	require.ErrorIs(t, res.Err, ErrForbiddenTarget)
	assert.Equal(t, 1, res.Attempts, "not retried")
	for _, u := range []string{"http://10.0.0.1:9/", "http://169.254.169.254/latest/meta-data", "http://[::1]:9/"} {
		res := New(Options{Timeout: time.Second}).Send(context.Background(), u, nil, nil, "k")
		assert.ErrorIs(t, res.Err, ErrForbiddenTarget, u)
	}
}
