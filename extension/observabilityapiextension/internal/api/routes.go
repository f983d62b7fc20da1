package api

import (
	_ "embed"
	"net/http"
)

// routes registers the API's one route table: every path of both forms,
// each behind the guard of its form (the OpenAPI document excepted). The
// web UI's session door (Session) serves a subset of these handlers.
func (s *Server) routes() {
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
	s.mux.Handle("POST "+self+"/dashboards/import", s.guard(selfHosted, s.importDashboard))
	s.mux.Handle("POST "+self+"/alerts/import", s.guard(selfHosted, s.importMonitor))
	s.mux.Handle("POST "+self+"/saved-searches/import", s.guard(selfHosted, s.importSavedView))
	s.mux.HandleFunc("GET /openapi.yaml", serveOpenAPI)
}

// OpenAPI is the contract of both forms; it is served at /openapi.yaml,
// unauthenticated, and the tests check real responses against it.
//
//go:embed openapi.yaml
var OpenAPI []byte

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(OpenAPI)
}
