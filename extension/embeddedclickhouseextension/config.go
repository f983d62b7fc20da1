package embeddedclickhouseextension

import (
	"errors"
	"fmt"

	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/confmap"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chhttp"
	"github.com/otelhouse/otelhouse/internal/runtime/httpconfig"
)

// Config configures the embedded engine and its HTTP interface.
type Config struct {
	// The ClickHouse HTTP interface; loopback by default.
	confighttp.ServerConfig `mapstructure:",squash"`
	Settings                `mapstructure:",squash"`
}

// Settings are the engine's settings beside the HTTP server's.
type Settings struct {
	// LibraryPath is libchdb.so (make fetches it into .cache/chdb).
	LibraryPath string `mapstructure:"library_path"`
	// DataDir holds the engine's data; it survives restarts. One process
	// at a time may use it.
	DataDir string `mapstructure:"data_dir"`
	// Sessions is how many statements run at once.
	Sessions int `mapstructure:"sessions"`
	// Username and Password protect the HTTP interface (Basic auth, the
	// X-ClickHouse-User/Key headers or user/password parameters); an empty
	// username leaves it open, which is only sensible on loopback.
	Username string              `mapstructure:"username"`
	Password configopaque.String `mapstructure:"password"`
	// PasswordFile, when set, is where Start keeps Password (0600) if the
	// file does not exist yet, so tools on the host can read it. The
	// distribution's storage switch sets it with a generated password.
	PasswordFile string `mapstructure:"password_file"`
	// Server holds the engine's own settings (system.server_settings), as
	// a server's config.xml does.
	Server map[string]any `mapstructure:"server"`
	// MergeTree holds defaults for every MergeTree table that does not set
	// its own (system.merge_tree_settings), such as the exporter's tables.
	MergeTree map[string]any `mapstructure:"merge_tree"`
	// Profile holds settings every statement starts with (system.settings),
	// as a server's default profile; a request's URL parameters override
	// them for that request.
	Profile map[string]any `mapstructure:"profile"`
}

// EngineProfile is the profile as the engine's SET takes it.
func (s *Settings) EngineProfile() map[string]string {
	out := make(map[string]string, len(s.Profile))
	for name, v := range s.Profile {
		out[name] = fmt.Sprint(v)
	}
	return out
}

// Unmarshal decodes the server and engine settings (see httpconfig).
func (c *Config) Unmarshal(conf *confmap.Conf) error {
	return httpconfig.Unmarshal(conf, &c.ServerConfig, &c.Settings)
}

// Validate checks the required settings and that the engine's settings
// are plain names and values.
func (c *Config) Validate() error {
	var errs []error
	if c.LibraryPath == "" {
		errs = append(errs, errors.New("library_path is required (run `make libchdb`)"))
	}
	if c.DataDir == "" {
		errs = append(errs, errors.New("data_dir is required"))
	}
	if c.Sessions < 1 || c.Sessions > 64 {
		errs = append(errs, fmt.Errorf("sessions must be between 1 and 64, got %d", c.Sessions))
	}
	if c.Username == "" && c.Password != "" {
		errs = append(errs, errors.New("password is set without a username"))
	}
	if c.PasswordFile != "" && c.Password == "" {
		errs = append(errs, errors.New("password_file is set without a password"))
	}
	errs = append(errs, checkSettings("server", c.Server)...)
	for _, name := range confining {
		if _, ok := c.Server[name]; ok {
			errs = append(errs, fmt.Errorf("server: %s is otelhouse's own: it confines what the engine's user reaches (docs/security.md)", name))
		}
	}
	errs = append(errs, checkSettings("merge_tree", c.MergeTree)...)
	errs = append(errs, checkSettings("profile", c.Profile)...)
	return errors.Join(errs...)
}

// confining are the server entries through which the engine's user could
// be given files, disks or another users file.
var confining = []string{
	"users_config", "user_directories", "user_scripts_path", "user_files_path",
	"custom_local_disks_base_directory", "user_defined_executable_functions_config",
}

// checkSettings keeps names that the engine's configuration and SET can
// take as they are, and values that are plain text to the engine.
func checkSettings(section string, settings map[string]any) []error {
	var errs []error
	for name, v := range settings {
		if !chhttp.IsSettingName(name) {
			errs = append(errs, fmt.Errorf("%s: %q is not a setting name", section, name))
		}
		switch v.(type) {
		case string, bool, int, int64, uint64, float64:
		default:
			errs = append(errs, fmt.Errorf("%s: %s must be a number, string or bool", section, name))
		}
	}
	return errs
}
