package datadogreceiver

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"runtime"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/freelist"
)

// Bodies of a few MiB at most, a few requests at a time; kept across GCs.
var bodyPool = freelist.New(2*runtime.GOMAXPROCS(0), func() *bytes.Buffer { return new(bytes.Buffer) })

// readBody reads the whole (already decompressed) body into a pooled buffer.
// Callers must not keep references into it after release.
func (r *datadogReceiver) readBody(w http.ResponseWriter, req *http.Request) (*bytes.Buffer, bool) {
	buf := bodyPool.Get()
	buf.Reset()
	if req.ContentLength > 0 && req.ContentLength <= r.cfg.MaxRequestBodySize {
		// MinRead more: ReadFrom doubles a buffer that has less free
		// before its last read, the one that meets EOF.
		buf.Grow(int(req.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(req.Body); err != nil {
		releaseBody(buf)
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			r.refuse(w, req, http.StatusRequestEntityTooLarge,
				fmt.Sprintf("body exceeds %d bytes (max_request_body_size, after decompression)", tooBig.Limit))
		} else {
			r.refuse(w, req, http.StatusBadRequest, "reading body: "+err.Error())
		}
		return nil, false
	}
	return buf, true
}

func releaseBody(buf *bytes.Buffer) {
	if buf.Cap() <= 4<<20 { // don't pin huge buffers in the pool
		bodyPool.Put(buf)
	}
}

// budget is a new request's bound on what its body may become in memory.
func (r *datadogReceiver) budget() *budget.Budget { return budget.New(r.cfg.MaxDecodedSize) }
