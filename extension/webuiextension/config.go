package webuiextension

import (
	"errors"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
)

// Config configures the web UI's server and its sessions.
type Config struct {
	// ServerConfig is the UI's HTTP server (endpoint, TLS, …); with TLS
	// the session cookie is Secure.
	ServerConfig confighttp.ServerConfig `mapstructure:",squash"`
	// API names the observability_api extension whose state (store, keys,
	// sources, queries) the UI shares.
	API component.ID `mapstructure:"api"`
	// SessionLifetime ends a session this long after sign-in; IdleTimeout
	// ends it after this long without a request.
	SessionLifetime time.Duration `mapstructure:"session_lifetime"`
	IdleTimeout     time.Duration `mapstructure:"idle_timeout"`
	// InvitationLifetime is how long an invitation link works.
	InvitationLifetime time.Duration `mapstructure:"invitation_lifetime"`
	// AssetsDir serves the frontend from a folder instead of the build
	// embedded in the binary (frontend development: point it at web/dist).
	AssetsDir string `mapstructure:"assets_dir"`
}

func (c *Config) Validate() error {
	var errs []error
	if c.SessionLifetime <= 0 || c.IdleTimeout <= 0 || c.InvitationLifetime <= 0 {
		errs = append(errs, errors.New("session_lifetime, idle_timeout and invitation_lifetime must be positive"))
	}
	if c.IdleTimeout > c.SessionLifetime {
		errs = append(errs, errors.New("idle_timeout may not exceed session_lifetime"))
	}
	return errors.Join(errs...)
}
