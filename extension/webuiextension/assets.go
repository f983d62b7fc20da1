package webuiextension

import (
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
)

// assets serves the built frontend: the files Vite wrote, each beside its
// .br and .gz made at build time, sent precompressed to a browser that
// takes them. Hashed files under /assets/ are cached for good; any other
// path that is not a file is the app's own route (/search, /traces/…),
// answered with index.html.
type assets struct {
	fsys  fs.FS
	built bool
}

// loadAssets picks the folder given (development), else the build
// embedded in the binary (`make build`), else a page saying how to build
// the frontend.
func loadAssets(dir string) (*assets, error) {
	if dir != "" {
		if _, err := os.Stat(path.Join(dir, "index.html")); err != nil {
			return nil, err
		}
		return &assets{fsys: os.DirFS(dir), built: true}, nil
	}
	return &assets{fsys: embedded, built: embeddedBuilt}, nil
}

func (a *assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
	if name == "" || !fs.ValidPath(name) || strings.HasSuffix(name, ".br") || strings.HasSuffix(name, ".gz") {
		name = "index.html"
	}
	if st, err := fs.Stat(a.fsys, name); err != nil || st.IsDir() {
		if strings.HasPrefix(name, "assets/") {
			http.NotFound(w, r) // a missing script must fail, not turn into a page
			return
		}
		name = "index.html"
	}
	h := w.Header()
	if strings.HasPrefix(name, "assets/") {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h.Set("Content-Type", ctype)
	h.Add("Vary", "Accept-Encoding")
	accept := r.Header.Get("Accept-Encoding")
	for _, enc := range []struct{ token, ext string }{{"br", ".br"}, {"gzip", ".gz"}} {
		if !acceptsEncoding(accept, enc.token) {
			continue
		}
		if f, err := a.fsys.Open(name + enc.ext); err == nil {
			defer func() { _ = f.Close() }()
			h.Set("Content-Encoding", enc.token)
			if st, err := f.Stat(); err == nil {
				h.Set("Content-Length", itoa(st.Size()))
			}
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodGet {
				_, _ = io.Copy(w, f)
			}
			return
		}
	}
	f, err := a.fsys.Open(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		h.Set("Content-Length", itoa(st.Size()))
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = io.Copy(w, f)
	}
}

// acceptsEncoding reads an Accept-Encoding list (a q of 0 refuses).
func acceptsEncoding(header, token string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), token) {
			continue
		}
		if q, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			v, err := strconv.ParseFloat(q, 64)
			return err == nil && v > 0
		}
		return true
	}
	return false
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
