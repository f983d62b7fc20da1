package sources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

var stateSeq atomic.Int64

// tenancyOf is the rule of an install whose team "a" owns otel and
// more_a, over a fresh state database.
func tenancyOf(t *testing.T) (*Tenancy, *store.Store, string) {
	t.Helper()
	state := fmt.Sprintf("sources_test_%d", stateSeq.Add(1))
	chtest.FreshDatabase(t, state)
	st, err := store.Open(context.Background(), chtest.DB(t), state)
	require.NoError(t, err)
	return &Tenancy{Store: st, State: state, Owner: "a", OwnerDatabases: []string{"otel", "more_a"}}, st, state
}

// refused asserts a refusal (an ErrUnreadable) whose message names the
// database.
func refused(t *testing.T, err error, db string, more ...string) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, ErrUnreadable)
	var r *Refused
	require.ErrorAs(t, err, &r, "a *Refused: %v", err)
	require.ErrorContains(t, err, fmt.Sprintf("database %q is not open to sources", db))
	for _, m := range more {
		assert.ErrorContains(t, err, m)
	}
}

func TestTenancyKeepsEachTeamToItsDatabases(t *testing.T) {
	ten, st, state := tenancyOf(t)
	ctx := context.Background()

	// The install's team reads its own; another team none of them.
	require.NoError(t, ten.Check(ctx, "a", "otel"))
	require.NoError(t, ten.Check(ctx, "a", "more_a"))
	refused(t, ten.Check(ctx, "b", "otel"), "otel", `of team "b"`, "this team's: none", "tenancy.team_databases")
	refused(t, ten.Check(ctx, "", "otel"), "otel")

	// Assigned a database, b reads it and a does not.
	require.NoError(t, ten.Assign(ctx, "b", []string{"b_logs", "b_logs"}))
	require.NoError(t, ten.Check(ctx, "b", "b_logs"))
	refused(t, ten.Check(ctx, "b", "otel"), "otel", "this team's: b_logs")
	refused(t, ten.Check(ctx, "a", "b_logs"), "b_logs", `of team "a"`)
	dbs, err := ten.Databases(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, []string{"otel", "more_a"}, dbs, "the telemetry database first: a source naming none reads it")

	// Another collector sharing the state decides alike.
	other := &Tenancy{Store: st, State: state, Owner: "a", OwnerDatabases: []string{"otel", "more_a"}}
	require.NoError(t, other.Check(ctx, "b", "b_logs"))
	refused(t, other.Check(ctx, "a", "b_logs"), "b_logs")

	// An empty list takes them away (seen at once by the writer, within
	// cacheFor by the others).
	require.NoError(t, ten.Assign(ctx, "b", nil))
	refused(t, ten.Check(ctx, "b", "b_logs"), "b_logs")
	assert.Eventually(t, func() bool { return errors.Is(other.Check(ctx, "b", "b_logs"), ErrUnreadable) }, 3*cacheFor, 100*time.Millisecond)
}

func TestTenancyNeverOpensTheStateOrTheServersDatabases(t *testing.T) {
	ten, st, state := tenancyOf(t)
	ctx := context.Background()
	// Even listed for the owner (a configuration the extension refuses).
	ten.OwnerDatabases = append(ten.OwnerDatabases, state, "system")
	for _, db := range []string{state, "system", "SYSTEM", "information_schema", "INFORMATION_SCHEMA", "", "otel`.`x", "a.b"} {
		refused(t, ten.Check(ctx, "a", db), db)
	}
	refused(t, ten.Check(ctx, "a", state), state, "the API's state")
	refused(t, ten.Check(ctx, "a", "system"), "system", "the server's own")

	// The operator cannot assign them; a document written into the state
	// table by hand does not open them either.
	require.ErrorContains(t, ten.Assign(ctx, "b", []string{state}), "the API's state")
	require.ErrorContains(t, ten.Assign(ctx, "b", []string{"system"}), "the server's own")
	require.ErrorContains(t, ten.Assign(ctx, "b", []string{"otel"}), "it is the install team's")
	require.ErrorContains(t, ten.Assign(ctx, "a", []string{"x"}), "source_databases")
	doc, _ := json.Marshal(assignment{Databases: []string{state, "system", "otel", "b_logs"}})
	now := time.Now()
	require.NoError(t, st.Put(ctx, "b", KindDatabases, assignmentID, doc, now, now))
	ten.assigned = nil
	refused(t, ten.Check(ctx, "b", state), state)
	refused(t, ten.Check(ctx, "b", "system"), "system")
	require.NoError(t, ten.Check(ctx, "b", "b_logs"))
	// otel now has two teams: neither reads it until the operator says.
	refused(t, ten.Check(ctx, "b", "otel"), "otel", "more than one team (a, b)")
	refused(t, ten.Check(ctx, "a", "otel"), "otel", "more than one team (a, b)")
	dbs, err := ten.Databases(ctx, "b")
	require.NoError(t, err)
	assert.NotContains(t, dbs, state)

	// No tenancy at all reads nothing.
	var none *Tenancy
	refused(t, none.Check(ctx, "a", "otel"), "otel")
}

// A source row stored before the rule, or edited in the state table, is
// refused when it is read for a query, whatever it names.
func TestCatalogRefusesAStoredSourceOfAnotherTeamsDatabase(t *testing.T) {
	ten, st, state := tenancyOf(t)
	ctx := context.Background()
	require.NoError(t, ten.Assign(ctx, "b", []string{"b_logs"}))
	cat := &Catalog{Store: st, Tenancy: ten}
	put := func(team, id, db string) {
		src := Defaults(db, team)[0]
		src.ID = id
		doc, _ := json.Marshal(src)
		require.NoError(t, st.Put(ctx, team, Kind, id, doc, time.Now(), time.Now()))
	}
	put("b", "theirs", "otel")
	put("b", "state", state)
	put("b", "mine", "b_logs")
	put("a", "logs", "otel")

	_, err := cat.Get(ctx, "b", "theirs")
	refused(t, err, "otel", `of team "b"`)
	_, err = cat.Get(ctx, "b", "state")
	refused(t, err, state)
	src, err := cat.Get(ctx, "b", "mine")
	require.NoError(t, err)
	assert.Equal(t, "b_logs", src.Chart().Database)
	_, err = cat.Get(ctx, "a", "logs")
	require.NoError(t, err)
	_, err = (&Catalog{Store: st}).Get(ctx, "a", "logs")
	refused(t, err, "otel")

	// Taken away later, the cached source is refused at once.
	require.NoError(t, ten.Assign(ctx, "b", []string{}))
	_, err = cat.Get(ctx, "b", "mine")
	refused(t, err, "b_logs")
}
