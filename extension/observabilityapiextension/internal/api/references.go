package api

import (
	"context"
	"errors"
	"fmt"

	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// lookups answer an alert's references within the caller's team.
type lookups struct {
	s    *Server
	team string
}

func (l lookups) tile(ctx context.Context, dashboardID, tileID string) (*dashboards.Tile, bool, error) {
	res, err := l.s.opts.Store.Get(ctx, l.team, kindDashboard, dashboardID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	d, err := dashboards.Decode(res.Doc)
	if err != nil {
		return nil, false, err
	}
	t, ok := d.Tile(tileID)
	return t, ok, nil
}

func (l lookups) dashboard(ctx context.Context, id string) (bool, error) {
	_, err := l.s.opts.Store.Get(ctx, l.team, kindDashboard, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (l lookups) savedSearch(ctx context.Context, id string) (bool, error) {
	_, err := l.s.opts.Store.Get(ctx, l.team, kindSaved, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (l lookups) webhook(ctx context.Context, id string) (bool, error) {
	_, err := l.s.opts.Store.Get(ctx, l.team, kindWebhook, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// source is the team's source id, as stored (whether the team may read
// its database is the query's question, when it runs).
func (l lookups) source(ctx context.Context, id string) (Source, bool, error) {
	if id == "" {
		return Source{}, false, nil
	}
	res, err := l.s.opts.Store.Get(ctx, l.team, kindSource, id)
	if errors.Is(err, store.ErrNotFound) {
		return Source{}, false, nil
	}
	if err != nil {
		return Source{}, false, err
	}
	src, err := sources.Decode(l.team, res.Doc)
	if err != nil {
		return Source{}, false, fmt.Errorf("stored source %s: %w", id, err)
	}
	return src, true, nil
}
