package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/otelhouse/otelhouse/internal/domain/importers/datadog"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
)

// Bootstrap makes the team's default connection (the collector's own
// ClickHouse) and its default sources (the exporter's tables).
func (s *Server) Bootstrap(ctx context.Context, team string) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	conn := s.defaultConnection(team, now)
	b, _ := json.Marshal(conn)
	if err := s.opts.Store.Put(ctx, team, kindConn, conn.ID, b, now, now); err != nil {
		return err
	}
	for _, src := range sources.Defaults(s.opts.Database, team) {
		b, _ := json.Marshal(src)
		if err := s.opts.Store.Put(ctx, team, kindSource, src.ID, b, now, now); err != nil {
			return err
		}
	}
	return nil
}

// HostDashboardID is the id of the dashboard AddHostDashboard makes.
const HostDashboardID = "hosts"

// AddHostDashboard makes the team's dashboard of the Datadog Agent's
// system metrics by host (datadog.HostDashboard), through the importer
// and the checks every dashboard passes, so that hosts an Agent reports
// have a dashboard out of the box.
func (s *Server) AddHostDashboard(ctx context.Context, team string) error {
	d, _, err := datadog.ImportDashboard(datadog.HostDashboard, datadog.DefaultSources)
	if err != nil {
		return err
	}
	body, err := json.Marshal(d)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	ctx = context.WithValue(ctx, teamKey{}, team)
	doc, err := s.decodeValidate(ctx, kindDashboard, body, stamp{id: HostDashboardID, created: now, updated: now})
	if err != nil {
		return err
	}
	b, _ := json.Marshal(doc.value)
	return s.opts.Store.Put(ctx, team, kindDashboard, HostDashboardID, b, now, now)
}
