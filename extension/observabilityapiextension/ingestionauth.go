package observabilityapiextension

import (
	"context"
	"errors"
	"strings"

	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/extension/extensionauth"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
)

// The API's ingestion keys are what receivers accept: the extension is a
// collector server authenticator, so OTLP receivers name it under `auth:`
// and the Datadog receiver under `ingestion_key_authenticator`, and no key
// is copied into their configuration.
var _ extensionauth.Server = (*apiExtension)(nil)

var (
	errNoKey    = errors.New("missing ingestion key")
	errBadKey   = errors.New("invalid ingestion key")
	errStarting = errors.New("ingestion keys are not loaded yet")
)

// Authenticate accepts `Authorization: Bearer <key>` (OTLP) and
// `DD-API-KEY: <key>` (Datadog agents; header names arrive lower-cased
// from gRPC and as sent from HTTP).
func (e *apiExtension) Authenticate(ctx context.Context, sources map[string][]string) (context.Context, error) {
	// A request may carry both; the bearer token decides, whatever order
	// the map is walked in.
	bearer, agent := "", ""
	for name, vs := range sources {
		if len(vs) == 0 {
			continue
		}
		switch strings.ToLower(name) {
		case "authorization":
			if k, ok := strings.CutPrefix(vs[0], "Bearer "); ok {
				bearer = k
			}
		case "dd-api-key":
			agent = vs[0]
		}
	}
	key := bearer
	if key == "" {
		key = agent
	}
	if key == "" {
		e.authFailed(ctx, "ingestion", clientHost(peer(ctx)), errNoKey.Error())
		return ctx, errNoKey
	}
	// Configured keys (OTLP_AUTH_TOKEN among them) work before the store is
	// reachable, so a restart never turns away an agent.
	configured := false
	for _, k := range nonEmpty(e.cfg.IngestionKeys) {
		configured = keys.Equal(key, k) || configured
	}
	if configured {
		return ctx, nil
	}
	ok, err := e.validIngestionKey(ctx, keys.Hash(key))
	if err != nil {
		return ctx, err
	}
	if !ok {
		e.authFailed(ctx, "ingestion", clientHost(peer(ctx)), errBadKey.Error())
		return ctx, errBadKey
	}
	return ctx, nil
}

// validIngestionKey checks a hash against every team's ingestion keys,
// from memory (store.KeyCache): other replicas' new keys are picked up on
// refresh.
func (e *apiExtension) validIngestionKey(ctx context.Context, hash string) (bool, error) {
	c := e.ingestion.Load()
	if c == nil {
		return false, errStarting
	}
	_, ok, err := c.Lookup(ctx, hash)
	return ok, err
}

// peer is the sender's address as the receiver's server saw it.
func peer(ctx context.Context) string {
	if a := client.FromContext(ctx).Addr; a != nil {
		return a.String()
	}
	return "unknown"
}
