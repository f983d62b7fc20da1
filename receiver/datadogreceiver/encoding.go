package datadogreceiver

import (
	"fmt"
	"net/http"
	"strings"
)

// contentCoding is the one coding confighttp's decoders must undo for a
// Content-Encoding header, which they match spelt exactly. HTTP codings
// are case-insensitive and may come as a list in the order applied
// ("gzip, identity"); "identity" means none, and Datadog's API clients
// send it for a body sent as is. More than one real coding is refused:
// no Datadog client stacks them.
func contentCoding(header string) (string, error) {
	coding := ""
	for c := range strings.SplitSeq(header, ",") {
		c = strings.ToLower(strings.TrimSpace(c))
		switch c {
		case "", "identity":
			continue
		case "x-gzip": // RFC 9110 §8.4.1.3: the same as gzip
			c = "gzip"
		}
		if coding != "" {
			return "", fmt.Errorf("Content-Encoding %q applies more than one coding; send at most one (gzip, deflate or zstd)", header)
		}
		coding = c
	}
	return coding, nil
}

// normalizeCoding rewrites Content-Encoding to contentCoding's answer
// before confighttp's decompressor reads it.
func (r *datadogReceiver) normalizeCoding(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		header := req.Header.Get("Content-Encoding")
		if header == "" {
			next.ServeHTTP(w, req)
			return
		}
		coding, err := contentCoding(header)
		if err != nil {
			r.refuse(w, req, http.StatusUnsupportedMediaType, err.Error())
			return
		}
		if coding == "" {
			req.Header.Del("Content-Encoding")
		} else {
			req.Header.Set("Content-Encoding", coding)
		}
		next.ServeHTTP(w, req)
	})
}
