package embeddedclickhouseextension

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
)

// engineConfigFile is written into the data directory on every start, so
// what the engine runs with can be read next to its data.
const engineConfigFile = "otelhouse-engine.xml"

// engineArgs writes the engine's configuration file and returns the
// options that make the engine read it (none when there is nothing to set).
func engineArgs(s *Settings) ([]string, error) {
	if len(s.MergeTree) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	b.WriteString("<clickhouse>\n  <merge_tree>\n")
	for _, name := range slices.Sorted(maps.Keys(s.MergeTree)) {
		// Names are checked by Validate; values are text to the engine.
		fmt.Fprintf(&b, "    <%s>", name)
		_ = xml.EscapeText(&b, fmt.Append(nil, s.MergeTree[name]))
		fmt.Fprintf(&b, "</%s>\n", name)
	}
	b.WriteString("  </merge_tree>\n</clickhouse>\n")
	path := filepath.Join(s.DataDir, engineConfigFile)
	if err := os.WriteFile(path, b.Bytes(), 0o640); err != nil {
		return nil, fmt.Errorf("embedded ClickHouse configuration: %w", err)
	}
	return []string{"--config-file=" + path}, nil
}

// checkMergeTree makes a bad merge_tree entry fail the start: the engine
// itself only reports it when a table is next touched.
func checkMergeTree(c *chdb.Conn, s *Settings) error {
	if len(s.MergeTree) == 0 {
		return nil
	}
	if _, err := c.Query("SELECT count() FROM system.merge_tree_settings", "TSV"); err != nil {
		return fmt.Errorf("embedded ClickHouse merge_tree settings: %w", err)
	}
	return nil
}
