package api

import (
	"context"
	"fmt"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
)

// SealWebhookHeaders rewrites every team's webhooks stored with their
// headers in clear (before headers were sealed) with them sealed, drops
// the documents of deleted ones, and merges the replaced versions away;
// run at each start, it finds nothing once done and answers how many it
// rewrote. A webhook changed by a request
// during the rewrite keeps the request's version only if written after
// it: the rewrite is of what it read moments before.
func (s *Server) SealWebhookHeaders(ctx context.Context) (int, error) {
	all, err := s.opts.Store.All(ctx, kindWebhook)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, o := range all {
		doc, changed, err := webhook.SealStoredDoc(s.opts.Sealer, o.TeamID, o.ID, o.Doc)
		if err != nil {
			return n, fmt.Errorf("sealing the headers of webhook %s: %w", o.ID, err)
		}
		if !changed {
			continue
		}
		if err := s.opts.Store.Put(ctx, o.TeamID, kindWebhook, o.ID, doc, o.CreatedAt, o.UpdatedAt); err != nil {
			return n, err
		}
		n++
	}
	// Webhooks deleted before deletes dropped their document still hold
	// it, headers and all.
	deleted, err := s.opts.Store.DeletedWithDoc(ctx, kindWebhook)
	if err != nil {
		return n, err
	}
	for _, o := range deleted {
		if err := s.opts.Store.Scrub(ctx, kindWebhook, o); err != nil {
			return n, err
		}
		n++
	}
	if n > 0 {
		// The versions rewritten are replaced, not yet gone: merged away
		// now, so the headers leave the disk, not only the answers.
		if err := s.opts.Store.DropOldVersions(ctx); err != nil {
			return n, err
		}
	}
	return n, nil
}
