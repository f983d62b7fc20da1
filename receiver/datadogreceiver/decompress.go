package datadogreceiver

// The decoders replace confighttp's standard-library ones with pooled
// klauspost/compress readers (about twice as fast); confighttp still caps
// the decompressed size with max_request_body_size.

import (
	"io"
	"runtime"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/freelist"
)

// pooledReader returns its decoder to the pool on Close.
type pooledReader struct {
	io.Reader
	put func()
	n   int64 // bytes read
}

func (p *pooledReader) Read(b []byte) (int, error) {
	n, err := p.Reader.Read(b)
	p.n += int64(n)
	return n, err
}

func (p *pooledReader) Close() error {
	if p.put != nil {
		p.put()
		p.put = nil
	}
	return nil
}

// Decoders are kept across garbage collections (a sync.Pool empties at
// each one): a zstd decoder's history and a flate reader's window cost
// more to allocate and fault in again than a body costs to decompress.
var (
	gzipPool = freelist.New(2*runtime.GOMAXPROCS(0), func() *gzip.Reader { return nil })
	zlibPool = freelist.New(2*runtime.GOMAXPROCS(0), func() io.ReadCloser { return nil })
	zstdPool = freelist.New(2*runtime.GOMAXPROCS(0), func() *zstd.Decoder { return nil })
)

func gzipDecoder(body io.ReadCloser) (io.ReadCloser, error) {
	zr := gzipPool.Get()
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(body)
	} else {
		err = zr.Reset(body)
	}
	if err != nil {
		return nil, err
	}
	return &pooledReader{Reader: zr, put: func() { gzipPool.Put(zr) }}, nil
}

// zlibDecoder serves "deflate", which Datadog Agents send as zlib.
func zlibDecoder(body io.ReadCloser) (io.ReadCloser, error) {
	if zr := zlibPool.Get(); zr != nil {
		if err := zr.(zlib.Resetter).Reset(body, nil); err != nil {
			return nil, err
		}
		return &pooledReader{Reader: zr, put: func() { zlibPool.Put(zr) }}, nil
	}
	zr, err := zlib.NewReader(body)
	if err != nil {
		return nil, err
	}
	return &pooledReader{Reader: zr, put: func() { zlibPool.Put(zr) }}, nil
}

// The window cap bounds what one zstd frame may make us allocate,
// whatever its header claims.
const zstdMaxWindow = 32 << 20

// zstdKeepBelow is the largest body after which a zstd decoder is reused.
const zstdKeepBelow = 8 << 20

func zstdDecoder(body io.ReadCloser) (io.ReadCloser, error) {
	zr := zstdPool.Get()
	var err error
	if zr == nil {
		zr, err = zstd.NewReader(body, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow),
			zstd.WithDecoderMaxMemory(1<<30))
	} else {
		err = zr.Reset(body)
	}
	if err != nil {
		return nil, err
	}
	// Not Reset(nil) on release: that frees the history ring, which the
	// next request would allocate again (a fifth of the bytes a logs
	// request allocated). A decoder that served a large body may hold a
	// large window: it is dropped rather than kept.
	p := &pooledReader{Reader: zr}
	p.put = func() {
		if p.n <= zstdKeepBelow {
			zstdPool.Put(zr)
		}
	}
	return p, nil
}
