package api

// Connections, HyperDX's shape: the ClickHouse servers a team's sources
// read. The password is write-only: sealed at rest (as webhook headers
// are), never answered or logged. This API queries only the collector's
// own ClickHouse, the team's default connection (sources.Readable); the
// others are kept for HyperDX's clients.

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Connection is a ClickHouse server a team's sources may name.
type Connection struct {
	ID                   string    `json:"id"`
	Name                 string    `json:"name"`
	Host                 string    `json:"host"`
	Username             string    `json:"username"`
	HyperdxSettingPrefix string    `json:"hyperdxSettingPrefix,omitempty"`
	IsPrometheusEndpoint bool      `json:"isPrometheusEndpoint,omitempty"`
	CreatedAt            time.Time `json:"createdAt"`
	UpdatedAt            time.Time `json:"updatedAt"`
}

// storedConnection is a connection as stored, its password sealed.
type storedConnection struct {
	Connection
	SealedPassword string `json:"sealedPassword,omitempty"`
}

// connectionBody is what a create or an update sends. Fields a PUT may
// leave out to keep them are raw, to tell out from null.
type connectionBody struct {
	Name                 string          `json:"name"`
	Host                 string          `json:"host"`
	Username             *string         `json:"username"`
	Password             *string         `json:"password"`
	HyperdxSettingPrefix json.RawMessage `json:"hyperdxSettingPrefix"`
	IsPrometheusEndpoint *bool           `json:"isPrometheusEndpoint"`
}

// passwordBound ties a sealed password to its team and connection, so it
// cannot be moved to another document and opened there.
func passwordBound(team, id string) string { return "connection-password\x00" + team + "\x00" + id }

func sealPassword(s *keys.Sealer, team, id, password string) (string, error) {
	if password == "" {
		return "", nil
	}
	if s == nil {
		return "", errors.New("a connection password cannot be stored: no sealing secret")
	}
	return s.SealBound(password, passwordBound(team, id)), nil
}

// OpenConnectionPassword opens a stored connection's password.
func OpenConnectionPassword(s *keys.Sealer, team, id, sealed string) (string, error) {
	if sealed == "" {
		return "", nil
	}
	if s == nil {
		return "", errors.New("the connection password is sealed and no sealing secret is loaded")
	}
	return s.OpenBound(sealed, passwordBound(team, id))
}

func decodeConnection(s *Server, ctx context.Context, body []byte, st stamp) (document, error) { //nolint:revive // the kinds' decoders share one type, the server first
	var b connectionBody
	if err := decodeStrict(body, &b); err != nil {
		return document{}, validationError{err}
	}
	var p []string
	if strings.TrimSpace(b.Name) == "" {
		p = append(p, "name is required")
	}
	if strings.TrimSpace(b.Host) == "" {
		p = append(p, "host is required")
	}
	if b.Username == nil {
		p = append(p, "username is required (it may be empty)")
	}
	if len(p) > 0 {
		return document{}, validationError{errors.New(strings.Join(p, "; "))}
	}
	var old storedConnection
	if st.old != nil {
		if err := json.Unmarshal(st.old, &old); err != nil {
			return document{}, fmt.Errorf("stored connection %s: %w", st.id, err)
		}
	}
	c := storedConnection{Connection: Connection{
		ID: st.id, Name: b.Name, Host: b.Host, Username: *b.Username,
		HyperdxSettingPrefix: old.HyperdxSettingPrefix, IsPrometheusEndpoint: old.IsPrometheusEndpoint,
		CreatedAt: st.created, UpdatedAt: st.updated,
	}, SealedPassword: old.SealedPassword}
	// Left out, the prefix is kept; "" or null clear it.
	if raw := bytes.TrimSpace(b.HyperdxSettingPrefix); len(raw) > 0 {
		var prefix *string
		if err := json.Unmarshal(raw, &prefix); err != nil {
			return document{}, validationError{errors.New("hyperdxSettingPrefix must be a string or null")}
		}
		c.HyperdxSettingPrefix = ""
		if prefix != nil {
			c.HyperdxSettingPrefix = *prefix
		}
	}
	if b.IsPrometheusEndpoint != nil {
		c.IsPrometheusEndpoint = *b.IsPrometheusEndpoint
	}
	// Left out, the password is kept; sent, it replaces the stored one.
	if b.Password != nil || st.old == nil {
		pw := ""
		if b.Password != nil {
			pw = *b.Password
		}
		sealed, err := sealPassword(s.opts.Sealer, teamOf(ctx), st.id, pw)
		if err != nil {
			return document{}, err
		}
		c.SealedPassword = sealed
	}
	return document{st.id, &c}, nil
}

