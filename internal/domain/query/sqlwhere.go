package query

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// A whereLanguage=sql condition is pasted into the chart's query, which
// runs with the API's database credentials: those reach the API's own
// state (teams, key hashes, other teams' webhooks) and, through functions
// such as file(), the host's files. An API key must not grant that, so a
// condition is decided on the engine's own parse of it (EXPLAIN AST, see
// astdump.go): one expression whose every name is a column of the source
// (or a lambda's parameter), whose every function computes on values
// alone, with no sub-query, table, SETTINGS or FORMAT anywhere. What runs
// is then written from that tree (whererender.go), not the user's text.

// safeCategories are system.functions categories whose functions compute
// only on their arguments.
var safeCategories = map[string]bool{
	"Arithmetic": true, "Arrays": true, "Bit": true, "Comparison": true, "Conditional": true,
	"Dates and Times": true, "Distance": true, "Encoding": true, "Geo": true, "Geo Polygon": true, "Hash": true,
	"IP Address": true, "JSON": true, "Logical": true, "Map": true, "Mathematical": true, "Null": true,
	"Rounding": true, "String": true, "String Replacement": true, "String Search": true, "String Splitting": true,
	"Tuple": true, "Type Conversion": true, "URL": true, "UUID": true,
}

// safeOthers are the functions of the catch-all "Other" category that are
// as pure as the categories above; the rest of it reads files, tables,
// settings or server state, or sleeps.
var safeOthers = map[string]bool{
	"bar": true, "countDigits": true, "formatReadableDecimalSize": true, "formatReadableQuantity": true,
	"formatReadableSize": true, "formatReadableTimeDelta": true, "getSubcolumn": true, "identity": true,
	"isConstant": true, "isDecimalOverflow": true, "MACNumToString": true, "MACStringToNum": true,
	"MACStringToOUI": true, "parseReadableSize": true, "parseReadableSizeOrNull": true,
	"parseReadableSizeOrZero": true, "parseTimeDelta": true, "toColumnTypeName": true, "toTypeName": true,
	"transform": true, "variantElement": true, "variantType": true, "visibleWidth": true,
}

// inFunctions are IN's function spellings: their second argument may
// name a table, which the operator form's check below rules out.
var inFunctions = map[string]bool{
	"in": true, "notin": true, "globalin": true, "globalnotin": true, "nullin": true, "notnullin": true,
	"globalnullin": true, "globalnotnullin": true, "inignoreset": true, "notinignoreset": true,
	"globalinignoreset": true, "globalnotinignoreset": true, "nullinignoreset": true, "notnullinignoreset": true,
	"globalnullinignoreset": true, "globalnotnullinignoreset": true,
}

// Function is one row of the server's function catalogue.
type Function struct {
	Name            string
	CaseInsensitive bool
	// Categories of the function, or of the function it is an alias of.
	Categories string
}

// Catalog tells which functions a sql where may call.
type Catalog struct {
	exact, folded map[string]bool
}

// NewCatalog allows the functions whose every category is safe.
func NewCatalog(fns []Function) *Catalog {
	c := &Catalog{exact: map[string]bool{}, folded: map[string]bool{}}
	for _, f := range fns {
		ok := f.Categories != ""
		for _, cat := range strings.Split(f.Categories, ",") {
			cat = strings.TrimSpace(cat)
			ok = ok && (safeCategories[cat] || cat == "Other" && safeOthers[f.Name])
		}
		if !ok || inFunctions[strings.ToLower(f.Name)] {
			continue
		}
		c.exact[f.Name] = true
		if f.CaseInsensitive {
			c.folded[strings.ToLower(f.Name)] = true
		}
	}
	return c
}

func (c *Catalog) allows(name string) bool {
	return c.exact[name] || c.folded[strings.ToLower(name)]
}

//go:embed functions.sql
var functionsSQL string

// catalogTTL bounds how long a server's catalogue is trusted: an upgrade
// may add functions.
const catalogTTL = 10 * time.Minute

type loadedCatalog struct {
	at time.Time
	c  *Catalog
}

