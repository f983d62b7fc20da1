package storageswitchconverter

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// PasswordFile is the embedded engine's generated password, beside its
// data folder (…/clickhouse-password next to …/clickhouse), 0600.
const PasswordFile = "clickhouse-password"

// embeddedUser is the user name the generated password goes with.
const embeddedUser = "default"

// passwordPath is where the password of an engine with dataDir lives.
func passwordPath(dataDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(dataDir)), PasswordFile)
}

// loadOrMakePassword reads the engine's password, or makes a new one when
// there is none yet. It writes nothing: the engine's Start keeps a new one
// in the file (password_file), so resolving the configuration (`otelcol
// validate`) leaves the disk as it was.
func loadOrMakePassword(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil { //nolint:gosec // the data directory's password file, a path from the configuration
		if pw := strings.TrimSpace(string(b)); pw != "" {
			return pw, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("reading the embedded ClickHouse password: %w", err)
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b), nil
}

func loopback(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return false
	}
	if strings.EqualFold(u.Hostname(), "localhost") {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}

// protect gives the one embedded engine a generated password when none is
// configured (CLICKHOUSE_USER/CLICKHOUSE_PASSWORD unset), and gives it to
// what talks to the engine on loopback with no password of its own: every
// clickhouse exporter and the API's state connection. So no configuration
// is needed, and a neighbour process on the host cannot read 8123. A
// converter chooses it because the exporter's configuration is fixed
// before any extension starts; the engine's Start writes it down.
func protect(conf *confmap.Conf, id string) (map[string]any, error) {
	ext := "extensions::" + id
	if user, _ := conf.Get(ext + "::username").(string); user != "" {
		return nil, nil
	}
	dataDir, _ := conf.Get(ext + "::data_dir").(string)
	if dataDir == "" {
		return nil, nil // the extension's own validation says what is missing
	}
	path := passwordPath(dataDir)
	pw, err := loadOrMakePassword(path)
	if err != nil {
		return nil, err
	}
	update := map[string]any{ext + "::username": embeddedUser, ext + "::password": pw, ext + "::password_file": path}
	client := func(prefix string) {
		endpoint, _ := conf.Get(prefix + "::endpoint").(string)
		if p, _ := conf.Get(prefix + "::password").(string); p == "" && loopback(endpoint) {
			update[prefix+"::username"] = embeddedUser
			update[prefix+"::password"] = pw
		}
	}
	exporters, _ := conf.Get("exporters").(map[string]any)
	for eid := range exporters {
		if typ, _, _ := strings.Cut(eid, "/"); typ == "clickhouse" {
			client("exporters::" + eid)
		}
	}
	if conf.IsSet("extensions::observability_api::clickhouse") {
		client("extensions::observability_api::clickhouse")
	}
	return update, nil
}
