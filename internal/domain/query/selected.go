package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Selected is what a statement that reads every column adds to read the
// select items that are expressions (HyperDX's search select takes
// column expressions: JSONExtractString(Body, 'msg'), LogAttributes['k']):
// ", expr AS `text`" for each, named by its text as a row's columns are
// by theirs. Each is decided as a sql where is, on the engine's parse,
// and what runs is written from that tree; a column or a role the
// statement reads already is not read twice.
func (s *Scope) Selected(ctx context.Context, db *sql.DB, texts []string) (string, error) {
	var b strings.Builder
	var fns *Catalog
	seen := map[string]bool{}
	for _, text := range texts {
		if _, col := s.f.cols[text]; col || seen[text] {
			continue
		}
		if _, role := s.f.roles[text]; role {
			continue
		}
		seen[text] = true
		if fns == nil {
			var err error
			if fns, err = catalogOf(ctx, db); err != nil {
				return "", err
			}
		}
		expr, err := CheckSQLWhere(ctx, db, text, s.f.cols, fns)
		if err != nil {
			if qe := (Error{}); errors.As(err, &qe) {
				why := strings.ReplaceAll(qe.Error(), "a sql where", "a select item")
				return "", Error{fmt.Errorf("select item %q: %s", text, why)}
			}
			return "", err
		}
		b.WriteString(", ")
		b.WriteString(expr)
		b.WriteString(" AS ")
		writeName(&b, text)
	}
	return b.String(), nil
}