var catalogs sync.Map // *sql.DB → loadedCatalog

// catalogOf reads the server's function catalogue, cached per database.
func catalogOf(ctx context.Context, db *sql.DB) (*Catalog, error) {
	if l, ok := catalogs.Load(db); ok && time.Since(l.(loadedCatalog).at) < catalogTTL {
		return l.(loadedCatalog).c, nil
	}
	rows, err := db.QueryContext(ctx, functionsSQL)
	if err != nil {
		return nil, fmt.Errorf("reading the server's function catalogue (a sql where needs system.functions with its categories column): %w", err)
	}
	defer rows.Close()
	var fns []Function
	for rows.Next() {
		var f Function
		var ci uint8
		if err := rows.Scan(&f.Name, &ci, &f.Categories); err != nil {
			return nil, err
		}
		f.CaseInsensitive = ci != 0
		fns = append(fns, f)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	c := NewCatalog(fns)
	catalogs.Store(db, loadedCatalog{at: time.Now(), c: c})
	return c, nil
}

// MaxSQLWhere bounds a sql where's length: the engine parses it twice.
const MaxSQLWhere = 64 << 10

// explainPrefix and explainSuffix frame a condition for the engine's
// parser. The line break ends a `--` comment, so the closing parenthesis
// is always read; whatever the condition adds past it shows in the tree.
const (
	explainPrefix = "EXPLAIN AST SELECT 1 WHERE ("
	explainSuffix = "\n)"
)

// parsed is the engine's parse of one framed condition.
type parsed struct {
	cond *astNode
	err  error
}

// parses caches the engine's parses by server and text: a dashboard
// asks for the same conditions on every refresh. Bounded by dropping it
// whole when full.
var parses struct {
	sync.Mutex
	m map[parseKey]parsed
}

type parseKey struct {
	db   *sql.DB
	text string
}

const maxCachedParses = 4096

// CheckSQLWhere decides on the engine's parse of cond whether it is one
// condition over the columns cols calling only functions fns allows, and
// returns the SQL to run for it: written from the checked tree, and
// parsed by the engine again to the same tree.
func CheckSQLWhere(ctx context.Context, db *sql.DB, cond string, cols map[string]string, fns *Catalog) (string, error) {
	if len(cond) > MaxSQLWhere {
		return "", Error{fmt.Errorf("a sql where may be at most %d bytes, got %d", MaxSQLWhere, len(cond))}
	}
	sc := whereScope{cols: cols, fns: fns}
	return checkSQL(ctx, db, cond, sc, sc)
}

// checkSQL renders cond's tree as sc allows, checks that the engine reads
// that text back as the same tree, and returns the tree rendered for run
// (which may write names otherwise, as a having's aliases).
func checkSQL(ctx context.Context, db *sql.DB, cond string, sc, run whereScope) (string, error) {
	n, err := parseCondition(ctx, db, cond)
	if err != nil {
		return "", err
	}
	text, err := renderWhere(n, sc)
	if err != nil {
		return "", Error{err}
	}
	again, err := parseCondition(ctx, db, text)
	if err != nil || again.String() != n.String() {
		// The rendering must mean what the user wrote; if the engine reads
		// it otherwise, refuse rather than run something else.
		return "", Error{errors.New("this condition cannot be checked safely; write it more plainly (see docs/api.md, sql where)")}
	}
	if text, err = renderWhere(n, run); err != nil {
		return "", Error{err}
	}
	return "(" + text + ")", nil
}

// parseCondition has the engine parse cond, read-only, and returns the
// condition's tree.
func parseCondition(ctx context.Context, db *sql.DB, cond string) (*astNode, error) {
	key := parseKey{db, cond}
	parses.Lock()
	p, ok := parses.m[key]
	parses.Unlock()
	if ok {
		return p.cond, p.err
	}
	dump, err := explainAST(ctx, db, explainPrefix+cond+explainSuffix)
	if err != nil {
		var qe Error
		if !errors.As(err, &qe) {
			return nil, err // the engine unreachable, say: not the text's fault, not cached
		}
		p.err = err
	} else if root, perr := parseASTDump(dump); perr != nil {
		p.err = Error{perr}
	} else if p.cond, perr = conditionOf(root); perr != nil {
		p.err = Error{perr}
	}
	parses.Lock()
	if parses.m == nil || len(parses.m) >= maxCachedParses {
		parses.m = map[parseKey]parsed{}
	}
	parses.m[key] = p
	parses.Unlock()
	return p.cond, p.err
}

// explainAST runs EXPLAIN AST read-only (it parses, it runs nothing) and
// returns the dump; the engine's syntax errors come back as the caller's
// mistake, with positions counted in the condition.
func explainAST(ctx context.Context, db *sql.DB, stmt string) (string, error) {
	rows, err := db.QueryContext(clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"readonly": 2})), stmt)
	if err != nil {
		return "", syntaxError(err)
	}
	defer func() { _ = rows.Close() }()
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		return "", syntaxError(err)
	}
	return b.String(), nil
}

