// Package store keeps the API's state (teams, key hashes, resources) in
// ClickHouse tables it creates (schema.sql), with the statements of
// queries.sql. Every resource read and write is scoped to a team; values
// are always bound as query parameters.
package store

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/otelhouse/otelhouse/internal/runtime/sqlfile"
)

//go:embed schema.sql
var schemaSQL string

//go:embed queries.sql
var queriesSQL string

// queries are the statements of queries.sql by name, {db} not yet bound.
var queries = sqlfile.Parse("queries.sql", queriesSQL)

// Kinds of resources, as stored.
const (
	KindDashboard = "dashboard"
	KindAlert     = "alert"
	KindSource    = "source"
	KindWebhook   = "webhook"
	// KindSavedSearch: saved searches.
	KindSavedSearch = "saved_search"
	// KindConnection: the ClickHouse servers a team's sources read.
	KindConnection = "connection"
)

// ErrNotFound says there is no such resource in the caller's team.
var ErrNotFound = errors.New("not found")

// Store is the API's state in one ClickHouse database.
type Store struct {
	db *sql.DB
	q  map[string]string
	// caches are the key caches of each kind, one per store, so that a key
	// revoked through any door stops working in every one at once.
	cachesMu sync.Mutex
	caches   map[string]*KeyCache
	cluster  string
}

// Open creates the state tables in database if needed; with OnCluster,
// on every replica of that cluster (Schema).
func Open(ctx context.Context, db *sql.DB, database string, opts ...Option) (*Store, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	stmts, err := Schema(database, o.cluster)
	if err != nil {
		return nil, err
	}
	for i, stmt := range stmts {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			if i == 0 {
				return nil, fmt.Errorf("creating database %s: %w", database, err)
			}
			return nil, fmt.Errorf("creating API state tables: %w", err)
		}
	}
	q := make(map[string]string, len(queries))
	for name, stmt := range queries {
		q[name] = strings.ReplaceAll(stmt, "{db}", database)
	}
	return &Store{db: db, q: q, caches: map[string]*KeyCache{}, cluster: o.cluster}, nil
}

// Cluster is the ClickHouse cluster the store was opened on (OnCluster),
// ” for one server. The telemetry lives there too: sources read it
// across the cluster's shards.
func (s *Store) Cluster() string { return s.cluster }

// Option changes how Open lays out the state.
type Option func(*options)

type options struct{ cluster string }

// OnCluster keeps the state on every replica of a ClickHouse cluster:
// ON CLUSTER DDL and Replicated engines.
func OnCluster(name string) Option { return func(o *options) { o.cluster = name } }

// sql is a statement of queries.sql; a name it lacks is a bug that every
// store test would hit.
func (s *Store) sql(name string) string {
	q, ok := s.q[name]
	if !ok {
		panic("queries.sql has no statement " + name)
	}
	return q
}

// version orders writes; nanoseconds keep concurrent replicas apart.
func version() uint64 { return uint64(time.Now().UnixNano()) }

// Key is a stored API key: its hash, and the key itself only sealed.
type Key struct {
	Hash, TeamID, Kind, KeyID string
	// UserID owns a personal key ('' for the bootstrap key no account has
	// taken yet); Sealed is the key encrypted for display to its owner.
	UserID, Sealed string
	CreatedAt      time.Time
}

// CreateTeam records a team.
func (s *Store) CreateTeam(ctx context.Context, id, name string) error {
	_, err := s.db.ExecContext(ctx, s.sql("insert_team"),
		id, name, version())
	return err
}

// Team is a team as recorded.
type Team struct {
	ID, Name  string
	CreatedAt time.Time
}

// TeamByID finds a team.
func (s *Store) TeamByID(ctx context.Context, id string) (Team, error) {
	var t Team
	err := s.db.QueryRowContext(ctx, s.sql("team_by_id"), id).Scan(&t.ID, &t.Name, &t.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return t, ErrNotFound
	}
	return t, err
}

// TeamCount tells whether any team exists (first start).
func (s *Store) TeamCount(ctx context.Context) (int, error) {
	var n uint64
	err := s.db.QueryRowContext(ctx, s.sql("count_teams")).Scan(&n)
	return int(n), err
}

// PutKey records a key hash for a team.
func (s *Store) PutKey(ctx context.Context, k Key) error {
	_, err := s.db.ExecContext(ctx, s.sql("insert_key"),
		k.Hash, k.TeamID, k.Kind, k.KeyID, k.UserID, k.Sealed, version())
	s.keysChanged(k.Kind)
	return err
}

// DeleteKey revokes a key; this replica stops accepting it at once, the
// others within a key-cache refresh.
func (s *Store) DeleteKey(ctx context.Context, k Key) error {
	_, err := s.db.ExecContext(ctx, s.sql("delete_key"), k.Hash, k.TeamID, k.Kind, k.KeyID, version())
	s.keysChanged(k.Kind)
	return err
}

