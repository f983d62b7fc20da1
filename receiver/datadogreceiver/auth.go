package datadogreceiver

import (
	"context"
	"crypto/subtle"
	"net/http"
	"net/netip"
)

// authorize demands an ingestion key on agent intake paths whenever keys
// are checked. Tracer paths take requests without a key from the
// tracer networks (require_key_on_tracer_paths: from nowhere), and a key
// from anywhere else.
func (r *datadogReceiver) authorize(tracer bool, next http.Handler) http.Handler {
	if len(r.keys) == 0 && r.authn == nil {
		return next
	}
	keyless := tracer && !r.cfg.RequireKeyOnTracerPaths
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if keyless && r.fromTracerNetwork(req) {
			next.ServeHTTP(w, req)
			return
		}
		key := req.Header.Get("DD-API-KEY")
		if key == "" {
			key = req.URL.Query().Get("api_key")
		}
		if !r.validKey(req.Context(), key) {
			msg := "missing or invalid API key (DD-API-KEY header or api_key query parameter)"
			if keyless {
				msg += "; tracer paths take requests without a key only from tracer_networks"
			}
			r.refuse(w, req, http.StatusForbidden, msg)
			return
		}
		next.ServeHTTP(w, req)
	})
}

// fromTracerNetwork tells whether the peer (never a forwarded-for header,
// which any client sets) is in tracer_networks.
func (r *datadogReceiver) fromTracerNetwork(req *http.Request) bool {
	ap, err := netip.ParseAddrPort(req.RemoteAddr)
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap()
	for _, n := range r.tracerNets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

func (r *datadogReceiver) validKey(ctx context.Context, key string) bool {
	if key == "" {
		return false
	}
	ok := 0
	for _, k := range r.keys {
		ok |= subtle.ConstantTimeCompare([]byte(key), k)
	}
	if ok == 1 {
		return true
	}
	if r.authn == nil {
		return false
	}
	// Offered as both an agent key and a bearer token, so any server
	// authenticator (bearertokenauth too) can judge it.
	_, err := r.authn.Authenticate(ctx, map[string][]string{"DD-API-KEY": {key}, "Authorization": {"Bearer " + key}})
	return err == nil
}
