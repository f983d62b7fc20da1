package datadog

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/internal/domain/dashboards"
	"github.com/otelhouse/otelhouse/internal/domain/savedsearch"
)

var update = flag.Bool("update", false, "rewrite testdata/integrations-core/sample/summary.golden")

// sampleDir holds real assets of Datadog's integrations repository (the
// README names each one's path and commit).
var sampleDir = filepath.Join("testdata", "integrations-core", "sample")

// tally is how one kind of item fared: outcome → count.
type tally map[string]int

func (t tally) String() string {
	return fmt.Sprintf("%d imported, %d approximated, %d skipped", t[Imported], t[Approximated], t[Skipped])
}

// quoted and numbers hide the particular query, threshold or position a
// reason names, so that reasons of one kind count together.
var (
	quoted  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	numbers = regexp.MustCompile(`-?\b[0-9]+(\.[0-9]+)?\b`)
)

func reasonClass(msg string) string {
	return numbers.ReplaceAllString(quoted.ReplaceAllString(msg, "…"), "N")
}

// The importers over a broad sample of Datadog's own integration assets:
// every widget, monitor and view is accounted for, nothing panics, every
// item not imported as is says why, what is created validates as the
// API would validate it, and the tally (summary.golden) changes only in
// review. Regenerate with -update.
func TestImportIntegrationSample(t *testing.T) {
	entries, err := os.ReadDir(sampleDir)
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			files = append(files, e.Name())
		}
	}
	sort.Strings(files)
	require.NotEmpty(t, files)

	widgets := tally{}
	byType := map[string]tally{}
	skipReasons := map[string]int{}
	monitors := tally{} // imported = fully, approximated = partly, skipped = refused
	refused := map[string]int{}
	partly := map[string]int{}
	views := tally{}
	var dashLines, monLines, viewLines []string
	nDash := 0
	onlyVars := 0 // approximated only for a template variable written in

	for _, name := range files {
		body, err := os.ReadFile(filepath.Join(sampleDir, name))
		require.NoError(t, err)
		switch {
		case strings.Contains(name, "_dashboard_"):
			nDash++
			d, items := importNoPanic(t, name, func() (Dashboard, []Item, error) { return ImportDashboard(body, DefaultSources) })
			checkReasons(t, name, items)
			validDashboard(t, name, d)
			file := tally{}
			for _, it := range items {
				if it.Path == "template_variables" {
					continue
				}
				widgets[it.Outcome]++
				file[it.Outcome]++
				if byType[it.Type] == nil {
					byType[it.Type] = tally{}
				}
				byType[it.Type][it.Outcome]++
				if it.Outcome == Skipped {
					skipReasons[it.Type+": "+reasonClass(it.Notes[len(it.Notes)-1])]++
				}
				if it.Outcome == Approximated && len(it.Notes) == 1 && it.Notes[0] == varsNote {
					onlyVars++
				}
			}
			dashLines = append(dashLines, fmt.Sprintf("  %s (%d widgets): %s", name, file[Imported]+file[Approximated]+file[Skipped], file))
		case strings.Contains(name, "_monitor_"):
			var m Monitor
			var items []Item
			var err error
			require.NotPanics(t, func() { m, items, err = ImportMonitor(body, DefaultSources) }, name)
			if err != nil {
				require.ErrorAs(t, err, &Invalid{}, name)
				monitors[Skipped]++
				refused[reasonClass(err.Error())]++
				monLines = append(monLines, fmt.Sprintf("  %s: refused (%s)", name, reasonClass(err.Error())))
				continue
			}
			checkReasons(t, name, items)
			_, err = template.New(name).Parse(m.Alert.Message)
			require.NoError(t, err, "%s: the message is not a template", name)
			if m.Dashboard != nil {
				validDashboard(t, name, *m.Dashboard)
			}
			if m.SavedSearch != nil {
				validSearch(t, name, *m.SavedSearch)
			}
			var why []string
			for _, it := range items {
				if it.Outcome != Imported {
					why = append(why, it.Path)
					for _, n := range it.Notes {
						partly[it.Path+": "+reasonClass(n)]++
					}
				}
			}
			if len(why) == 0 {
				monitors[Imported]++
				monLines = append(monLines, fmt.Sprintf("  %s: fully", name))
			} else {
				monitors[Approximated]++
				monLines = append(monLines, fmt.Sprintf("  %s: partly (%s)", name, strings.Join(why, ", ")))
			}
		case strings.Contains(name, "_saved_view_"):
			var s SavedSearch
			var items []Item
			var err error
			require.NotPanics(t, func() { s, items, err = ImportSavedView(body, DefaultSources) }, name)
			if err != nil {
				require.ErrorAs(t, err, &Invalid{}, name)
				views[Skipped]++
				viewLines = append(viewLines, fmt.Sprintf("  %s: refused (%s)", name, reasonClass(err.Error())))
				continue
			}
			checkReasons(t, name, items)
			validSearch(t, name, s)
			views[items[0].Outcome]++
			line := fmt.Sprintf("  %s: %s", name, items[0].Outcome)
			if len(items[0].Notes) > 0 {
				line += " (" + strings.Join(items[0].Notes, "; ") + ")"
			}
			viewLines = append(viewLines, line)
		default:
			t.Errorf("%s: not named <integration>_<dashboard|monitor|saved_view>_<name>.json", name)
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "# What the Datadog importers make of testdata/integrations-core/sample\n")
	fmt.Fprintf(&b, "# (TestImportIntegrationSample; regenerate with -update).\n\n")
	fmt.Fprintf(&b, "dashboards: %d, widgets: %d: %s\n", nDash, widgets[Imported]+widgets[Approximated]+widgets[Skipped], widgets)
	fmt.Fprintf(&b, "  (%d of the approximated only because a template variable's default is written into the query)\n", onlyVars)
	fmt.Fprintf(&b, "by widget type:\n")
	for _, typ := range sortedKeys(byType) {
		fmt.Fprintf(&b, "  %-14s %s\n", typ, byType[typ])
	}
	fmt.Fprintf(&b, "skipped, by reason:\n")
	for _, r := range byCount(skipReasons) {
		fmt.Fprintf(&b, "  %3d  %s\n", skipReasons[r], r)
	}
	fmt.Fprintf(&b, "by file:\n%s\n\n", strings.Join(dashLines, "\n"))
	fmt.Fprintf(&b, "monitors: %d: %d fully, %d partly, %d refused\n", monitors[Imported]+monitors[Approximated]+monitors[Skipped],
		monitors[Imported], monitors[Approximated], monitors[Skipped])
	fmt.Fprintf(&b, "refused, by reason:\n")
	for _, r := range byCount(refused) {
		fmt.Fprintf(&b, "  %3d  %s\n", refused[r], r)
	}
	fmt.Fprintf(&b, "partly, by what was approximated or dropped:\n")
	for _, r := range byCount(partly) {
		fmt.Fprintf(&b, "  %3d  %s\n", partly[r], r)
	}
	fmt.Fprintf(&b, "by file:\n%s\n\n", strings.Join(monLines, "\n"))
	fmt.Fprintf(&b, "saved views: %d: %d imported, %d approximated, %d refused\n", views[Imported]+views[Approximated]+views[Skipped],
		views[Imported], views[Approximated], views[Skipped])
	fmt.Fprintf(&b, "by file:\n%s\n", strings.Join(viewLines, "\n"))

	golden := filepath.Join(sampleDir, "summary.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with -update to write it")
	if got := b.String(); got != string(want) {
		t.Errorf("the mapping changed (- golden, + now): review, then run with -update\n%s", lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only one of a and b has.
func lineDiff(a, b string) string {
	count := map[string]int{}
	for _, l := range strings.Split(b, "\n") {
		count[l]++
	}
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if count[l] > 0 {
			count[l]--
			continue
		}
		out = append(out, "- "+l)
	}
	for _, l := range strings.Split(b, "\n") {
		if count[l] > 0 {
			count[l]--
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

func importNoPanic(t *testing.T, name string, f func() (Dashboard, []Item, error)) (Dashboard, []Item) {
	t.Helper()
	var d Dashboard
	var items []Item
	var err error
	require.NotPanics(t, func() { d, items, err = f() }, name)
	require.NoError(t, err, name)
	return d, items
}

func checkReasons(t *testing.T, name string, items []Item) {
	t.Helper()
	for _, it := range items {
		assert.Contains(t, []string{Imported, Approximated, Skipped}, it.Outcome, "%s %s", name, it.Path)
		if it.Outcome != Imported {
			assert.NotEmpty(t, it.Notes, "%s %s: %s without a reason", name, it.Path, it.Outcome)
		}
		if it.Outcome == Skipped {
			assert.Empty(t, it.TileID, "%s %s: skipped but placed", name, it.Path)
		}
	}
}

// validDashboard decodes and validates d as POST /api/v2/dashboards does.
func validDashboard(t *testing.T, name string, d Dashboard) {
	t.Helper()
	b, err := json.Marshal(d)
	require.NoError(t, err)
	dd, err := dashboards.Decode(b)
	require.NoError(t, err, name)
	n := 0
	err = dd.Validate(func() string { n++; return fmt.Sprint("new", n) }, func(string) (bool, error) { return true, nil })
	var bad dashboards.Invalid
	if errors.As(err, &bad) {
		t.Errorf("%s: the imported dashboard does not validate: %v", name, err)
	} else {
		require.NoError(t, err, name)
	}
}

func validSearch(t *testing.T, name string, s SavedSearch) {
	t.Helper()
	ss := savedsearch.SavedSearch{Name: s.Name, Source: s.Source, Where: s.Where, WhereLanguage: s.WhereLanguage, Tags: s.Tags}
	if s.Select != "" {
		ss.Select = strings.Split(s.Select, ", ")
	}
	assert.NoError(t, ss.Validate(func(string) (bool, error) { return true, nil }), name)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// byCount orders reasons by how often they occur, then by name.
func byCount(m map[string]int) []string {
	keys := sortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	return keys
}
