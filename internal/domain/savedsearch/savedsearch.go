// Package savedsearch is a search kept under a name (HyperDX's saved
// searches): a source, a where, the columns shown. The REST API stores
// and validates them; the web UI saves and opens them through the same
// type and checks.
package savedsearch

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/query"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// Kind is what a saved search is filed under.
const Kind = store.KindSavedSearch

// SavedSearch is a named search of a source.
type SavedSearch struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Source        string   `json:"source"` // a source id of the team
	Where         string   `json:"where"`
	WhereLanguage string   `json:"whereLanguage"`
	Select        []string `json:"select"`
	OrderBy       string   `json:"orderBy,omitempty"`
	Tags          []string `json:"tags"`
	// Filters are the search page's sidebar filters (HyperDX's).
	Filters   []Filter  `json:"filters,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Filter is a sidebar filter: a sql condition (HyperDX's filter shapes;
// lucene and sql_ast ones are kept as a search already has them).
type Filter struct {
	Type      string `json:"type"`
	Condition string `json:"condition,omitempty"`
	Operator  string `json:"operator,omitempty"`
	Left      string `json:"left,omitempty"`
	Right     string `json:"right,omitempty"`
}

// Equal reports whether f and g are the same filter.
func (f Filter) Equal(g Filter) bool { return f == g }

// Validate checks a saved search and fills its defaults; sourceExists
// tells whether the team has the source.
func (s *SavedSearch) Validate(sourceExists func(id string) (bool, error)) error {
	var p []string
	if strings.TrimSpace(s.Name) == "" {
		p = append(p, "name is required")
	}
	if s.WhereLanguage == "" {
		s.WhereLanguage = "lucene"
	}
	if !slices.Contains(query.WhereLanguages, s.WhereLanguage) {
		p = append(p, fmt.Sprintf("whereLanguage must be one of %s, got %q", strings.Join(query.WhereLanguages, ", "), s.WhereLanguage))
	}
	if len(s.Select) > 100 {
		p = append(p, "select takes at most 100 fields")
	}
	if s.Select == nil {
		s.Select = []string{}
	}
	if s.Tags == nil {
		s.Tags = []string{}
	}
	if s.Source == "" {
		p = append(p, "source is required")
	} else if ok, err := sourceExists(s.Source); err != nil {
		return err
	} else if !ok {
		p = append(p, fmt.Sprintf("source %q does not exist", s.Source))
	}
	if len(p) > 0 {
		return Invalid{errors.New(strings.Join(p, "; "))}
	}
	return nil
}

// Invalid is a saved search the caller must correct.
type Invalid struct{ error }
