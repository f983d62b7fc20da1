package api

import (
	"context"
	"crypto/rand"
	"database/sql"
	_ "embed"
	"encoding/hex"
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
	"golang.org/x/time/rate"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
	"github.com/otelhouse/otelhouse/internal/accounts"
	"github.com/otelhouse/otelhouse/internal/dashboards"
	"github.com/otelhouse/otelhouse/internal/keys"
	"github.com/otelhouse/otelhouse/internal/sources"
	"github.com/otelhouse/otelhouse/internal/store"
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

// pagePart bounds the documents read from the engine at once while a list
// answer streams out (a page of 500 dashboards may hold 500 MiB).
const pagePart = 4 << 20

// ManagedKey is a managed-API key pair from the configuration.
type ManagedKey struct{ ID, Secret, TeamID string }

// Options configure the API.
type Options struct {
	Store          *store.Store
	Database       string // where the telemetry tables are (default sources)
	OrganizationID string // managed form: the path must name these
	ServiceID      string
	ManagedKeys    []ManagedKey
	RateLimit      RateLimit
	// Tenancy decides which databases each team's sources read (chart
	// and search queries run with the API's credentials); nil reads none.
	Tenancy *sources.Tenancy
	// DB runs chart queries; QueryTimeout bounds each (generous default).
	DB           *sql.DB
	QueryTimeout time.Duration
	// AlertWorkers bounds the alerts evaluated (and delivered) at once;
	// 0 means 8.
	AlertWorkers int
	// AlertClaimSettle is the wait between claiming an alert's window and
	// reading who won (store.ClaimWindow), so replicas fire each once.
	AlertClaimSettle time.Duration
	TeamLimits       TeamLimits
	// Sealer seals the keys rotation makes, so the UI can show them.
	Sealer *keys.Sealer
	// OnAuthFailure hears of every refused key (counted and logged by the
	// extension); nil ignores them.
	OnAuthFailure func(r *http.Request, reason string)
	// AllowPrivateWebhooks stores webhooks whose URL is a loopback,
	// private or link-local address (on-prem receivers, tests).
	AllowPrivateWebhooks bool
	Logger               *zap.Logger
}

// Server is the REST API's handler.
type Server struct {
	opts   Options
	mux    *http.ServeMux
	limits *limiters
	// scheduler evaluates the alerts this API stores.
	scheduler *alerting.Scheduler
	// creating serialises a team's creates of a kind (TeamLimits).
	creating keyedLocks
	// personal answers the Bearer keys of the self-hosted form.
	personal *store.KeyCache
	sources  *sources.Catalog
	accounts *accounts.Service // key rotation, shared with the UI's
	// replica names this server among those sharing its state: alert
	// windows are claimed under it.
	replica string
}

// New builds the handler with every route of both forms.
func New(opts Options) *Server {
	if opts.AlertWorkers <= 0 {
		opts.AlertWorkers = 8
	}
	s := &Server{opts: opts, mux: http.NewServeMux(), limits: &limiters{cfg: opts.RateLimit, m: map[string]*rate.Limiter{}},
		personal: opts.Store.KeyCache(keys.Personal),
		sources:  &sources.Catalog{Store: opts.Store, Tenancy: opts.Tenancy}, accounts: accounts.New(accounts.Options{Store: opts.Store, Sealer: opts.Sealer}),
		replica: newID()}
	s.scheduler = alerting.New(alerting.Options{Store: opts.Store, Sources: s.sources, DB: opts.DB, QueryTimeout: s.queryTimeout(),
		Workers: opts.AlertWorkers, ClaimSettle: opts.AlertClaimSettle, Replica: s.replica, Logger: opts.Logger, Sealer: opts.Sealer})
	self := "/api/v2"
	mgd := "/v1/organizations/{org}/services/{svc}/observability"
	for _, r := range []struct {
		path     string
		kind     string
		managed  bool // also served in the managed form
		writable bool // create/update/delete served (else list only)
	}{
		{"dashboards", kindDashboard, true, true},
		{"alerts", kindAlert, true, true},
		{"sources", kindSource, true, false},
		{"webhooks", kindWebhook, false, true},
		{"saved-searches", kindSaved, false, true},
	} {
		forms := []struct {
			f      form
			prefix string
		}{{selfHosted, self}}
		if r.managed {
			forms = append(forms, struct {
				f      form
				prefix string
			}{managed, mgd})
		}
		for _, fm := range forms {
			base := fm.prefix + "/" + r.path
			s.mux.Handle("GET "+base, s.guard(fm.f, s.list(r.kind)))
			if r.writable || (r.kind == kindSource && fm.f == selfHosted) {
				s.mux.Handle("POST "+base, s.guard(fm.f, s.create(r.kind)))
				s.mux.Handle("GET "+base+"/{id}", s.guard(fm.f, s.get(r.kind)))
				s.mux.Handle("PUT "+base+"/{id}", s.guard(fm.f, s.update(r.kind)))
				s.mux.Handle("DELETE "+base+"/{id}", s.guard(fm.f, s.remove(r.kind)))
			}
		}
	}
	s.mux.Handle("POST "+self+"/charts/series", s.guard(selfHosted, s.chartSeriesHandler))
	s.mux.Handle("GET "+self+"/alerts/{id}/history", s.guard(selfHosted, s.historyHandler))
	s.mux.Handle("POST "+self+"/search", s.guard(selfHosted, s.searchHandler))
	s.mux.Handle("POST "+self+"/search/facets", s.guard(selfHosted, s.facetsHandler))
	s.mux.Handle("GET "+self+"/search/fields", s.guard(selfHosted, s.fieldsHandler))
	s.mux.Handle("GET "+self+"/search/values", s.guard(selfHosted, s.valuesHandler))
	s.mux.Handle("POST "+self+"/keys/personal/rotate", s.guard(selfHosted, s.rotatePersonal))
	s.mux.Handle("POST "+self+"/keys/ingestion/rotate", s.guard(selfHosted, s.rotateIngestion))
	s.mux.Handle("DELETE "+self+"/keys/ingestion/{id}", s.guard(selfHosted, s.revokeIngestion))
	s.mux.Handle("GET "+self, s.guard(selfHosted, s.whoami))
	s.mux.Handle("GET "+self+"/{$}", s.guard(selfHosted, s.whoami))
	s.mux.Handle("GET "+self+"/team", s.guard(selfHosted, s.team))
	s.mux.Handle("GET "+self+"/team/members", s.guard(selfHosted, s.teamMembers))
	s.importRoutes(self)
	s.mux.HandleFunc("GET /openapi.yaml", serveOpenAPI)
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// OpenAPI is the contract of both forms; it is served at /openapi.yaml,
// unauthenticated, and the tests check real responses against it.
//
//go:embed openapi.yaml
var OpenAPI []byte

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(OpenAPI)
}

type teamKey struct{}

// formKey holds the form a request came in: paging and list envelopes
// differ between them.
type formKey struct{}

func formOf(ctx context.Context) form { f, _ := ctx.Value(formKey{}).(form); return f }

// callerKey holds the personal key a self-hosted request came with.
type callerKey struct{}

func teamOf(ctx context.Context) string { return ctx.Value(teamKey{}).(string) }

// guard authenticates the caller for the form and checks the managed
// path's organization and service.
func (s *Server) guard(f form, next endpoint) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var team, identity string
		switch f {
		case managed:
			if r.PathValue("org") != s.opts.OrganizationID || r.PathValue("svc") != s.opts.ServiceID || s.opts.OrganizationID == "" {
				writeFail(w, f, http.StatusNotFound, "organization or service not found")
				return
			}
			id, secret, ok := r.BasicAuth()
			for _, k := range s.opts.ManagedKeys {
				if ok && keys.Equal(id, k.ID) && keys.Equal(secret, k.Secret) {
					team, identity = k.TeamID, "managed:"+k.ID
				}
			}
		default:
			const prefix = "Bearer "
			h := r.Header.Get("Authorization")
			if len(h) > len(prefix) && h[:len(prefix)] == prefix {
				k, ok, err := s.personal.Lookup(r.Context(), keys.Hash(h[len(prefix):]))
				if err != nil {
					s.answer(w, r, f, failed("", err))
					return
				}
				if ok {
					team, identity = k.TeamID, "personal:"+k.Hash
					r = r.WithContext(context.WithValue(r.Context(), callerKey{}, k))
				}
			}
		}
		if team == "" {
			if s.opts.OnAuthFailure != nil {
				s.opts.OnAuthFailure(r, "missing or invalid API key")
			}
			writeFail(w, f, http.StatusUnauthorized, "missing or invalid API key")
			return
		}
		if !s.limits.allow(w, f, identity) {
			return
		}
		ctx := context.WithValue(context.WithValue(r.Context(), teamKey{}, team), formKey{}, f)
		s.answer(w, r, f, next(r.WithContext(ctx)))
	})
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

