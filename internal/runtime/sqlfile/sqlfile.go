// Package sqlfile reads the project's .sql files: statements that each
// start at a `-- name: <name>` line, with `--` comments (which the files
// keep out of string literals) dropped.
package sqlfile

import "strings"

// Parse splits text into its named statements; file names the file in
// the panic a malformed one causes (a bug every test of its package hits).
func Parse(file, text string) map[string]string {
	out := map[string]string{}
	name := ""
	var body []string
	flush := func() {
		if name != "" {
			stmt := strings.TrimSpace(StripComments(strings.Join(body, "\n")))
			if stmt == "" {
				panic(file + ": statement " + name + " is empty")
			}
			out[name] = stmt
		}
		body = body[:0]
	}
	for _, l := range strings.Split(text, "\n") {
		if n, ok := strings.CutPrefix(l, "-- name: "); ok {
			flush()
			name = strings.TrimSpace(n)
			continue
		}
		body = append(body, l)
	}
	flush()
	return out
}

// StripComments drops `--` comments, whole lines and line ends.
func StripComments(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if j := strings.Index(l, "--"); j >= 0 {
			lines[i] = l[:j]
		}
	}
	return strings.Join(lines, "\n")
}
