package api

import (
	"context"
	"errors"

	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
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
