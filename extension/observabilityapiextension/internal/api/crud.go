package api

// The generic handlers every stored kind shares: create, get, list,
// update and delete, with the body limits and the public shape of a
// stored document. What differs by kind is in kinds.go.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/domain/sources"
	"github.com/otelhouse/otelhouse/internal/runtime/store"
)

// MaxBody bounds a request body: a dashboard or a chart query. An alert,
// source or webhook is a few fields (its templates at most 16 KiB), so it
// is bounded tighter: the alert scheduler reads every team's alerts each
// pass.
const (
	MaxBody      = 1 << 20
	maxSmallBody = 64 << 10
)

func maxBodyOf(kind string) int64 {
	if kind == kindDashboard {
		return MaxBody
	}
	return maxSmallBody
}

// readJSON enforces the JSON content type and the size limit.
func readJSON(r *http.Request, limit int64) ([]byte, error) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return nil, &apiError{status: http.StatusUnsupportedMediaType, msg: "Content-Type must be application/json"}
	}
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &apiError{status: http.StatusRequestEntityTooLarge, msg: "request body exceeds " + sizeText(limit)}
		}
		return nil, &apiError{status: http.StatusBadRequest, msg: "reading body: " + err.Error()}
	}
	return b, nil
}

func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// public is what a stored document looks like to callers: webhook headers
// are write-only; a dashboard stored in an older shape answers in today's.
// nil with no error leaves a document out of a list; a document that is
// not JSON is an error, never a null.
func public(team, kind string, doc []byte) (any, error) {
	return publicOf(team, kind, doc, false)
}

// publicOne is public for an answer of one resource, which may say more
// than a list's entry (an inline alert's chartConfig).
func publicOne(team, kind string, doc []byte) (any, error) {
	return publicOf(team, kind, doc, true)
}

func publicOf(team, kind string, doc []byte, whole bool) (any, error) {
	switch kind {
	case kindSaved:
		return publicSavedSearch(team, doc)
	case kindConn:
		return publicConnection(doc)
	case kindSource:
		src, err := sources.Decode(team, doc)
		if err != nil {
			return nil, fmt.Errorf("stored source: %w", err)
		}
		// One its kind's schema no longer accepts is left out, as
		// HyperDX leaves out what fails its SourceSchema.
		pub := src.Public()
		if pub.Validate(pub.From.DatabaseName) != nil {
			return nil, nil
		}
		return pub, nil
	}
	if kind == kindAlert {
		return publicAlert(team, doc, whole)
	}
	if kind == kindDashboard {
		if d, err := dashboards.Decode(doc); err == nil {
			d.Heal()
			return d, nil
		}
	}
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, fmt.Errorf("stored %s: %w", kind, err)
	}
	if kind == kindWebhook {
		delete(m, "headers")
		delete(m, "queryParams")
		delete(m, webhook.SealedField)
		delete(m, webhook.SealedQueryParamsField)
		switch s, _ := m["service"].(string); {
		case s == "slack" || s == "incidentio":
			delete(m, "body") // not theirs (HyperDX strips it too)
		case s != "" && !slices.Contains(webhookTypes, s):
			// Not a webhook this API can deliver to: counted in the
			// total, left out of the list, as HyperDX does.
			return nil, nil
		}
	}
	return m, nil
}

func (s *Server) create(kind string) endpoint {
	return func(r *http.Request) result {
		body, err := readJSON(r, maxBodyOf(kind))
		if err != nil {
			return failed(kind, err)
		}
		now := time.Now().UTC().Truncate(time.Millisecond)
		doc, err := s.decodeValidate(r.Context(), kind, body, stamp{id: newID(), created: now, updated: now})
		if err != nil {
			return failed(kind, err)
		}
		// Counted and written under the team's lock, so that concurrent
		// creates cannot pass the limit together (on this replica).
		team := teamOf(r.Context())
		unlock := s.creating.lock(team + "/" + kind)
		defer unlock()
		n, err := s.opts.Store.Count(r.Context(), team, kind)
		if err != nil {
			return failed(kind, err)
		}
		if n >= s.opts.TeamLimits.Of(kind) {
			plural := strings.ReplaceAll(kind, "_", " ") + "es"
			if !strings.HasSuffix(kind, "search") {
				plural = strings.TrimSuffix(plural, "es") + "s"
			}
			return fail(http.StatusForbidden, fmt.Sprintf("the team has %d %s, its limit (team_limits.%s); delete some first", n, plural, strings.ReplaceAll(plural, " ", "_")))
		}
		return s.save(r, kind, doc, now, http.StatusCreated)
	}
}

func (s *Server) update(kind string) endpoint {
	return func(r *http.Request) result {
		id := r.PathValue("id")
		old, err := s.opts.Store.Get(r.Context(), teamOf(r.Context()), kind, id)
		if err != nil {
			return failed(kind, badID(kind, id, err))
		}
		body, err := readJSON(r, maxBodyOf(kind))
		if err != nil {
			return failed(kind, err)
		}
		now := time.Now().UTC().Truncate(time.Millisecond)
		doc, err := s.decodeValidate(r.Context(), kind, body, stamp{id: id, created: old.CreatedAt.UTC(), updated: now, old: old.Doc})
		if err != nil {
			return failed(kind, err)
		}
		if d, ok := doc.value.(*Dashboard); ok {
			// Alerts bound to a tile the update removes go with it.
			if err := alerting.DropOrphans(r.Context(), s.opts.Store, teamOf(r.Context()), d); err != nil {
				return failed(kind, err)
			}
		}
		return s.save(r, kind, doc, old.CreatedAt, http.StatusOK)
	}
}

