package sources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/otelhouse/otelhouse/internal/runtime/sqlname"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// KindDatabases files a team's assigned databases in the state, one
// document per team: kept there, not only in one collector's
// configuration, so every collector sharing the state decides alike. No
// route of the API or the UI writes this kind; Tenancy.Assign does, from
// the operator's configuration.
const KindDatabases = "team_databases"

// assignmentID is the id of a team's one KindDatabases document.
const assignmentID = "databases"

type assignment struct {
	Databases []string `json:"databases"`
}

// Tenancy decides which databases a team's sources read. Telemetry
// queries run with the API's own credentials, which read every database
// of the server, so this is what keeps a team to its own telemetry:
//
//   - the install's team (Owner, the first team) reads OwnerDatabases, the
//     database the exporter writes and source_databases;
//   - another team reads the databases the operator assigned to it
//     (Assign, stored in the state);
//   - a database belongs to one team: one claimed by two is read by
//     neither until the operator settles it;
//   - no team reads the API's state (State) or the server's own
//     databases, whatever is assigned.
//
// Check is the one decision; a source is checked with it when it is
// written and again, by Catalog.Get, each time it is read for a query.
type Tenancy struct {
	// Store holds the operator's assignments; nil: the owner's only.
	Store *store.Store
	// State is the API's state database (every team's documents, key
	// hashes, account hashes, webhook headers).
	State string
	// Owner is the install's team and OwnerDatabases what it reads.
	Owner          string
	OwnerDatabases []string

	mu       sync.Mutex
	at       time.Time
	assigned map[string][]string // team → databases, from the state
}

// Refused is a database a team may not read: the caller's to fix, so it
// is answered with 400 and this message, which names the database.
type Refused struct {
	Team, Database string
	why            string
}

func (e *Refused) Error() string {
	return fmt.Sprintf("database %q is not open to sources%s: %s", e.Database, e.of(), e.why)
}

func (e *Refused) of() string {
	if e.Team == "" {
		return ""
	}
	return fmt.Sprintf(" of team %q", e.Team)
}

// Is makes a refusal an ErrUnreadable, which every query path maps to 400.
func (e *Refused) Is(target error) bool { return target == ErrUnreadable }

// closed is a database no team reads, whatever is assigned.
func (t *Tenancy) closed(db string) string {
	switch {
	case !sqlname.Plain(db):
		return "not a plain identifier"
	case SystemDatabase(db):
		return "it is the server's own"
	case t.State == "" || strings.EqualFold(db, t.State):
		// Without the state's name nothing can be told apart from it.
		return "it holds the API's state (every team's documents, keys and webhooks)"
	}
	return ""
}

// Check answers nil when the team may read the database, a *Refused when
// it may not, and another error when the assignments cannot be read (the
// source is then not read either).
func (t *Tenancy) Check(ctx context.Context, team, database string) error {
	if t == nil || team == "" {
		return &Refused{Team: team, Database: database, why: "no tenancy is configured for the team"}
	}
	if why := t.closed(database); why != "" {
		return &Refused{Database: database, why: why}
	}
	owners, err := t.owners(ctx, database)
	if err != nil {
		return err
	}
	switch {
	case len(owners) > 1:
		return &Refused{Team: team, Database: database, why: fmt.Sprintf(
			"it is assigned to more than one team (%s); no team reads it until the operator assigns it to one", strings.Join(owners, ", "))}
	case len(owners) == 1 && owners[0] == team:
		return nil
	}
	mine, err := t.Databases(ctx, team)
	if err != nil {
		return err
	}
	has := "none"
	if len(mine) > 0 {
		has = strings.Join(mine, ", ")
	}
	return &Refused{Team: team, Database: database, why: fmt.Sprintf(
		"a team reads only the databases assigned to it (this team's: %s; the operator assigns them with observability_api tenancy.team_databases)", has)}
}

