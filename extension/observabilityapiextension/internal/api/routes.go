package api

import (
	_ "embed"
	"net/http"
	"strings"
)

// routes registers the API's one route table: every path of every form,
// each behind the guard of its form (the OpenAPI document excepted). The
// web UI's session door (Session) serves the self-hosted ones.
func (s *Server) routes() {
	self := "/api/v2"
	prefix := map[form]string{
		selfHosted: self,
		managed:    "/v1/organizations/{org}/services/{svc}/observability",
		clickstack: "/v1/organizations/{org}/services/{svc}/clickstack",
	}
	// What each form serves of a resource, indexed by form: the managed
	// specification has no webhooks or saved searches, and both cloud
	// forms list sources only, as ClickHouse Cloud does.
	const (
		absent = iota
		listOnly
		readWrite
	)
	for _, r := range []struct {
		path  string
		kind  string
		serve [3]int
	}{
		{"dashboards", kindDashboard, [3]int{readWrite, readWrite, readWrite}},
		{"alerts", kindAlert, [3]int{readWrite, readWrite, readWrite}},
		{"sources", kindSource, [3]int{readWrite, listOnly, listOnly}},
		{"webhooks", kindWebhook, [3]int{readWrite, absent, readWrite}},
		{"saved-searches", kindSaved, [3]int{readWrite, absent, readWrite}},
		{"connections", kindConn, [3]int{readWrite, absent, absent}},
	} {
		for _, f := range []form{selfHosted, managed, clickstack} {
			if r.serve[f] == absent {
				continue
			}
			base := prefix[f] + "/" + r.path
			s.route(f, "GET "+base, s.list(r.kind))
			if r.serve[f] == readWrite {
				s.route(f, "POST "+base, s.create(r.kind))
				s.route(f, "GET "+base+"/{id}", s.get(r.kind))
				s.route(f, "PUT "+base+"/{id}", s.update(r.kind))
				s.route(f, "DELETE "+base+"/{id}", s.remove(r.kind))
			}
		}
	}
	// The self-hosted form's other routes, under /api/v2.
	for _, rt := range []struct {
		pattern string
		ep      endpoint
	}{
		{"POST /charts/series", s.chartSeriesHandler},
		{"POST /charts/heatmap", s.heatmapHandler},
		{"GET /alerts/{id}/history", s.historyHandler},
		{"POST /alerts/{id}/silenced", s.silenceAlert},
		{"DELETE /alerts/{id}/silenced", s.unsilenceAlert},
		{"POST /webhooks/{id}/test", s.webhookTest},
		{"POST /search", s.searchHandler},
		{"POST /search/facets", s.facetsHandler},
		{"POST /search/traces", s.traceListHandler},
		{"GET /search/fields", s.fieldsHandler},
		{"GET /search/values", s.valuesHandler},
		{"GET /sources/{id}/columns", s.columnsHandler},
		{"GET /traces/{id}", s.traceHandler},
		{"GET /services", s.servicesHandler},
		{"GET /metrics", s.metricsHandler},
		{"GET /metrics/tags", s.metricTagsHandler},
		{"GET /keys", s.keysHandler},
		{"POST /keys/personal/rotate", s.rotatePersonal},
		{"POST /keys/ingestion/rotate", s.rotateIngestion},
		{"DELETE /keys/ingestion/{id}", s.revokeIngestion},
		{"GET ", s.whoami},
		{"GET /{$}", s.whoami},
		{"GET /team", s.team},
		{"GET /team/members", s.teamMembers},
		{"DELETE /team/member/{id}", s.removeMember},
		{"GET /team/invitations", s.invitations},
		{"POST /team/invitation", s.invite},
		{"DELETE /team/invitation/{id}", s.revokeInvitation},
		{"POST /dashboards/import", s.importDashboard},
		{"POST /dashboards/validate", s.validateDashboardV2},
		{"POST /alerts/import", s.importMonitor},
		{"POST /saved-searches/import", s.importSavedView},
	} {
		method, path, _ := strings.Cut(rt.pattern, " ")
		s.route(selfHosted, method+" "+self+path, rt.ep)
	}
	// ClickHouse Cloud serves validate beside its dashboards.
	s.route(clickstack, "POST "+prefix[clickstack]+"/dashboards/validate", s.validateDashboard)
	s.mux.HandleFunc("GET /openapi.yaml", serveOpenAPI)
}

// route serves an endpoint in a form, behind that form's guard. The
// self-hosted routes are kept too: the UI's session door serves the same
// table.
func (s *Server) route(f form, pattern string, ep endpoint) {
	s.mux.Handle(pattern, s.guard(f, ep))
	s.patterns = append(s.patterns, pattern)
	if f == selfHosted {
		s.selfRoutes = append(s.selfRoutes, selfRoute{pattern, ep})
	}
}

// selfRoute is one route of the self-hosted form.
type selfRoute struct {
	pattern string
	ep      endpoint
}

// OpenAPI is the contract of every form; it is served at /openapi.yaml,
// unauthenticated, and the tests check real responses against it.
//
//go:embed openapi.yaml
var OpenAPI []byte

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(OpenAPI)
}