func (s *Server) save(r *http.Request, kind string, doc document, created time.Time, status int) result {
	b, _ := json.Marshal(doc.value)
	if err := s.opts.Store.Put(r.Context(), teamOf(r.Context()), kind, doc.id, b, created, time.Now()); err != nil {
		return failed(kind, err)
	}
	pub, err := publicOne(teamOf(r.Context()), kind, b)
	if err != nil {
		return failed(kind, err)
	}
	return ok(status, pub, nil)
}

func (s *Server) get(kind string) endpoint {
	return func(r *http.Request) result {
		res, err := s.opts.Store.Get(r.Context(), teamOf(r.Context()), kind, r.PathValue("id"))
		if err != nil {
			return failed(kind, badID(kind, r.PathValue("id"), err))
		}
		pub, err := publicOne(teamOf(r.Context()), kind, res.Doc)
		if err != nil {
			return failed(kind, err)
		}
		return ok(http.StatusOK, pub, nil)
	}
}

func (s *Server) list(kind string) endpoint {
	return func(r *http.Request) result {
		f := formOf(r.Context())
		def, most := f.page()
		limit, offset, err := paging(r, def, most)
		if err != nil {
			return fail(http.StatusBadRequest, err.Error())
		}
		ctx, team := r.Context(), teamOf(r.Context())
		page, total, err := s.opts.Store.Page(ctx, team, kind, limit, offset)
		if err != nil {
			return failed(kind, err)
		}
		return result{stream: func(w http.ResponseWriter, _ form) {
			meta := map[string]any{"total": total, "limit": limit, "offset": offset}
			extra := meta
			switch {
			case f == selfHosted && kind == kindConn:
				// HyperDX lists connections whole, without a page.
				extra = nil
			case f == selfHosted:
				// HyperDX's list envelope: the page beside the data under
				// meta, and the total also as a header.
				extra = map[string]any{"meta": meta}
				w.Header().Set("X-Total-Count", strconv.Itoa(total))
			}
			out := newListWriter(w, f, extra)
			for len(page) > 0 {
				n, size := 1, page[0].Size
				for n < len(page) && size+page[n].Size <= pagePart {
					size += page[n].Size
					n++
				}
				ids := make([]string, n)
				for i, e := range page[:n] {
					ids[i] = e.ID
				}
				docs, err := s.opts.Store.ByID(ctx, team, kind, ids)
				if err != nil {
					if !out.begun() {
						s.answer(w, r, f, failed(kind, err))
						return
					}
					// The answer has begun: cutting the connection tells the
					// client it is incomplete.
					s.opts.Logger.Error("observability API list failed", zap.Error(err))
					panic(http.ErrAbortHandler)
				}
				byID := make(map[string][]byte, len(docs))
				for _, d := range docs {
					byID[d.ID] = d.Doc
				}
				for _, id := range ids {
					if doc, ok := byID[id]; ok {
						pub, err := public(team, kind, doc)
						if err != nil {
							// One corrupt document must not end the list:
							// it is left out and said.
							s.opts.Logger.Error("observability API: a stored document is corrupt", zap.String("kind", kind), zap.String("id", id), zap.Error(err))
							continue
						}
						if pub == nil {
							continue
						}
						if out.add(pub) != nil {
							return // the client went away
						}
					}
				}
				page = page[n:]
			}
			out.end()
		}}
	}
}

// remove deletes a resource, with the rules of the alerts bound to it
// (alerting.Unbind): a dashboard's or saved search's alerts go with it; a
// webhook an alert delivers to is refused.
func (s *Server) remove(kind string) endpoint {
	return func(r *http.Request) result {
		ctx, team, id := r.Context(), teamOf(r.Context()), r.PathValue("id")
		if _, err := s.opts.Store.Get(ctx, team, kind, id); err != nil {
			return failed(kind, badID(kind, id, err))
		}
		if kind == kindConn {
			// A source reads through it: deleting it would leave the
			// source naming nothing.
			names, err := s.connectionInUse(ctx, team, id)
			if err != nil {
				return failed(kind, err)
			}
			if len(names) > 0 {
				return fail(http.StatusConflict, fmt.Sprintf("the connection is used by source(s) %s; delete them or point them at another connection first", strings.Join(names, ", ")))
			}
		}
		if err := alerting.Unbind(ctx, s.opts.Store, team, kind, id); err != nil {
			if inUse := (*alerting.InUseError)(nil); errors.As(err, &inUse) {
				return fail(http.StatusConflict, inUse.Error())
			}
			return failed(kind, err)
		}
		if err := s.opts.Store.Delete(ctx, team, kind, id); err != nil {
			return failed(kind, err)
		}
		if formOf(ctx) == selfHosted {
			// HyperDX answers a delete with an empty object, no envelope.
			return result{data: map[string]any{}, raw: true}
		}
		return ok(http.StatusOK, map[string]any{"id": id, "deleted": true}, nil)
	}
}

// badID answers HyperDX's 400 for a source or connection id that is none
// this API could have made; one it finds is found whatever its form (the
// default sources' ids are words).
func badID(kind, id string, err error) error {
	if (kind == kindSource || kind == kindConn) && errors.Is(err, store.ErrNotFound) && !objectID(id) {
		return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf("invalid %s id %q", kind, id)}
	}
	return err
}
