package webuiextension

import (
	"errors"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/confmap"

	"github.com/otelhouse/otelhouse/internal/runtime/httpconfig"
)

// Config configures the web UI's server and its sessions. The server's
// settings (endpoint, TLS, …; with TLS the session cookie is Secure) sit
// beside the UI's own, decoded as the other components do (httpconfig),
// so a mistyped key is refused rather than ignored.
type Config struct {
	confighttp.ServerConfig `mapstructure:",squash"`
	Settings                `mapstructure:",squash"`
}

// Settings are the UI's own settings.
type Settings struct {
	// API names the observability_api extension whose state (store, keys,
	// sources, queries) the UI shares.
	API component.ID `mapstructure:"api"`
	// SessionLifetime ends a session this long after sign-in;
	// SessionIdleTimeout ends it after this long without a request (not
	// idle_timeout: that is the HTTP server's keep-alive setting).
	SessionLifetime    time.Duration `mapstructure:"session_lifetime"`
	SessionIdleTimeout time.Duration `mapstructure:"session_idle_timeout"`
	// InvitationLifetime is how long an invitation link works.
	InvitationLifetime time.Duration `mapstructure:"invitation_lifetime"`
	// AllowedHosts are names, besides the defaults, that requests may
	// address the UI by (Host, and Origin on writes): "ui.example.com",
	// "*.example.com", or "*" for any (a proxy in front that checks Host
	// itself). The defaults are localhost and its subdomains, this
	// machine's host name and the endpoint's host; IP addresses are always
	// accepted. An entry may list several names separated by commas.
	AllowedHosts []string `mapstructure:"allowed_hosts"`
	// AssetsDir serves the frontend from a folder instead of the build
	// embedded in the binary (frontend development: point it at web/dist).
	AssetsDir string `mapstructure:"assets_dir"`
}

// Unmarshal decodes the server and UI settings (see httpconfig).
func (c *Config) Unmarshal(conf *confmap.Conf) error {
	return httpconfig.Unmarshal(conf, &c.ServerConfig, &c.Settings)
}

// Validate checks the configuration before the extension is built.
func (c *Config) Validate() error {
	var errs []error
	if c.SessionLifetime <= 0 || c.SessionIdleTimeout <= 0 || c.InvitationLifetime <= 0 {
		errs = append(errs, errors.New("session_lifetime, session_idle_timeout and invitation_lifetime must be positive"))
	}
	if c.SessionIdleTimeout > c.SessionLifetime {
		errs = append(errs, errors.New("session_idle_timeout may not exceed session_lifetime"))
	}
	return errors.Join(errs...)
}