// Databases lists what the team may read, the owner's first (the first
// is where a source that names no database reads).
func (t *Tenancy) Databases(ctx context.Context, team string) ([]string, error) {
	if t == nil {
		return nil, nil
	}
	assigned, err := t.assignments(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	if team == t.Owner {
		out = append(out, t.OwnerDatabases...)
	}
	for _, db := range assigned[team] {
		if !slices.Contains(out, db) {
			out = append(out, db)
		}
	}
	return slices.DeleteFunc(out, func(db string) bool { return t.closed(db) != "" }), nil
}

// owners are the teams a database is assigned to, sorted.
func (t *Tenancy) owners(ctx context.Context, db string) ([]string, error) {
	assigned, err := t.assignments(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	if slices.Contains(t.OwnerDatabases, db) {
		out = append(out, t.Owner)
	}
	for team, dbs := range assigned {
		if slices.Contains(dbs, db) && !slices.Contains(out, team) {
			out = append(out, team)
		}
	}
	sort.Strings(out)
	return out, nil
}

// assignments reads every team's assigned databases, kept for cacheFor:
// every query checks its source, and an assignment changed by another
// collector is seen within that.
func (t *Tenancy) assignments(ctx context.Context) (map[string][]string, error) {
	if t.Store == nil {
		return nil, nil
	}
	t.mu.Lock()
	m, at := t.assigned, t.at
	t.mu.Unlock()
	if m != nil && time.Since(at) < cacheFor {
		return m, nil
	}
	owned, err := t.Store.All(ctx, KindDatabases)
	if err != nil {
		return nil, fmt.Errorf("reading the teams' databases: %w", err)
	}
	m = make(map[string][]string, len(owned))
	for _, o := range owned {
		var a assignment
		if err := json.Unmarshal(o.Doc, &a); err != nil {
			// A document no collector wrote: its team reads nothing of it.
			continue
		}
		m[o.TeamID] = a.Databases
	}
	t.mu.Lock()
	t.assigned, t.at = m, time.Now()
	t.mu.Unlock()
	return m, nil
}

// ValidateAssignment checks what an operator assigns to a team: plain
// names, never the state or the server's databases, never the owner's.
func (t *Tenancy) ValidateAssignment(team string, dbs []string) error {
	var errs []error
	if team == "" {
		errs = append(errs, errors.New("a team id is required"))
	}
	if team == t.Owner && team != "" {
		errs = append(errs, fmt.Errorf("team %q is the install's team: list its databases in source_databases", team))
	}
	for _, db := range dbs {
		if why := t.closed(db); why != "" {
			errs = append(errs, fmt.Errorf("database %q cannot be assigned: %s", db, why))
		} else if slices.Contains(t.OwnerDatabases, db) {
			errs = append(errs, fmt.Errorf("database %q cannot be assigned to team %q: it is the install team's", db, team))
		}
	}
	return errors.Join(errs...)
}

// Assign sets the databases a team (other than the owner) reads, in the
// state, for every collector sharing it; an empty list takes them all
// away. Unchanged assignments are not written again.
func (t *Tenancy) Assign(ctx context.Context, team string, dbs []string) error {
	if err := t.ValidateAssignment(team, dbs); err != nil {
		return err
	}
	if t.Store == nil {
		return errors.New("tenancy has no store to keep assignments in")
	}
	dbs = slices.Compact(slices.Sorted(slices.Values(dbs)))
	if dbs == nil {
		dbs = []string{}
	}
	created := time.Now()
	old, err := t.Store.Get(ctx, team, KindDatabases, assignmentID)
	switch {
	case err == nil:
		var a assignment
		if json.Unmarshal(old.Doc, &a) == nil && slices.Equal(a.Databases, dbs) {
			return nil
		}
		created = old.CreatedAt
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	doc, _ := json.Marshal(assignment{Databases: dbs})
	if err := t.Store.Put(ctx, team, KindDatabases, assignmentID, doc, created, time.Now()); err != nil {
		return err
	}
	t.mu.Lock()
	t.assigned = nil
	t.mu.Unlock()
	return nil
}
