package api

import (
	"context"
	"encoding/json"
	"time"
)

// Bootstrap makes the team's default sources (the exporter's tables).
func (s *Server) Bootstrap(ctx context.Context, team string) error {
	now := time.Now()
	for _, src := range defaultSources(s.opts.Database) {
		b, _ := json.Marshal(src)
		if err := s.opts.Store.Put(ctx, team, kindSource, src.ID, b, now, now); err != nil {
			return err
		}
	}
	return nil
}