// KeysOfKind lists the live keys of a kind (what a KeyCache holds).
func (s *Store) KeysOfKind(ctx context.Context, kind string) ([]Key, error) {
	return s.keys(ctx, s.sql("keys_of_kind"), kind)
}

// TeamKeys lists the team's live keys of a kind, oldest first.
func (s *Store) TeamKeys(ctx context.Context, team, kind string) ([]Key, error) {
	return s.keys(ctx, s.sql("team_keys"), team, kind)
}

func (s *Store) keys(ctx context.Context, stmt string, args ...any) ([]Key, error) {
	rows, err := s.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Key
	for rows.Next() {
		var k Key
		if err := rows.Scan(&k.Hash, &k.TeamID, &k.Kind, &k.KeyID, &k.UserID, &k.Sealed, &k.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Resource is one stored document.
type Resource struct {
	ID        string
	Doc       []byte
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Put writes a new version of a resource. created is kept from the first
// version by the caller.
func (s *Store) Put(ctx context.Context, team, kind, id string, doc []byte, created, updated time.Time) error {
	_, err := s.db.ExecContext(ctx, s.sql("insert_resource"),
		team, kind, id, string(doc), version(), millisText(created), millisText(updated))
	return err
}

// millisText is t as a DateTime64(3, 'UTC') column reads it from text.
func millisText(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.000")
}

// Get reads a live resource of the team.
func (s *Store) Get(ctx context.Context, team, kind, id string) (Resource, error) {
	var r Resource
	var doc string
	err := s.db.QueryRowContext(ctx, s.sql("get_resource"), team, kind, id).Scan(&r.ID, &doc, &r.CreatedAt, &r.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNotFound
	}
	r.Doc = []byte(doc)
	return r, err
}

// Count is how many live resources of a kind the team has.
func (s *Store) Count(ctx context.Context, team, kind string) (int, error) {
	var n uint64
	err := s.db.QueryRowContext(ctx, s.sql("count_resources"), team, kind).Scan(&n)
	return int(n), err
}

// OfTeam reads every live resource of a kind the team has (bounded by
// the API's team limits).
func (s *Store) OfTeam(ctx context.Context, team, kind string) ([]Resource, error) {
	rows, err := s.db.QueryContext(ctx, s.sql("team_resources"), team, kind)
	if err != nil {
		return nil, err
	}
	return scanResources(rows)
}

// Entry is a resource of a page without its document.
type Entry struct {
	ID   string
	Size int // of the document, in bytes
}

// Page reads the ids and document sizes of a page of the team's live
// resources of a kind, oldest first, and the total: a page of large
// documents is then read a part at a time (ByID), never whole.
func (s *Store) Page(ctx context.Context, team, kind string, limit, offset int) ([]Entry, int, error) {
	total, err := s.Count(ctx, team, kind)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.db.QueryContext(ctx, s.sql("page_resources"), team, kind, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var size uint64
		if err := rows.Scan(&e.ID, &size); err != nil {
			return nil, 0, err
		}
		e.Size = int(size)
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// ByID reads the team's live resources of a kind with these ids, in no
// particular order; an id deleted meanwhile is left out.
func (s *Store) ByID(ctx context.Context, team, kind string, ids []string) ([]Resource, error) {
	rows, err := s.db.QueryContext(ctx, s.sql("resources_by_id"), team, kind, ids)
	if err != nil {
		return nil, err
	}
	return scanResources(rows)
}

func scanResources(rows *sql.Rows) ([]Resource, error) {
	defer rows.Close()
	var out []Resource
	for rows.Next() {
		var r Resource
		var doc string
		if err := rows.Scan(&r.ID, &doc, &r.CreatedAt, &r.UpdatedAt); err != nil {
			return nil, err
		}
		r.Doc = []byte(doc)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Delete marks a live resource of the team deleted. The deleted version
// keeps no document: nothing reads it, and a webhook's would still hold
// its (sealed) headers.
func (s *Store) Delete(ctx context.Context, team, kind, id string) error {
	r, err := s.Get(ctx, team, kind, id)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, s.sql("delete_resource"),
		team, kind, id, "{}", version(), r.CreatedAt.UnixMilli())
	return err
}

// DeletedWithDoc lists every team's deleted resources of a kind whose
// deleted version still holds a document (deleted before Delete dropped
// it), for Scrub.
func (s *Store) DeletedWithDoc(ctx context.Context, kind string) ([]Owned, error) {
	return s.owned(ctx, s.sql("deleted_with_doc"), kind)
}

// Scrub writes a deleted resource's deleted version again, without its
// document.
func (s *Store) Scrub(ctx context.Context, kind string, o Owned) error {
	_, err := s.db.ExecContext(ctx, s.sql("delete_resource"), o.TeamID, kind, o.ID, "{}", version(), o.CreatedAt.UnixMilli())
	return err
}

// DropOldVersions merges the resources table so that the versions its
// newer rows replace are removed from disk now rather than at some later
// merge (after rewriting documents that held secrets in clear).
func (s *Store) DropOldVersions(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, s.sql("drop_old_resource_versions"))
	return err
}

// Owned is a resource with its team.
type Owned struct {
	TeamID string
	Resource
}

// All lists every team's live resources of a kind (for the alert
// scheduler).
func (s *Store) All(ctx context.Context, kind string) ([]Owned, error) {
	return s.owned(ctx, s.sql("all_resources"), kind)
}

// owned runs a query whose rows are every team's resources of a kind:
// team, id, document and times.
func (s *Store) owned(ctx context.Context, query, kind string) ([]Owned, error) {
	rows, err := s.db.QueryContext(ctx, query, kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Owned
	for rows.Next() {
		var o Owned
		var doc string
		if err := rows.Scan(&o.TeamID, &o.ID, &doc, &o.CreatedAt, &o.UpdatedAt); err != nil {
			return nil, err
		}
		o.Doc = []byte(doc)
		out = append(out, o)
	}
	return out, rows.Err()
}

// Evaluation is one alert evaluation and its delivery.
type Evaluation struct {
	TeamID, AlertID        string
	WindowStart, WindowEnd time.Time
	State, PreviousState   string
	Value                  *float64
	Group                  string
	Notified               bool
	DeliveryAttempts       int
	DeliveryError          string
	IdempotencyKey         string
	EvaluatedAt            time.Time
}

// AddEvaluation records an evaluation.
func (s *Store) AddEvaluation(ctx context.Context, e Evaluation) error {
	notified := 0
	if e.Notified {
		notified = 1
	}
	_, err := s.db.ExecContext(ctx, s.sql("insert_evaluation"),
		e.TeamID, e.AlertID, e.WindowStart.UnixMilli(), e.WindowEnd.UnixMilli(), e.State, e.PreviousState, e.Value, e.Group,
		notified, e.DeliveryAttempts, e.DeliveryError, e.IdempotencyKey, e.EvaluatedAt.UnixMilli())
	return err
}

// Evaluated tells whether a window of an alert was already evaluated (by
// this or another replica).
func (s *Store) Evaluated(ctx context.Context, alertID string, windowStart time.Time) (bool, error) {
	var n uint64
	err := s.db.QueryRowContext(ctx, s.sql("count_evaluations_of_window"), alertID, windowStart.UnixMilli()).Scan(&n)
	return n > 0, err
}

// ClaimWindow tells whether replica is the one to evaluate an alert's
// window. Every replica that asks writes its claim (stamped by the
// server's clock as it is inserted), waits settle, then reads the claims:
// the earliest wins, ties going to the smaller replica id. The wait is
// what makes the answer one: a claim stamped before another becomes
// readable within the insert's own latency, so after settle (more than
// that latency) every replica reads every earlier claim. Without it, a
// claim stamped first but slower to land lets two replicas win.
func (s *Store) ClaimWindow(ctx context.Context, alertID string, windowStart time.Time, replica string, settle time.Duration) (bool, error) {
	if _, err := s.db.ExecContext(ctx, s.sql("insert_claim"), alertID, windowStart.UnixMilli(), replica); err != nil {
		return false, err
	}
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return false, ctx.Err()
	}
	var winner string
	if err := s.db.QueryRowContext(ctx, s.sql("claim_winner"), alertID, windowStart.UnixMilli()).Scan(&winner); err != nil {
		return false, err
	}
	return winner == replica, nil
}

// KeepHistory keeps alert evaluations for d after their window starts; 0
// keeps them for ever. One row per alert and window adds up: a thousand
// 1-minute alerts write 1.4 million rows a day.
func (s *Store) KeepHistory(ctx context.Context, d time.Duration) error {
	if d > 0 {
		_, err := s.db.ExecContext(ctx, s.sql("keep_history"), int64(d/time.Second))
		return err
	}
	// The engine refuses to remove a TTL the table does not have.
	var create string
	if err := s.db.QueryRowContext(ctx, s.sql("history_table")).Scan(&create); err != nil || !strings.Contains(create, "\nTTL ") {
		return err
	}
	_, err := s.db.ExecContext(ctx, s.sql("keep_all_history"))
	return err
}

// History lists an alert's evaluations, newest first.
func (s *Store) History(ctx context.Context, team, alertID string, limit, offset int) ([]Evaluation, error) {
	rows, err := s.db.QueryContext(ctx, s.sql("history"), team, alertID, limit, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Evaluation
	for rows.Next() {
		e := Evaluation{TeamID: team, AlertID: alertID}
		var notified uint8
		var attempts uint32
		if err := rows.Scan(&e.WindowStart, &e.WindowEnd, &e.State, &e.PreviousState, &e.Value, &e.Group, &notified, &attempts,
			&e.DeliveryError, &e.IdempotencyKey, &e.EvaluatedAt); err != nil {
			return nil, err
		}
		e.Notified, e.DeliveryAttempts = notified == 1, int(attempts)
		out = append(out, e)
	}
	return out, rows.Err()
}
