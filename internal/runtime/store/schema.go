package store

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/otelhouse/otelhouse/internal/runtime/sqlfile"
	"github.com/otelhouse/otelhouse/internal/runtime/sqlname"
)

// The zookeeper path and replica name of a replicated state table. The
// path leaves out {shard}: on a cluster of several shards every server is
// a replica of the one state (the teams, keys and dashboards are not
// sharded, every collector must see them all), while the telemetry
// tables stay per shard. {replica} is the macro every server of a cluster
// defines (the operator and the chart set it), unique across the cluster.
const replication = "'/clickhouse/tables/{database}/{table}', '{replica}'"

var (
	tableRE  = regexp.MustCompile(`(?m)^((?:CREATE TABLE IF NOT EXISTS|ALTER TABLE) \{db\}\.\w+)`)
	engineRE = regexp.MustCompile(`ENGINE = (\w*MergeTree)(?:\(([^)]*)\))?`)
)

// Schema is the statements that create the state tables in database. On
// a cluster (cluster not empty) every statement runs ON CLUSTER and each
// engine is its Replicated form, so every server of the cluster, in every
// shard, holds all the state and the collectors sharing it read it
// locally.
func Schema(database, cluster string) ([]string, error) {
	if !sqlname.Plain(database) {
		return nil, fmt.Errorf("database name %q is not a plain identifier", database)
	}
	if cluster != "" && !sqlname.Cluster(cluster) {
		return nil, fmt.Errorf("cluster name %q is not a plain identifier", cluster)
	}
	on := ""
	if cluster != "" {
		on = " ON CLUSTER '" + cluster + "'"
	}
	out := []string{"CREATE DATABASE IF NOT EXISTS " + database + on}
	for _, stmt := range strings.Split(sqlfile.StripComments(schemaSQL), ";") {
		stmt = strings.TrimSpace(stmt)
		if stmt == "" {
			continue
		}
		if cluster != "" {
			stmt = tableRE.ReplaceAllString(stmt, "$1"+on)
			stmt = engineRE.ReplaceAllStringFunc(stmt, func(m string) string {
				parts := engineRE.FindStringSubmatch(m)
				args := replication
				if parts[2] != "" {
					args += ", " + parts[2]
				}
				return "ENGINE = Replicated" + parts[1] + "(" + args + ")"
			})
		}
		out = append(out, strings.ReplaceAll(stmt, "{db}", database))
	}
	return out, nil
}
