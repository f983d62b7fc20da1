package query

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRefuse(t *testing.T) {
	for _, tc := range []struct {
		err        error
		status     int
		retryAfter int
	}{
		{Error{errors.New("unknown field nope")}, http.StatusBadRequest, 0},
		{fmt.Errorf("%w: Code: 159", ErrTimeout), http.StatusGatewayTimeout, 0},
		{fmt.Errorf("%w: Memory limit (for query) exceeded", ErrQueryMemory), http.StatusUnprocessableEntity, 0},
		{fmt.Errorf("%w: Memory limit (total) exceeded", ErrEngineMemory), http.StatusServiceUnavailable, engineMemoryRetry},
	} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			r, ok := Refuse(tc.err)
			assert.True(t, ok, tc.err)
			assert.Equal(t, tc.status, r.Status, tc.err)
			assert.Equal(t, tc.retryAfter, r.RetryAfter, tc.err)
			assert.NotEmpty(t, r.Message)
		})
	}
	_, ok := Refuse(errors.New("connection refused"))
	assert.False(t, ok, "a server fault is not the query's")
}
