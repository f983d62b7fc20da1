package embeddedclickhouseextension

import (
	"bytes"
	_ "embed"
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
)

// engineConfigFile and engineUsersFile are written into the data
// directory on every start, so what the engine runs with can be read next
// to its data.
const (
	engineConfigFile = "otelhouse-engine.xml"
	engineUsersFile  = "otelhouse-engine-users.xml"
)

// engineUsers is the engine's user: its grants and setting constraints.
// clickhouse-local lets that user read and write any file the process
// can; it reads users only from a file the configuration names.
//
//go:embed engineusers.xml
var engineUsers []byte

// EngineArgs writes the engine's configuration (its user and s's server
// and merge_tree entries) into s.DataDir and returns the options that
// make the engine read it. Everything that opens the engine uses them, the
// tests' engine too.
func EngineArgs(s *Settings) ([]string, error) {
	users := filepath.Join(s.DataDir, engineUsersFile)
	if err := os.WriteFile(users, engineUsers, 0o600); err != nil {
		return nil, fmt.Errorf("embedded ClickHouse users: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("<clickhouse>\n")
	// clickhouse-local resolves a relative users_config against its
	// working directory, not the configuration's.
	b.WriteString("  <users_config>")
	_ = xml.EscapeText(&b, []byte(users))
	b.WriteString("</users_config>\n")
	writeElements(&b, "  ", s.Server)
	if len(s.MergeTree) > 0 {
		b.WriteString("  <merge_tree>\n")
		writeElements(&b, "    ", s.MergeTree)
		b.WriteString("  </merge_tree>\n")
	}
	b.WriteString("</clickhouse>\n")
	path := filepath.Join(s.DataDir, engineConfigFile)
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return nil, fmt.Errorf("embedded ClickHouse configuration: %w", err)
	}
	return []string{"--config-file=" + path}, nil
}

// writeElements writes settings as elements, in name order.
func writeElements(b *bytes.Buffer, indent string, settings map[string]any) {
	for _, name := range slices.Sorted(maps.Keys(settings)) {
		// Names are checked by Validate; values are text to the engine.
		fmt.Fprintf(b, "%s<%s>", indent, name)
		_ = xml.EscapeText(b, fmt.Append(nil, settings[name]))
		fmt.Fprintf(b, "</%s>\n", name)
	}
}

// checkEngineConfig makes a bad server or merge_tree entry fail the
// start: the engine ignores an unknown server setting, and reports a bad
// merge_tree one only when a table is next touched.
func checkEngineConfig(c *chdb.Conn, s *Settings) error {
	if len(s.Server) > 0 {
		res, err := c.QueryParams("SELECT arrayStringConcat(arrayFilter(n -> n NOT IN (SELECT name FROM system.server_settings), {names:Array(String)}), ', ')",
			"TSV", map[string]string{"names": arrayLiteral(slices.Sorted(maps.Keys(s.Server)))})
		if err != nil {
			return fmt.Errorf("embedded ClickHouse server settings: %w", err)
		}
		if unknown := strings.TrimSpace(string(res.Data)); unknown != "" {
			return fmt.Errorf("embedded ClickHouse server settings: unknown setting %s (see system.server_settings)", unknown)
		}
	}
	if len(s.MergeTree) > 0 {
		if _, err := c.Query("SELECT count() FROM system.merge_tree_settings", "TSV"); err != nil {
			return fmt.Errorf("embedded ClickHouse merge_tree settings: %w", err)
		}
	}
	return nil
}

// arrayLiteral is names as the engine reads an Array(String) parameter;
// setting names need no escaping.
func arrayLiteral(names []string) string {
	return "['" + strings.Join(names, "','") + "']"
}
