package sqlfile

import (
	"bytes"
	"text/template"
)

// Templates are a file's named statements as text/templates, for
// statements whose identifiers (resolved columns, a checked where) are
// filled in Go; values always go as query parameters.
type Templates struct {
	file string
	set  map[string]*template.Template
}

// ParseTemplates parses each statement of file (Parse's format) as a
// template; a statement that does not parse panics at start, as a
// malformed embedded file is the program's fault.
func ParseTemplates(file, text string) Templates {
	t := Templates{file: file, set: map[string]*template.Template{}}
	for name, stmt := range Parse(file, text) {
		t.set[name] = template.Must(template.New(name).Parse(stmt))
	}
	return t
}

// Render fills the named statement with data; a missing statement or a
// field the data lacks is the program's fault and panics.
func (t Templates) Render(name string, data any) string {
	tmpl, ok := t.set[name]
	if !ok {
		panic(t.file + ": no statement " + name)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, data); err != nil {
		panic(t.file + ": statement " + name + ": " + err.Error())
	}
	return b.String()
}
