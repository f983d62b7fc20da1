package embeddedclickhouseextension

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
)

// engineConfigFile is written into the data directory on every start, so
// what the engine runs with can be read next to its data.
const engineConfigFile = "otelhouse-engine.xml"

// engineArgs writes the engine's configuration file and returns the
// options that make the engine read it (none when there is nothing to set).
func engineArgs(s *Settings) ([]string, error) {
	if len(s.Server) == 0 && len(s.MergeTree) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	b.WriteString("<clickhouse>\n")
	writeElements(&b, "  ", s.Server)
	if len(s.MergeTree) > 0 {
		b.WriteString("  <merge_tree>\n")
		writeElements(&b, "    ", s.MergeTree)
		b.WriteString("  </merge_tree>\n")
	}
	b.WriteString("</clickhouse>\n")
	path := filepath.Join(s.DataDir, engineConfigFile)
	if err := os.WriteFile(path, b.Bytes(), 0o640); err != nil {
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
