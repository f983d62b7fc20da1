package chhttp

import "strings"

// allowedTableFunctions read nothing outside the engine's tables and the
// statement itself.
var allowedTableFunctions = map[string]bool{
	"numbers": true, "numbers_mt": true, "zeros": true, "zeros_mt": true, "generate_series": true,
	"generateseries": true, "primes": true, "values": true, "sqlstandardvalues": true, "view": true,
	"viewifpermitted": true, "merge": true, "input": true, "null": true, "generaterandom": true, "loop": true,
	"mergetreeindex": true, "mergetreeprojection": true, "mergetreeanalyzeindexes": true,
	"mergetreeanalyzeindexesuuid": true, "mergetreetextindex": true,
}

// deniedFunctions are ordinary functions that reach the host: file()
// reads any file clickhouse-local can, whatever the grants say.
var deniedFunctions = []string{"file", "catboostevaluate"}

// hostAccess says why the parsed statement would reach the host's files,
// URLs, servers or processes, or "" when it would not. The engine's user
// (engineusers.xml) is refused the table functions and engines that
// reach them by grants; these are the ways its grants do not cover (the
// file() function, INTO OUTFILE and FROM INFILE, which clickhouse-local's
// client side runs), and the others again, in every spelling the engine
// reads as the same name.
func (p *engineParser) hostAccess(pp *parsed) string {
	root := pp.root()
	if root == "IntoOutfile" {
		return "INTO OUTFILE writes the host's files"
	}
	for i, n := range pp.tree {
		switch {
		case n.kind == "Function":
			name := strings.ToLower(n.rest)
			if j := strings.IndexByte(name, ' '); j >= 0 {
				name = name[:j]
			}
			// A table function stands as the first child of a table
			// expression, or right under an INSERT (INTO FUNCTION) or a
			// CREATE (AS table_function).
			table := i > 0 && pp.tree[i-1].kind == "TableExpression" && n.depth == pp.tree[i-1].depth+1 ||
				n.depth == 1 && (root == "InsertQuery" || root == "CreateQuery")
			if p.denyAnywhere[name] || table && p.denyTable[name] {
				return "the " + name + "() function reaches beyond the engine's databases"
			}
		case n.kind == "Literal" && n.depth == 1:
			// A literal right under the statement is a file name or its
			// compression: INTO OUTFILE, FROM INFILE. A CREATE's comment
			// and a KILL's condition are the exceptions; a CREATE …
			// INTO OUTFILE was refused on its canonical text.
			switch root {
			case "InsertQuery":
				return "FROM INFILE reads the host's files"
			case "CreateQuery", "KillQueryQuery", "AlterQuery":
			default:
				return "INTO OUTFILE writes the host's files"
			}
		}
	}
	return ""
}
