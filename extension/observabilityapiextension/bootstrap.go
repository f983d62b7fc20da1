package observabilityapiextension

// First start: the default team, its sources and keys (stored as hashes,
// sealed for the UI, written once to a 0600 file for a headless install).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/api"
	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// bootstrap creates the first team on first start, with a personal and an
// ingestion key, answered for a 0600 file for a headless first start and
// stored as a hash and sealed (the web UI shows them to the owner; the
// first account takes the personal key). Configured keys are added on
// every start, as hashes only: configuration owns them.
func (e *apiExtension) bootstrap(ctx context.Context, st *store.Store, srv *api.Server, sealer *keys.Sealer) (string, error) {
	n, err := st.TeamCount(ctx)
	if err != nil {
		return "", err
	}
	put := func(key, kind string, sealed string) error {
		return st.PutKey(ctx, store.Key{Hash: keys.Hash(key), TeamID: DefaultTeam, Kind: kind, KeyID: keys.Hash(key)[:12], Sealed: sealed})
	}
	firstKeys := ""
	if n == 0 {
		if err := st.CreateTeam(ctx, DefaultTeam, "Default team"); err != nil {
			return "", err
		}
		if err := srv.Bootstrap(ctx, DefaultTeam); err != nil {
			return "", err
		}
		if err := srv.AddHostDashboard(ctx, DefaultTeam); err != nil {
			return "", err
		}
		personal := keys.New("ohp_")
		lines := fmt.Sprintf("# otelhouse API keys, generated %s. The web UI shows them too (Team Settings -> API Keys).\n",
			time.Now().UTC().Format(time.RFC3339))
		lines += "personal_api_access_key=" + personal + "\n"
		if err := put(personal, keys.Personal, sealer.Seal(personal)); err != nil {
			return "", err
		}
		if len(nonEmpty(e.cfg.IngestionKeys)) == 0 {
			ingestion := keys.New("ohi_")
			if err := put(ingestion, keys.Ingestion, sealer.Seal(ingestion)); err != nil {
				return "", err
			}
			lines += "ingestion_api_key=" + ingestion + "\n"
		}
		firstKeys = lines
	}
	for _, k := range nonEmpty(e.cfg.PersonalKeys) {
		if err := put(k, keys.Personal, ""); err != nil {
			return "", err
		}
	}
	for _, k := range nonEmpty(e.cfg.IngestionKeys) {
		if err := put(k, keys.Ingestion, ""); err != nil {
			return "", err
		}
	}
	// Webhooks stored before their headers were sealed are sealed now.
	if n, err := srv.SealWebhookHeaders(ctx); err != nil {
		return "", err
	} else if n > 0 {
		e.set.Logger.Info("sealed the headers of webhooks stored in clear", zap.Int("webhooks", n))
	}
	// Teams bootstrapped before connections get their default one.
	if n, err := srv.AddDefaultConnections(ctx); err != nil {
		return "", err
	} else if n > 0 {
		e.set.Logger.Info("added the default connection of teams that had none", zap.Int("teams", n))
	}
	return firstKeys, nil
}

// writeKeysFile writes the keys a first start made (0600), for a headless
// install; the UI shows them too.
func (e *apiExtension) writeKeysFile(lines string) {
	if lines == "" {
		return
	}
	path := filepath.Join(e.cfg.DataDir, KeysFile)
	err := os.MkdirAll(e.cfg.DataDir, 0o750)
	if err == nil {
		err = writeAtomically(path, []byte(lines))
	}
	if err != nil {
		e.set.Logger.Error("cannot write the generated API keys; Team Settings in the web UI shows them", zap.String("keys_file", path), zap.Error(err))
		return
	}
	e.set.Logger.Info("first start: created the default team and its API keys", zap.String("keys_file", path))
}

func nonEmpty[T ~string](vs []T) []string {
	var out []string
	for _, v := range vs {
		if v != "" {
			out = append(out, string(v))
		}
	}
	return out
}

// writeAtomically writes a 0600 file whole or not at all: a reader that
// finds the file (a script waiting for the first start) never reads it
// half-written.
func writeAtomically(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*") // 0600
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}
