package chhttp

// The engine's own parse of a statement: what it is and what it reaches
// are read from the tree the engine builds, never from the SQL text. A
// statement is first put in the engine's canonical form (formatQuery,
// the text bound as a query parameter, so it cannot be injected), which
// fails for more than one statement; the canonical text, one statement
// by construction, is then shown as a tree (EXPLAIN AST), which runs
// nothing.

import (
	"errors"
	"strings"
	"sync"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/internal/chdb"
)

// stmtParam names the query parameter the statement is bound to; the
// prefix keeps it apart from a client's own param_ names.
const stmtParam = "otelhouse_statement"

// astNode is one line of EXPLAIN AST: a node's kind ("Function",
// "Literal", "SelectWithUnionQuery" …), the rest of its line, and its
// depth. A name holding a line break prints as more than one line: such
// lines can only add to what is refused (every rule below refuses on a
// line, or on a child of the root, whose indentation a name cannot
// change), never hide a node.
type astNode struct {
	depth int
	kind  string
	rest  string
}

// parsed is a statement as the engine reads it.
type parsed struct {
	canonical string // formatQuery's text
	tree      []astNode
}

func (p *parsed) root() string {
	if len(p.tree) == 0 {
		return ""
	}
	return p.tree[0].kind
}

// hasChild reports whether the root has a direct child of kind.
func (p *parsed) hasChild(kind string) bool {
	for _, n := range p.tree {
		if n.depth == 1 && n.kind == kind {
			return true
		}
	}
	return false
}

// has reports whether any node is of kind.
func (p *parsed) has(kind string) bool {
	for _, n := range p.tree {
		if n.kind == kind {
			return true
		}
	}
	return false
}

// canonicalLines are the canonical text's lines, blanks trimmed on the
// left. The formatter starts each clause on its own line and escapes line
// breaks inside literals and quoted names, so a line that starts with a
// keyword is that clause.
func (p *parsed) canonicalLines() []string {
	lines := strings.Split(p.canonical, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " ")
	}
	return lines
}

// outputFormat is the statement's FORMAT clause, "" when it has none.
func (p *parsed) outputFormat() string {
	format := ""
	for _, l := range strings.Split(p.canonical, "\n") {
		if name, ok := strings.CutPrefix(l, "FORMAT "); ok {
			format = strings.Trim(name, "`\"")
		}
	}
	return format
}

// engineParser parses on one engine connection (the server's control
// connection: it runs nothing that holds it long).
type engineParser struct {
	conn *chdb.Conn
	once sync.Once
	err  error
	// denyAnywhere are functions refused wherever they are called: the
	// table functions that reach files, URLs, servers, object stores or
	// processes (their names are no ordinary function), and file(),
	// which the engine's grants do not cover.
	denyAnywhere map[string]bool
	// denyTable are the table functions refused where a table goes; a
	// few share a name with an ordinary function (format(Values, '…')
	// would parse text that the tree never shows as expressions).
	denyTable map[string]bool
	// cache holds the parses of statements by their text, which repeat:
	// the exporter sends the same INSERT heads again and again, charts
	// and search pages the same SELECTs with new parameters, and a parse
	// is two engine statements (5-8 ms, on the one control connection).
	mu    sync.Mutex
	cache map[string]*parsed
}

// maxCached bounds the parses kept; the cache starts over when full.
const maxCached = 512

// load reads the engine's table functions, so a table function added by
// a newer engine is refused until it is allowed here.
func (p *engineParser) load() error {
	p.once.Do(func() {
		type row struct {
			Name   string
			Scalar uint8
		}
		rows, err := queryRows[row](p.conn, "SELECT lower(name) AS Name, toUInt8(lower(name) IN (SELECT lower(name) FROM system.functions)) AS Scalar FROM system.table_functions")
		if err != nil {
			p.err = err
			return
		}
		p.denyAnywhere, p.denyTable = map[string]bool{}, map[string]bool{}
		for _, r := range rows {
			if allowedTableFunctions[r.Name] {
				continue
			}
			p.denyTable[r.Name] = true
			if r.Scalar == 0 {
				p.denyAnywhere[r.Name] = true
			}
		}
		for _, f := range deniedFunctions {
			p.denyAnywhere[f], p.denyTable[f] = true, true
		}
		// Aliases of the functions refused (none today) are refused too.
		aliases, err := queryRows[struct{ Name string }](p.conn, "SELECT lower(name) AS Name FROM system.functions WHERE lower(alias_to) IN "+
			"('"+strings.Join(deniedFunctions, "','")+"')") // constants of this file
		if err != nil {
			p.err = err
			return
		}
		for _, a := range aliases {
			p.denyAnywhere[a.Name], p.denyTable[a.Name] = true, true
		}
	})
	return p.err
}

// parse reads one statement the engine's way; params are the request's
// query parameters, which EXPLAIN AST substitutes. An engine error (a
// syntax error, more than one statement) comes back as a *chdb.Error.
func (p *engineParser) parse(text string, params map[string]string) (*parsed, error) {
	if err := p.load(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	pp := p.cache[text]
	p.mu.Unlock()
	if pp != nil {
		return pp, nil
	}
	pp, err := p.parseUncached(text, params)
	if err == nil && cacheable(pp) {
		p.mu.Lock()
		if p.cache == nil || len(p.cache) >= maxCached {
			p.cache = map[string]*parsed{}
		}
		p.cache[text] = pp
		p.mu.Unlock()
	}
	return pp, err
}

// cacheable reports whether a parse holds for any values of the
// statement's parameters. A typed parameter ({p:String}, {p:Int64}) is
// substituted as a constant of its type, whatever its value, so the tree
// keeps its shape and every rule reads the same nodes; an Identifier
// parameter names a table or column, which may change what is read, so
// such a statement is parsed each time. (The canonical text keeps each
// placeholder as written; a literal that merely contains the word is
// quoted there and only costs the cache.)
func cacheable(pp *parsed) bool {
	return !strings.Contains(strings.ToLower(pp.canonical), ":identifier}")
}

// parseUncached asks the engine.
func (p *engineParser) parseUncached(text string, params map[string]string) (*parsed, error) {
	res, err := p.conn.QueryParams("SELECT formatQuery({"+stmtParam+":String})", "TSVRaw", map[string]string{stmtParam: escapeParam(text)})
	if err != nil {
		return nil, err
	}
	pp := &parsed{canonical: strings.TrimRight(string(res.Data), "\n")}
	if pp.canonical == "" {
		return nil, &chdb.Error{Code: 62, Message: "Empty query"}
	}
	for _, l := range pp.canonicalLines() {
		// EXPLAIN AST of an INTO OUTFILE statement writes nothing, but
		// it is refused before anything else is run on its text.
		if strings.HasPrefix(l, "INTO OUTFILE ") {
			pp.tree = []astNode{{kind: "IntoOutfile"}}
			return pp, nil
		}
	}
	res, err = p.conn.QueryParams("EXPLAIN AST "+pp.canonical, "TSVRaw", params)
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(strings.TrimRight(string(res.Data), "\n"), "\n") {
		content := strings.TrimLeft(l, " ")
		kind, rest, _ := strings.Cut(content, " ")
		pp.tree = append(pp.tree, astNode{depth: len(l) - len(content), kind: kind, rest: rest})
	}
	if len(pp.tree) == 0 || pp.tree[0].kind == "" {
		return nil, errors.New("the engine gave no tree for the statement")
	}
	return pp, nil
}

// escapeParam writes s as a String query parameter, which the engine reads
// in its escaped text form.
func escapeParam(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`, "\x00", `\0`).Replace(s)
}
