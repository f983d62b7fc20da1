// Package problems collects every problem of a request body, so that one
// 400 names them all instead of the first only. The REST API's resources
// and dashboards share it.
package problems

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// List is the problems found so far.
type List []string

// Add records a problem.
func (p *List) Add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// OneOf records a problem unless v is one of allowed.
func (p *List) OneOf(field, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		p.Add("%s must be one of %s, got %q", field, strings.Join(allowed, ", "), v)
	}
}

// Err is nil with no problem, else one error listing them all.
func (p List) Err() error {
	if len(p) == 0 {
		return nil
	}
	return errors.New(strings.Join(p, "; "))
}