// syntaxPosition is where the engine's syntax error message gives the
// failing offset in the statement.
var syntaxPosition = regexp.MustCompile(`failed at position (\d+)`)

// syntaxError turns the engine's refusal of the framed condition into
// the caller's mistake, without the statement's text; other errors pass.
func syntaxError(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "(ACCESS_DENIED)") || strings.Contains(msg, "Code: 497.") {
		// The engine's own confinement refused the text before parsing it.
		reason := msg
		if _, r, ok := strings.Cut(msg, "Not enough privileges: "); ok {
			reason = strings.TrimSpace(strings.Trim(strings.TrimSpace(r), `"`))
		}
		return Error{errors.New(reason)}
	}
	if strings.Contains(msg, "(UNKNOWN_QUERY_PARAMETER)") {
		return Error{errors.New("query parameters ({name:Type}) are not allowed in a sql where")}
	}
	if strings.Contains(msg, "Code: 62.") && !strings.Contains(msg, "(SYNTAX_ERROR)") {
		// A refusal before parsing, such as a second statement.
		return Error{errors.New(strings.TrimSpace(strings.Trim(strings.TrimSpace(msg[strings.Index(msg, "Code: 62.")+len("Code: 62. DB::Exception: "):]), `"`)))}
	}
	classified := engineError(err)
	var qe Error
	if !errors.As(classified, &qe) {
		return err
	}
	reason := msg
	if i := strings.Index(reason, "DB::Exception: "); i >= 0 {
		reason = reason[i+len("DB::Exception: "):]
	}
	if i := strings.LastIndex(reason, " ("); i >= 0 && strings.HasSuffix(strings.TrimSpace(strings.Trim(strings.TrimSpace(reason), `"`)), ")") {
		reason = reason[:i]
	}
	if m := syntaxPosition.FindStringSubmatch(reason); m != nil {
		pos, _ := strconv.Atoi(m[1])
		offset := max(0, pos-1-len(explainPrefix))
		if i := strings.Index(reason, ":"); i >= 0 {
			reason = fmt.Sprintf("syntax error at offset %d", offset)
			if j := strings.Index(msg, "Expected "); j >= 0 {
				exp := msg[j:]
				if k := strings.IndexAny(exp, ".\n"); k >= 0 {
					exp = exp[:k]
				}
				// The engine then quotes the statement ("In scope SELECT
				// formatQuery(…)"), which is not the caller's text.
				if k := strings.Index(exp, ": In scope"); k >= 0 {
					exp = exp[:k]
				}
				reason += "; " + strings.ToLower(exp[:1]) + exp[1:]
			}
		}
	}
	return Error{errors.New(reason)}
}

// String writes the node and its children, one per line, as the dump did.
func (n *astNode) String() string {
	var b strings.Builder
	var walk func(n *astNode, depth int)
	walk = func(n *astNode, depth int) {
		b.WriteString(strings.Repeat(" ", depth))
		b.WriteString(n.kind)
		if n.detail != "" {
			b.WriteByte(' ')
			b.WriteString(n.detail)
		}
		b.WriteByte('\n')
		for _, c := range n.children {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}
