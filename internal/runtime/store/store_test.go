package store

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

// open returns a store in db, which it empties first.
func open(t *testing.T, db string) *Store {
	t.Helper()
	chtest.FreshDatabase(t, db)
	s, err := Open(context.Background(), chtest.DB(t), db)
	require.NoError(t, err)
	return s
}

func TestResourcesAreTeamScoped(t *testing.T) {
	ctx := context.Background()
	s := open(t, "api_store_test")
	now := time.Now()
	require.NoError(t, s.Put(ctx, "team-a", "dashboard", "d1", []byte(`{"name":"one"}`), now, now))
	require.NoError(t, s.Put(ctx, "team-a", "dashboard", "d2", []byte(`{"name":"two"}`), now, now))
	require.NoError(t, s.Put(ctx, "team-b", "dashboard", "d3", []byte(`{"name":"other team"}`), now, now))

	r, err := s.Get(ctx, "team-a", "dashboard", "d1")
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"one"}`, string(r.Doc))
	_, err = s.Get(ctx, "team-b", "dashboard", "d1")
	require.ErrorIs(t, err, ErrNotFound, "another team's id does not exist for you")

	// A newer version replaces the old one.
	require.NoError(t, s.Put(ctx, "team-a", "dashboard", "d1", []byte(`{"name":"renamed"}`), now, time.Now()))
	r, err = s.Get(ctx, "team-a", "dashboard", "d1")
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"renamed"}`, string(r.Doc))

	page, total, err := s.Page(ctx, "team-a", "dashboard", 1, 0)
	require.NoError(t, err)
	assert.Equal(t, 2, total)
	require.Len(t, page, 1)

	require.NoError(t, s.Delete(ctx, "team-a", "dashboard", "d2"))
	all, err := s.OfTeam(ctx, "team-a", "dashboard")
	require.NoError(t, err)
	require.Len(t, all, 1)
	assert.JSONEq(t, `{"name":"renamed"}`, string(all[0].Doc))
	n, err := s.Count(ctx, "team-a", "dashboard")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.ErrorIs(t, s.Delete(ctx, "team-a", "dashboard", "d2"), ErrNotFound)
}