// publicConnection is a stored connection without its password.
func publicConnection(doc []byte) (any, error) {
	var c storedConnection
	if err := json.Unmarshal(doc, &c); err != nil {
		return nil, fmt.Errorf("stored connection: %w", err)
	}
	return c.Connection, nil
}

// connectionInUse names the team's sources that read the connection.
func (s *Server) connectionInUse(ctx context.Context, team, id string) ([]string, error) {
	items, err := s.opts.Store.OfTeam(ctx, team, kindSource)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, it := range items {
		if src, err := sources.Decode(team, it.Doc); err == nil && src.Connection == id {
			names = append(names, src.Name)
		}
	}
	return names, nil
}

// checkConnection answers HyperDX's 400s for a source's connection: an id
// this API could not have made, or none of the team's. The team's
// default connection is its own even before its document is written.
func (s *Server) checkConnection(ctx context.Context, team, id string) error {
	if id == sources.DefaultConnectionID(team) {
		return nil
	}
	if !objectID(id) {
		return &apiError{status: http.StatusBadRequest, msg: "connection must be a valid connection id"}
	}
	_, err := s.opts.Store.Get(ctx, team, kindConn, id)
	if errors.Is(err, store.ErrNotFound) {
		return &apiError{status: http.StatusBadRequest, msg: "connection must be an existing connection id"}
	}
	return err
}

// objectID says whether id has the form of the ids this API makes (those
// of HyperDX's Mongo documents).
func objectID(id string) bool {
	_, err := hex.DecodeString(id)
	return len(id) == 24 && err == nil
}

// defaultConnection is the team's connection to the collector's own
// ClickHouse, which its default sources name.
func (s *Server) defaultConnection(team string, now time.Time) storedConnection {
	return storedConnection{Connection: Connection{
		ID: sources.DefaultConnectionID(team), Name: "Default", Host: s.opts.ClickHouseHost, Username: s.opts.ClickHouseUser,
		CreatedAt: now, UpdatedAt: now,
	}}
}

// AddDefaultConnections writes the default connection of every team
// whose sources name it and that has no such document (teams bootstrapped
// before connections existed); run at each start, it finds nothing once
// done and answers how many it wrote.
func (s *Server) AddDefaultConnections(ctx context.Context) (int, error) {
	all, err := s.opts.Store.All(ctx, kindSource)
	if err != nil {
		return 0, err
	}
	done := map[string]bool{}
	n := 0
	for _, o := range all {
		if done[o.TeamID] {
			continue
		}
		src, err := sources.Decode(o.TeamID, o.Doc)
		if err != nil || src.Connection != sources.DefaultConnectionID(o.TeamID) {
			continue
		}
		done[o.TeamID] = true
		_, err = s.opts.Store.Get(ctx, o.TeamID, kindConn, src.Connection)
		if err == nil {
			continue
		}
		if !errors.Is(err, store.ErrNotFound) {
			return n, err
		}
		now := time.Now().UTC().Truncate(time.Millisecond)
		b, _ := json.Marshal(s.defaultConnection(o.TeamID, now))
		if err := s.opts.Store.Put(ctx, o.TeamID, kindConn, src.Connection, b, now, now); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
