package alerttemplate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notification is a Notification as the alert evaluator hands it over:
// decoded from its JSON, so numbers are float64 and the group a list.
func notification() map[string]any {
	return map[string]any{
		"name": "errors spike", "state": "ALERT", "previousState": "OK", "value": 3.0, "threshold": 2.0,
		"group": []any{"checkout", "eu-west-1"}, "message": "ALERT: 3 errors", "windowStart": 1793534400000.0,
	}
}

func TestRendersTheAllowedSubset(t *testing.T) {
	cases := []struct{ text, want string }{
		{"{{.state}}: {{.value}} errors", "ALERT: 3 errors"},
		{`{{if eq .state "ALERT"}}firing{{else}}resolved{{end}} {{.name}}`, "firing errors spike"},
		{`{{range .group}}[{{.}}]{{end}}`, "[checkout][eu-west-1]"},
		{`{{range $.group}}{{.}};{{end}}`, "checkout;eu-west-1;"},
		{`{{index .group 1}} {{len .group}} {{slice .name 0 6}}`, "eu-west-1 2 errors"},
		{`{{printf "%.1f > %5.1f" .value .threshold}}`, "3.0 >   2.0"},
		{`{"text": "{{js .message}}"}`, `{"text": "ALERT: 3 errors"}`},
		{`{{.name | urlquery}}`, "errors+spike"},
		{`{{with .group}}{{index . 0}}{{end}}`, "checkout"},
		{`{{/* a comment */}}{{print .state "/" .previousState}}`, "ALERT/OK"},
		{`{{and .state .name}} {{not (gt .value .threshold)}}`, "errors spike false"},
		// No Go template at all: sent as written.
		{"{{#is_alert}}firing{{/is_alert}}", "{{#is_alert}}firing{{/is_alert}}"},
		{"{{message}}", "{{message}}"},
		{"plain text, 100% sure", "plain text, 100% sure"},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			require.NoError(t, Check(tc.text), tc.text)
			assert.Equal(t, tc.want, Render(tc.text, notification()), tc.text)
		})
	}
}

// Each of these runs for hours, builds gigabytes or recurses without end
// under plain text/template (measured: {{range 300000000}} 7 s, a 2^24
// recursion 33 s, 20 MB from 45 bytes).
func TestRefusesWhatCanRunWithoutBound(t *testing.T) {
	cases := []struct{ text, why string }{
		{`{{range 1000000000000}}{{end}}`, "range may only go over a field"},
		{`{{range .group}}{{range $.group}}{{end}}{{end}}`, "may not be nested"},
		{`{{range .group}}{{with .}}{{range $.group}}{{end}}{{end}}{{end}}`, "may not be nested"},
		{`{{with 1000000}}{{range .}}{{end}}{{end}}`, "range may only go over a field"},
		{`{{range len .name}}{{end}}`, "range may only go over a field"},
		{`{{define "a"}}{{template "a" .}}{{end}}{{template "a" .}}`, "{{define}} and {{block}} are not allowed"},
		{`{{block "a" .}}x{{end}}`, "{{define}} and {{block}} are not allowed"},
		{`{{template "t"}}`, "{{template}} is not allowed"},
		{`{{$a := .name}}{{$a = print $a $a}}{{$a}}`, "variables are not allowed"},
		{`{{range $i, $g := .group}}{{$g}}{{end}}`, "variables are not allowed"},
		{`{{if $x := .name}}{{end}}`, "variables are not allowed"},
		{`{{printf "%01000000d" 0}}`, "at most 3 digits"},
		{`{{printf "%.1000000f" 1.0}}`, "at most 3 digits"},
		{`{{printf "%*d" 1000000 0}}`, "widths from arguments"},
		{`{{printf "%[1]*d" 1000000 0}}`, "widths from arguments"},
		{`{{call .name}}`, "function call is not allowed"},
		{`{{print call}}`, "function call is not allowed"},
		{"{{.name}}" + strings.Repeat("x", MaxTemplate), "longer than"},
	}
	for _, tc := range cases {
		t.Run(tc.text[:min(len(tc.text), 40)], func(t *testing.T) {
			err := Check(tc.text)
			if assert.Error(t, err, tc.text) {
				assert.Contains(t, err.Error(), tc.why, tc.text)
			}
			if len(tc.text) < 200 {
				// Refused text is sent as written, without running it.
				assert.Equal(t, tc.text, Render(tc.text, notification()), tc.text)
			}
		})
	}
}

func TestBuildingIsMetered(t *testing.T) {
	n := notification()
	n["message"] = strings.Repeat("&", 60<<10)
	cases := []string{
		// Each escape may grow its input sixfold: nested, they would
		// grow geometrically.
		`{{len (html (html (html (html .message))))}}`,
		`{{len (print ` + strings.Repeat(".message ", 20) + `)}}`,
		`{{range .group}}{{len (printf "%s%s%s%s%s%s%s%s" .message .message .message .message .message .message .message .message)}}{{end}}`,
		// 999-wide verbs pass the check; the meter and the buffer stop them.
		strings.Repeat(`{{printf "%0999d%0999d%0999d%0999d" 0 0 0 0}}`, 300),
		// A format from the data or a pipe is checked when it is used.
		`{{printf .name 0}}`,
		`{{"%0999999d" | printf}}`,
	}
	n["name"] = "%01000000d"
	for _, text := range cases {
		require.NoError(t, Check(text), text)
		assert.Equal(t, text, Render(text, n), "built past the budget, the text is sent as written")
	}
	n["name"] = "%5d"
	assert.Equal(t, "    0", Render(`{{printf .name 0}}`, n))
	assert.Equal(t, "307200", Render(`{{len (html .message)}}`, n), "one escape of 60 KiB fits")
}

func TestDataIsBounded(t *testing.T) {
	n := notification()
	n["name"] = "a" + strings.Repeat("é", 50<<10) // 64 KiB ends inside an é
	group := make([]any, 1000)
	for i := range group {
		group[i] = "g"
	}
	n["group"] = group
	assert.Equal(t, "65538 32", Render(`{{len .name}} {{len .group}}`, n),
		"strings are cut to 64 KiB without the split rune, plus an ellipsis; lists to 32 items")
}

// FuzzRender: no text panics the check or the renderer, and what the
// check accepts renders within MaxOutput (or comes back as written).
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"{{.state}}", `{{range .group}}{{printf "%5s" .}}{{end}}`, `{{if eq .state "ALERT"}}a{{else}}b{{end}}`,
		`{{html .name | print}}`, `{{with .group}}{{index . 0}}{{end}}`, "{{#is_alert}}x{{/is_alert}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ok := Check(text) == nil
		out := Render(text, notification())
		if ok && out != text && len(out) > MaxOutput {
			t.Fatalf("%q rendered %d bytes", text, len(out))
		}
	})
}