func newID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// public is what a stored document looks like to callers: webhook headers
// are write-only; a dashboard stored in an older shape answers in today's.
// nil with no error leaves a document out of a list; a document that is
// not JSON is an error, never a null.
func public(team, kind string, doc []byte) (any, error) {
	if kind == kindSaved {
		return publicSavedSearch(team, doc)
	}
	if kind == kindDashboard {
		if d, err := dashboards.Decode(doc); err == nil {
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
			return failed(kind, err)
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
			if err := s.dropOrphanAlerts(r.Context(), teamOf(r.Context()), d); err != nil {
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
	pub, err := public(teamOf(r.Context()), kind, b)
	if err != nil {
		return failed(kind, err)
	}
	return ok(status, pub, nil)
}

func (s *Server) get(kind string) endpoint {
	return func(r *http.Request) result {
		res, err := s.opts.Store.Get(r.Context(), teamOf(r.Context()), kind, r.PathValue("id"))
		if err != nil {
			return failed(kind, err)
		}
		pub, err := public(teamOf(r.Context()), kind, res.Doc)
		if err != nil {
			return failed(kind, err)
		}
		return ok(http.StatusOK, pub, nil)
	}
}

func (s *Server) list(kind string) endpoint {
	return func(r *http.Request) result {
		f := formOf(r.Context())
		def, most := 1000, 1000 // HyperDX's default and maximum page
		if f == managed {
			def, most = 50, 500 // the managed specification's
		}
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
			if f == selfHosted {
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

// remove deletes a resource. Deleting a dashboard or a saved search
// deletes the alerts bound to it (they could never be evaluated again), as
// does removing a tile in
// an update; deleting a webhook is refused while an alert delivers to it.
func (s *Server) remove(kind string) endpoint {
	return func(r *http.Request) result {
		ctx, team, id := r.Context(), teamOf(r.Context()), r.PathValue("id")
		if _, err := s.opts.Store.Get(ctx, team, kind, id); err != nil {
			return failed(kind, err)
		}
		alerts, err := s.alerts(ctx, team)
		if err != nil {
			return failed(kind, err)
		}
		for _, a := range alerts {
			switch {
			case kind == kindDashboard && a.DashboardID == id, kind == kindSaved && a.SavedSearchID == id:
				if err := s.opts.Store.Delete(ctx, team, kindAlert, a.ID); err != nil {
					return failed(kind, err)
				}
			case kind == kindWebhook && a.Channel.WebhookID == id:
				return fail(http.StatusConflict, "alerts still reference this webhook (alert "+a.ID+"); delete or repoint them first")
			}
		}
		if err := s.opts.Store.Delete(ctx, team, kind, id); err != nil {
			return failed(kind, err)
		}
		return ok(http.StatusOK, map[string]any{"id": id, "deleted": true}, nil)
	}
}

// dropOrphanAlerts deletes the alerts of d whose tile d no longer has.
func (s *Server) dropOrphanAlerts(ctx context.Context, team string, d *Dashboard) error {
	tiles := map[string]bool{}
	for _, t := range d.Tiles {
		tiles[t.ID] = true
	}
	alerts, err := s.alerts(ctx, team)
	if err != nil {
		return err
	}
	for _, a := range alerts {
		if a.DashboardID == d.ID && !tiles[a.TileID] {
			if err := s.opts.Store.Delete(ctx, team, kindAlert, a.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Server) alerts(ctx context.Context, team string) ([]Alert, error) {
	items, err := s.opts.Store.OfTeam(ctx, team, kindAlert)
	if err != nil {
		return nil, err
	}
	out := make([]Alert, 0, len(items))
	for _, it := range items {
		var a Alert
		if json.Unmarshal(it.Doc, &a) == nil {
			out = append(out, a)
		}
	}
	return out, nil
}

// paging reads limit (def when absent, at most most) and offset.
func paging(r *http.Request, def, most int) (limit, offset int, err error) {
	limit, offset = def, 0
	if v := r.URL.Query().Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > most {
			return 0, 0, fmt.Errorf("limit must be an integer from 1 to %d", most)
		}
	}
	if v := r.URL.Query().Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 {
			return 0, 0, errors.New("offset must be a non-negative integer")
		}
	}
	return limit, offset, nil
}

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