func TestKeysAndTeams(t *testing.T) {
	ctx := context.Background()
	s := open(t, "api_keys_test")
	n, err := s.TeamCount(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	require.NoError(t, s.CreateTeam(ctx, "t1", "Team"))
	require.NoError(t, s.PutKey(ctx, Key{Hash: "h1", TeamID: "t1", Kind: "personal", KeyID: "k1"}))
	require.NoError(t, s.PutKey(ctx, Key{Hash: "h2", TeamID: "t1", Kind: "ingestion", KeyID: "k2"}))
	k, ok, err := s.KeyCache("personal").Lookup(ctx, "h1")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "t1", k.TeamID)
	_, ok, err = s.KeyCache("personal").Lookup(ctx, "h2")
	require.NoError(t, err)
	assert.False(t, ok, "an ingestion key is not a personal key")
	ing, err := s.KeysOfKind(ctx, "ingestion")
	require.NoError(t, err)
	assert.Len(t, ing, 1)
	n, err = s.TeamCount(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	team, err := s.TeamByID(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, "Team", team.Name)
	_, err = s.TeamByID(ctx, "t2")
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestTwoStoresShareOneDatabase(t *testing.T) {
	ctx := context.Background()
	a, b := open(t, "api_shared_test"), open(t, "api_shared_test")
	now := time.Now()
	require.NoError(t, a.Put(ctx, "t", "alert", "x", []byte(`{}`), now, now))
	_, err := b.Get(ctx, "t", "alert", "x")
	require.NoError(t, err, "a replica sees another's writes")
	assert.Error(t, func() error { _, err := Open(ctx, chtest.DB(t), "bad-name;"); return err }())
}

// A page is its ids and sizes in creation order; ByID reads documents of
// the team only. State from before doc_bytes gets the column.
func TestPagesAndDocumentsByID(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	_, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS api_page_test")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, "CREATE DATABASE api_page_test")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS api_page_test.api_resources (team_id String, kind LowCardinality(String),
		id String, doc String, version UInt64, deleted UInt8 DEFAULT 0, created_at DateTime64(3, 'UTC'), updated_at DateTime64(3, 'UTC'))
		ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, kind, id)`)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `INSERT INTO api_page_test.api_resources (team_id, kind, id, doc, version, created_at, updated_at)
		VALUES ('t', 'dashboard', 'old', '{"name":"before doc_bytes"}', 1, now64(3) - 60, now64(3) - 60)`)
	require.NoError(t, err)
	s, err := Open(ctx, db, "api_page_test") // over the table as an older version left it
	require.NoError(t, err)
	now := time.Now()
	for i, id := range []string{"c", "a", "b"} {
		at := now.Add(time.Duration(i) * time.Second)
		require.NoError(t, s.Put(ctx, "t", "dashboard", id, []byte(`{"name":"`+id+`"}`), at, at))
	}
	require.NoError(t, s.Put(ctx, "u", "dashboard", "x", []byte(`{}`), now, now))

	page, total, err := s.Page(ctx, "t", "dashboard", 3, 0)
	require.NoError(t, err)
	assert.Equal(t, 4, total)
	assert.Equal(t, []Entry{{"old", 27}, {"c", 12}, {"a", 12}}, page)
	docs, err := s.ByID(ctx, "t", "dashboard", []string{"b", "old", "x"})
	require.NoError(t, err)
	got := map[string]string{}
	for _, d := range docs {
		got[d.ID] = string(d.Doc)
	}
	assert.Equal(t, map[string]string{"b": `{"name":"b"}`, "old": `{"name":"before doc_bytes"}`}, got, "team u's x is not team t's")
}

func TestHistoryIsKeptForItsRetention(t *testing.T) {
	ctx := context.Background()
	db := chtest.DB(t)
	_, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS api_history_test")
	require.NoError(t, err)
	s := open(t, "api_history_test")
	require.NoError(t, s.KeepHistory(ctx, 0), "no TTL to remove yet")
	require.NoError(t, s.KeepHistory(ctx, 24*time.Hour))
	require.NoError(t, s.KeepHistory(ctx, 24*time.Hour), "set again at every start")
	now := time.Now()
	for _, start := range []time.Time{now.Add(-49 * time.Hour), now.Add(-time.Hour)} {
		require.NoError(t, s.AddEvaluation(ctx, Evaluation{
			TeamID: "t", AlertID: "a", WindowStart: start, WindowEnd: start.Add(time.Minute),
			State: "OK", PreviousState: "OK", EvaluatedAt: now,
		}))
	}
	_, err = db.ExecContext(ctx, "OPTIMIZE TABLE api_history_test.api_alert_history FINAL")
	require.NoError(t, err)
	evs, err := s.History(ctx, "t", "a", 10, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1, "the evaluation of two days ago is past 24 hours")
	assert.WithinDuration(t, now.Add(-time.Hour), evs[0].WindowStart, time.Second)

	require.NoError(t, s.KeepHistory(ctx, 0))
	var create string
	require.NoError(t, db.QueryRowContext(ctx, "SELECT create_table_query FROM system.tables WHERE database = 'api_history_test' AND name = 'api_alert_history'").Scan(&create))
	assert.NotContains(t, create, "TTL")
}

// Of the replicas claiming one window, exactly one wins, whatever the
// order their claims and reads interleave in.
func TestClaimWindowHasOneWinner(t *testing.T) {
	ctx := context.Background()
	s := open(t, "api_claims_test")
	w := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for round := range 20 {
		alert := fmt.Sprintf("a%d", round)
		var wg sync.WaitGroup
		var wins atomic.Int32
		for r := range 4 {
			wg.Go(func() {
				won, err := s.ClaimWindow(ctx, alert, w, fmt.Sprintf("replica-%d", r), 300*time.Millisecond)
				require.NoError(t, err)
				if won {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		assert.Equal(t, int32(1), wins.Load(), "round %d", round)
		won, err := s.ClaimWindow(ctx, alert, w, "late", 0)
		require.NoError(t, err)
		assert.False(t, won, "a late claim loses")
	}
	won, err := s.ClaimWindow(ctx, "a0", w.Add(time.Minute), "replica-9", 0)
	require.NoError(t, err)
	assert.True(t, won, "the next window is claimed afresh")
}
