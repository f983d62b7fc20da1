package accounts

import (
	"context"
	"errors"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Key is an API key as its owner sees it in Team Settings.
type Key struct {
	ID string `json:"id"`
	// Key is the key itself; empty when it cannot be shown (configured
	// keys such as OTLP_AUTH_TOKEN, and keys made before keys were sealed).
	Key       string    `json:"key,omitempty"`
	Source    string    `json:"source"` // generated | configured
	CreatedAt time.Time `json:"createdAt"`
}

// Keys is Team Settings → API Keys for one account.
type Keys struct {
	Personal  []Key `json:"personal"`
	Ingestion []Key `json:"ingestion"`
}

func (s *Service) shown(k store.Key) Key {
	out := Key{ID: k.KeyID, Source: "configured", CreatedAt: k.CreatedAt}
	if k.Sealed != "" {
		out.Source = "generated"
		if key, err := s.opts.Sealer.Open(k.Sealed, k.Hash); err == nil {
			out.Key = key
		}
	}
	return out
}

// Keys answers the account's personal keys and its team's ingestion keys.
func (s *Service) Keys(ctx context.Context, a Account) (Keys, error) {
	out := Keys{Personal: []Key{}, Ingestion: []Key{}}
	personal, err := s.opts.Store.TeamKeys(ctx, a.TeamID, keys.Personal)
	if err != nil {
		return out, err
	}
	for _, k := range personal {
		if k.UserID == a.ID {
			out.Personal = append(out.Personal, s.shown(k))
		}
	}
	ingestion, err := s.opts.Store.TeamKeys(ctx, a.TeamID, keys.Ingestion)
	if err != nil {
		return out, err
	}
	for _, k := range ingestion {
		out.Ingestion = append(out.Ingestion, s.shown(k))
	}
	return out, nil
}

// givePersonalKey gives a new account its personal key: the team owner
// takes the bootstrap key (the one api-keys.txt holds) when it was sealed,
// so scripts written before the account existed keep working.
func (s *Service) givePersonalKey(ctx context.Context, u store.User) error {
	if u.Role == Owner {
		ks, err := s.opts.Store.TeamKeys(ctx, u.TeamID, keys.Personal)
		if err != nil {
			return err
		}
		for _, k := range ks {
			if k.UserID == "" && k.Sealed != "" {
				k.UserID = u.ID
				return s.opts.Store.PutKey(ctx, k)
			}
		}
	}
	_, err := s.newKey(ctx, u.TeamID, u.ID, keys.Personal)
	return err
}

func (s *Service) newKey(ctx context.Context, team, user, kind string) (string, error) {
	prefix := map[string]string{keys.Personal: "ohp_", keys.Ingestion: "ohi_"}[kind]
	key := keys.New(prefix)
	h := keys.Hash(key)
	return key, s.opts.Store.PutKey(ctx, store.Key{Hash: h, TeamID: team, Kind: kind, KeyID: h[:12], UserID: user, Sealed: s.opts.Sealer.Seal(key)})
}

// RotatePersonal replaces the account's personal keys with a new one; the
// old ones stop working at once on this replica and within seconds on
// the others.
func (s *Service) RotatePersonal(ctx context.Context, a Account) (Key, error) {
	return s.Rotate(ctx, a.TeamID, a.ID, keys.Personal, func(k store.Key) bool { return k.UserID == a.ID })
}

// RotateIngestion replaces the team's generated ingestion keys with a new
// one (configured keys such as OTLP_AUTH_TOKEN stay: configuration owns
// them). Agents must be given the new key. Only the owner rotates.
func (s *Service) RotateIngestion(ctx context.Context, a Account) (Key, error) {
	if !ManagesTeam(a.Role) {
		return Key{}, ErrOwnerOnly
	}
	return s.Rotate(ctx, a.TeamID, "", keys.Ingestion, func(k store.Key) bool { return k.Sealed != "" })
}

// Rotate makes a new sealed key of a kind for a team (and user), then
// revokes the team's keys of that kind that old selects.
func (s *Service) Rotate(ctx context.Context, team, user, kind string, old func(store.Key) bool) (Key, error) {
	ks, err := s.opts.Store.TeamKeys(ctx, team, kind)
	if err != nil {
		return Key{}, err
	}
	key, err := s.newKey(ctx, team, user, kind)
	if err != nil {
		return Key{}, err
	}
	for _, k := range ks {
		if old(k) {
			if err := s.opts.Store.DeleteKey(ctx, k); err != nil {
				return Key{}, err
			}
		}
	}
	h := keys.Hash(key)
	return Key{ID: h[:12], Key: key, Source: "generated", CreatedAt: s.now().UTC()}, nil
}

// ErrConfiguredKey refuses a key from configuration, which only configuration
// can remove.
var ErrConfiguredKey = errors.New("the key comes from configuration (OTLP_AUTH_TOKEN, ingestion_keys): remove it there")

// RevokeIngestion revokes one of the team's generated ingestion keys by
// its public id.
func (s *Service) RevokeIngestion(ctx context.Context, team, id string) error {
	ks, err := s.opts.Store.TeamKeys(ctx, team, keys.Ingestion)
	if err != nil {
		return err
	}
	for _, k := range ks {
		if k.KeyID == id {
			if k.Sealed == "" {
				return ErrConfiguredKey
			}
			return s.opts.Store.DeleteKey(ctx, k)
		}
	}
	return store.ErrNotFound
}
