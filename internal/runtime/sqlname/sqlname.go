// Package sqlname checks the names the project writes into SQL text
// itself, where they cannot be bound as parameters: database, table and
// column names, and the cluster name of ON CLUSTER and cluster(). The
// store's DDL and the chart and search builders check with the same rules.
package sqlname

import "regexp"

var (
	plain   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	cluster = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)
)

// Plain reports whether name is a plain identifier (letters, digits and
// underscores, not starting with a digit), safe between backquotes.
func Plain(name string) bool { return plain.MatchString(name) }

// Cluster reports whether name may name a ClickHouse cluster here: a plain
// identifier that may also hold dots and dashes (as remote_servers entries
// often do), safe inside a single-quoted literal.
func Cluster(name string) bool { return cluster.MatchString(name) }
