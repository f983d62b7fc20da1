package query

// Datadog's log and span search syntax (whereLanguage "datadog"),
// translated to a condition on the tables the Datadog receiver and the
// exporter write. Like Lucene, it never writes user text into SQL: keys
// resolve to known columns or to map lookups whose keys are bound, and
// every value is a bound parameter.
//
// What the receiver stores, and where this looks for it:
//   - service: the source's service (the ServiceName column); host, env, version and source: the
//     resource attributes host.name, deployment.environment.name (or the
//     older deployment.environment), service.version, datadog.log.source;
//     trace_id: the TraceId column (a decimal Datadog id is its low 64 bits).
//   - status: logs' SeverityText, read both ways (below); spans' StatusCode.
//   - @key: the record's attributes (LogAttributes, SpanAttributes), then a
//     nested JSON object stored under a prefix of the key (a Datadog log's
//     nested object is one JSON string today: @http.status_code finds
//     LogAttributes['http'] = {"status_code":500}), then the resource.
//   - key:value without @ is a tag: the Agent's known tags are resource
//     attributes under their OpenTelemetry names, the others record
//     attributes, as the receiver maps them.
//   - a bare word or "phrase" is searched in the message (the body, or the
//     span name), without regard to case.

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// maxJSONDepth bounds the nested-object prefixes tried for one @key: each
// is a JSON lookup in the query, and Datadog attributes are rarely deeper.
const maxJSONDepth = 6

// ddTags are the Agent's tags the receiver stores as resource attributes
// under OpenTelemetry names (receiver/datadogreceiver/internal/tags keeps
// the receiver's copy of this table).
var ddTags = map[string]string{
	"container_id": "container.id", "container_name": "container.name", "image_name": "container.image.name",
	"image_tag": "container.image.tags", "image_id": "container.image.id", "runtime": "container.runtime",
	"kube_cluster_name": "k8s.cluster.name", "kube_namespace": "k8s.namespace.name", "pod_name": "k8s.pod.name",
	"pod_uid": "k8s.pod.uid", "kube_container_name": "k8s.container.name", "kube_deployment": "k8s.deployment.name",
	"kube_replica_set": "k8s.replicaset.name", "kube_stateful_set": "k8s.statefulset.name", "kube_daemon_set": "k8s.daemonset.name",
	"kube_job": "k8s.job.name", "kube_cronjob": "k8s.cronjob.name", "kube_node": "k8s.node.name",
	"cloud_provider": "cloud.provider", "region": "cloud.region", "availability_zone": "cloud.availability_zone",
	"availability-zone": "cloud.availability_zone", "zone": "cloud.availability_zone", "account_id": "cloud.account.id",
	"task_arn": "aws.ecs.task.arn", "task_family": "aws.ecs.task.family", "task_version": "aws.ecs.task.revision",
	"ecs_cluster_name": "aws.ecs.cluster.arn", "os": "os.type",
	"host": "host.name", "env": "deployment.environment.name", "version": "service.version", "service": "service.name",
	"source": "datadog.log.source", "device": "datadog.device",
}

// ddStatuses are Datadog's log statuses: the SeverityText values that
// name each (compared lowercased: OTel SDKs write WARN or WARNING,
// Datadog Agents warn) and the OpenTelemetry severity numbers that mean
// it when the text is none of these. The receiver writes Datadog's
// status as the text and its number beside it (fatal and emergency 21
// and 24, alert 23, critical 22, notice 10 with its own text).
var ddStatuses = []struct {
	name    string
	aliases []string
	numbers []int
}{
	{"emergency", []string{"emergency", "emerg", "panic", "fatal"}, []int{21, 24}},
	{"alert", []string{"alert"}, []int{23}},
	{"critical", []string{"critical", "crit"}, []int{22}},
	{"error", []string{"error", "err", "eror"}, []int{17, 18, 19, 20}},
	{"warn", []string{"warn", "warning"}, []int{13, 14, 15, 16}},
	{"notice", []string{"notice"}, nil},
	{"info", []string{"info", "information", "informational"}, []int{9, 10, 11, 12}},
	{"ok", []string{"ok", "success"}, nil},
	{"debug", []string{"debug", "dbug", "trace", "verbose"}, []int{1, 2, 3, 4, 5, 6, 7, 8}},
}

// ddStatus finds the status a value names (any alias, any case).
func ddStatus(v string) (int, bool) {
	v = strings.ToLower(v)
	for i, s := range ddStatuses {
		if v == s.name || contains(s.aliases, v) {
			return i, true
		}
	}
	return 0, false
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// datadogWhere compiles a query in Datadog's log and span search syntax to a
// SQL condition on the source's table, its values bound in p.
func datadogWhere(q string, f fields, p *Params) (string, error) {
	if err := CheckWhere(q); err != nil {
		return "", err
	}
	ps := &ddParser{rs: []rune(q), f: f, p: p}
	ps.skip()
	if ps.eof() {
		return "1", nil
	}
	e, err := ps.or(ps.term)
	if err != nil {
		return "", err
	}
	ps.skip()
	if !ps.eof() {
		return "", fmt.Errorf("unexpected %q at position %d", string(ps.rs[ps.i]), ps.i)
	}
	// A nested @key is several lookups; thousands of them would be a
	// query the engine refuses to parse (max_query_size): refused here,
	// with the reason.
	if len(e) > maxDatadogSQL {
		return "", fmt.Errorf("the query is too large: it needs %d KiB of SQL, at most %d; use fewer terms", len(e)>>10, maxDatadogSQL>>10)
	}
	return e, nil
}

// maxDatadogSQL bounds the translation, below the engine's max_query_size
// (256 KiB) with room for the rest of the statement.
const maxDatadogSQL = 200 << 10

type ddParser struct {
	rs           []rune
	i            int
	depth, terms int
	f            fields
	p            *Params
}

func (ps *ddParser) eof() bool { return ps.i >= len(ps.rs) }

func (ps *ddParser) skip() {
	for !ps.eof() && unicode.IsSpace(ps.rs[ps.i]) {
		ps.i++
	}
}

// keyword reports whether one of Datadog's operators (AND, OR, NOT, or
// && and ||) stands at the position as a word of its own.
func (ps *ddParser) keyword(words ...string) (string, bool) {
	for _, w := range words {
		n := len(w)
		if ps.i+n > len(ps.rs) || string(ps.rs[ps.i:ps.i+n]) != w {
			continue
		}
		if ps.i+n == len(ps.rs) || unicode.IsSpace(ps.rs[ps.i+n]) || ps.rs[ps.i+n] == '(' || ps.rs[ps.i+n] == ')' {
			return w, true
		}
	}
	return "", false
}

// or, and and unary read the boolean structure around leaves: terms at
// the top, values inside key:( … ).
func (ps *ddParser) or(leaf func() (string, error)) (string, error) {
	first, err := ps.and(leaf)
	if err != nil {
		return "", err
	}
	terms := []string{first}
	for {
		ps.skip()
		w, ok := ps.keyword("OR", "||")
		if !ok {
			break
		}
		ps.i += len(w)
		t, err := ps.and(leaf)
		if err != nil {
			return "", err
		}
		terms = append(terms, t)
	}
	return join(terms, " OR "), nil
}

func (ps *ddParser) and(leaf func() (string, error)) (string, error) {
	first, err := ps.unary(leaf)
	if err != nil {
		return "", err
	}
	terms := []string{first}
	for {
		ps.skip()
		if ps.eof() || ps.rs[ps.i] == ')' {
			break
		}
		if _, ok := ps.keyword("OR", "||"); ok {
			break
		}
		if w, ok := ps.keyword("AND", "&&"); ok {
			ps.i += len(w)
		}
		t, err := ps.unary(leaf)
		if err != nil {
			return "", err
		}
		terms = append(terms, t)
	}
	return join(terms, " AND "), nil
}

func (ps *ddParser) unary(leaf func() (string, error)) (string, error) {
	ps.skip()
	if ps.eof() {
		return "", fmt.Errorf("incomplete expression at the end")
	}
	if ps.depth++; ps.depth > MaxDepth {
		return "", fmt.Errorf("nested deeper than %d levels", MaxDepth)
	}
	defer func() { ps.depth-- }()
	if w, ok := ps.keyword("NOT"); ok {
		ps.i += len(w)
		e, err := ps.unary(leaf)
		return "NOT " + e, err
	}
	if _, ok := ps.keyword("AND", "OR", "&&", "||"); ok {
		return "", fmt.Errorf("unexpected operator at position %d", ps.i)
	}
	switch ps.rs[ps.i] {
	case '-':
		ps.i++
		e, err := ps.unary(leaf)
		return "NOT " + e, err
	case '(':
		open := ps.i
		ps.i++
		e, err := ps.or(leaf)
		if err != nil {
			return "", err
		}
		ps.skip()
		if ps.eof() || ps.rs[ps.i] != ')' {
			return "", fmt.Errorf("missing ) for ( at position %d", open)
		}
		ps.i++
		return e, nil
	case ')':
		return "", fmt.Errorf("unexpected ) at position %d", ps.i)
	}
	if ps.terms++; ps.terms > maxTerms {
		return "", fmt.Errorf("more than %d terms", maxTerms)
	}
	return leaf()
}

// ddValue is a value as typed: its literal text (escapes resolved, quotes
// removed) and, when it holds an unescaped * or ?, its LIKE pattern.
type ddValue struct {
	text, like string
	wild       bool
	pos        int
}

func ddStop(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == ')' }

// value reads one value: a word, "quoted" parts, \-escapes; * and ? are
// wildcards outside quotes.
func (ps *ddParser) value() (ddValue, error) {
	v := ddValue{pos: ps.i}
	var text, like strings.Builder
	lit := func(r rune) {
		text.WriteRune(r)
		switch r {
		case '%', '_', '\\':
			like.WriteByte('\\')
		}
		like.WriteRune(r)
	}
	for !ps.eof() && !ddStop(ps.rs[ps.i]) {
		r := ps.rs[ps.i]
		switch r {
		case '\\':
			if ps.i+1 >= len(ps.rs) {
				return v, fmt.Errorf("the query ends with a backslash, which escapes nothing")
			}
			lit(ps.rs[ps.i+1])
			ps.i += 2
		case '"':
			open := ps.i
			ps.i++
			for !ps.eof() && ps.rs[ps.i] != '"' {
				if ps.rs[ps.i] == '\\' && ps.i+1 < len(ps.rs) {
					ps.i++
				}
				lit(ps.rs[ps.i])
				ps.i++
			}
			if ps.eof() {
				return v, fmt.Errorf("quote at position %d is not closed", open)
			}
			ps.i++
		case '*', '?':
			v.wild = true
			text.WriteRune(r)
			if r == '*' {
				like.WriteByte('%')
			} else {
				like.WriteByte('_')
			}
			ps.i++
		default:
			lit(r)
			ps.i++
		}
	}
	v.text, v.like = text.String(), like.String()
	return v, nil
}

// key reads key: at the position, if a term starts with one; otherwise it
// leaves the position as it was.
func (ps *ddParser) key() (string, bool) {
	start := ps.i
	var b strings.Builder
	for j := ps.i; j < len(ps.rs); j++ {
		r := ps.rs[j]
		switch {
		case r == '\\' && j+1 < len(ps.rs):
			j++
			b.WriteRune(ps.rs[j])
		case r == ':':
			if b.Len() == 0 {
				return "", false
			}
			ps.i = j + 1
			return b.String(), true
		case ddStop(r) || r == '"':
			ps.i = start
			return "", false
		default:
			b.WriteRune(r)
		}
	}
	return "", false
}

// term is one key:value, key:(values), or a bare word or phrase.
func (ps *ddParser) term() (string, error) {
	at := ps.i
	k, ok := ps.key()
	if !ok {
		v, err := ps.value()
		if err != nil {
			return "", err
		}
		if v.text == "" {
			return "", fmt.Errorf("empty term at position %d", at)
		}
		return ps.freeText(v), nil
	}
	tg, err := ps.target(k)
	if err != nil {
		return "", err
	}
	if !ps.eof() && ps.rs[ps.i] == '(' {
		// key:(a OR b): the key applies to every value in the group.
		return ps.unary(func() (string, error) { return ps.keyed(tg, at) })
	}
	return ps.keyed(tg, at)
}

// keyed reads the value of a key (a comparison, a range or a value) and
// writes its condition.
func (ps *ddParser) keyed(tg ddTarget, at int) (string, error) {
	if ps.eof() || ddStop(ps.rs[ps.i]) {
		return "", fmt.Errorf("%s: has no value at position %d", tg.name, at)
	}
	switch ps.rs[ps.i] {
	case '>', '<':
		op := string(ps.rs[ps.i])
		ps.i++
		if !ps.eof() && ps.rs[ps.i] == '=' {
			op += "="
			ps.i++
		}
		v, err := ps.value()
		if err != nil {
			return "", err
		}
		if v.text == "" || v.wild {
			return "", fmt.Errorf("%s:%s needs a value to compare with", tg.name, op)
		}
		return ps.compare(tg, op, v.text)
	case '[', '{':
		return ps.rangeOf(tg)
	}
	v, err := ps.value()
	if err != nil {
		return "", err
	}
	if v.text == "" {
		return "", fmt.Errorf("%s: has no value at position %d", tg.name, at)
	}
	return ps.equal(tg, v), nil
}

// rangeOf reads [a TO b] (inclusive) or {a TO b} (exclusive); * leaves a
// side open.
func (ps *ddParser) rangeOf(tg ddTarget) (string, error) {
	open := ps.i
	closer := ']'
	if ps.rs[ps.i] == '{' {
		closer = '}'
	}
	ps.i++
	var b strings.Builder
	for !ps.eof() && ps.rs[ps.i] != closer {
		if ps.rs[ps.i] == '\\' && ps.i+1 < len(ps.rs) {
			ps.i++
		}
		b.WriteRune(ps.rs[ps.i])
		ps.i++
	}
	if ps.eof() {
		return "", fmt.Errorf("range at position %d is not closed with %c", open, closer)
	}
	ps.i++
	lo, hi, ok := strings.Cut(b.String(), " TO ")
	lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
	if !ok || lo == "" || hi == "" {
		return "", fmt.Errorf("range at position %d needs the form [a TO b]", open)
	}
	geq, leq := ">=", "<="
	if closer == '}' {
		geq, leq = ">", "<"
	}
	var parts []string
	for _, side := range [][2]string{{geq, lo}, {leq, hi}} {
		if side[1] == "*" {
			continue
		}
		c, err := ps.compare(tg, side[0], side[1])
		if err != nil {
			return "", err
		}
		parts = append(parts, c)
	}
	if len(parts) == 0 {
		return ps.exists(tg), nil
	}
	// Bracketed: -key:[a TO b] negates the whole range.
	return "(" + strings.Join(parts, " AND ") + ")", nil
}

// ddTarget is what a key names: one or more places to look, in order (a
// later one is read only where the earlier ones lack the key), and how
// its values compare.
type ddTarget struct {
	name string
	alts []ddAlt
	kind ddKind
	// numeric: a number column; duration: values may carry a time unit
	// and are nanoseconds.
	numeric, duration bool
}

// ddAlt is one place: expr, read where present holds ("" for a column,
// always there). guard, when set, is a condition a skip index can check
// that holds wherever present does: a JSON member is only read in rows
// whose map has the object's key, so the whole alternation keeps the
// maps' skip indexes (a condition on JSON alone would read every granule).
type ddAlt struct{ present, expr, guard string }

type ddKind int

const (
	ddPlain ddKind = iota
	ddMessage
	ddLogStatus
	ddSpanStatus
	ddTraceID
	ddAll
)

// spanName is a trace source's span name role; on other sources, a
// SpanName column if the table has one.
func (ps *ddParser) spanName() string {
	if ps.isTrace() {
		return cmp.Or(ps.f.s.BodyColumn, "SpanName")
	}
	return "SpanName"
}

// role is a role expression of the source (a column, or the checked
// expression it stands for).
func (ps *ddParser) role(text string) (ddAlt, bool, bool) {
	r, ok := ps.f.role(text)
	return ddAlt{expr: r.expr}, r.numeric, ok
}

// mapAlt is map[key] where the map has the key.
func (ps *ddParser) mapAlt(mapCol, key string) (ddAlt, bool) {
	m, _, ok := ps.f.column(mapCol)
	if !ok || mapCol == "" {
		return ddAlt{}, false
	}
	k := ps.p.Add(key, "String")
	return ddAlt{present: "mapContains(" + m + ", " + k + ")", expr: m + "[" + k + "]"}, true
}

// jsonAlts are the places a dotted key can be inside a JSON object stored
// under one of its prefixes, the longest prefix first.
func (ps *ddParser) jsonAlts(mapCol, key string) []ddAlt {
	m, _, ok := ps.f.column(mapCol)
	parts := strings.Split(key, ".")
	if !ok || mapCol == "" || len(parts) < 2 || len(parts) > maxJSONDepth+1 {
		return nil
	}
	var out []ddAlt
	for n := len(parts) - 1; n >= 1; n-- {
		prefix := ps.p.Add(strings.Join(parts[:n], "."), "String")
		obj := m + "[" + prefix + "]"
		path := make([]string, 0, len(parts)-n)
		for _, p := range parts[n:] {
			path = append(path, ps.p.Add(p, "String"))
		}
		args := obj + ", " + strings.Join(path, ", ")
		// A string member is its text; a number or bool its JSON
		// (500, true), as a flat attribute would hold it. (34 is
		// JSONType's String, the code of its '"'.)
		out = append(out, ddAlt{
			guard:   "mapContains(" + m + ", " + prefix + ")",
			present: "JSONHas(" + args + ")",
			expr:    "if(toInt8(JSONType(" + args + ")) = 34, JSONExtractString(" + args + "), JSONExtractRaw(" + args + "))",
		})
	}
	return out
}

// attribute is @key: the record's attributes, nested JSON in them, then
// the resource's.
func (ps *ddParser) attribute(key string) []ddAlt {
	var alts []ddAlt
	if a, ok := ps.mapAlt(ps.f.s.AttributesMap, key); ok {
		alts = append(alts, a)
	}
	alts = append(alts, ps.jsonAlts(ps.f.s.AttributesMap, key)...)
	if a, ok := ps.mapAlt(ps.f.s.ResourceMap, key); ok {
		alts = append(alts, a)
	}
	return alts
}

func (ps *ddParser) isTrace() bool { return ps.f.s.SeverityColumn == "" && ps.f.s.Duration != "" }

// target resolves a key.
func (ps *ddParser) target(key string) (ddTarget, error) {
	tg := ddTarget{name: key}
	if err := CheckField(key); err != nil {
		return tg, err
	}
	if attr, ok := strings.CutPrefix(key, "@"); ok {
		if attr == "" {
			return tg, fmt.Errorf("@ names no attribute")
		}
		tg.duration = attr == "duration"
		if tg.duration && ps.isTrace() {
			if a, num, ok := ps.role(ps.f.s.Duration); ok {
				// Datadog's @duration is nanoseconds.
				a.expr = ps.f.s.Nanoseconds(a.expr)
				tg.alts, tg.numeric = []ddAlt{a}, num
				return tg, nil
			}
		}
		tg.alts = ps.attribute(attr)
		if len(tg.alts) == 0 {
			return tg, fmt.Errorf("this source has no attributes to search for %s", key)
		}
		return tg, nil
	}
	column := func(name string, kind ddKind) (ddTarget, bool) {
		a, num, ok := ps.role(name)
		if ok && name != "" {
			tg.alts, tg.numeric, tg.kind = []ddAlt{a}, num, kind
		}
		return tg, ok && name != ""
	}
	resource := func(keys ...string) (ddTarget, error) {
		for _, k := range keys {
			if a, ok := ps.mapAlt(ps.f.s.ResourceMap, k); ok {
				tg.alts = append(tg.alts, a)
			}
		}
		tg.alts = append(tg.alts, ps.attribute(key)...)
		if len(tg.alts) == 0 {
			return tg, fmt.Errorf("this source has no %s", key)
		}
		return tg, nil
	}
	switch key {
	case "*":
		tg.kind = ddAll
		return tg, nil
	case "service":
		if t, ok := column(ps.f.s.ServiceColumn, ddPlain); ok {
			return t, nil
		}
		return resource("service.name")
	case "status":
		if ps.isTrace() {
			if t, ok := column(cmp.Or(ps.f.s.StatusCode, "StatusCode"), ddSpanStatus); ok {
				return t, nil
			}
		} else if t, ok := column(ps.f.s.SeverityColumn, ddLogStatus); ok {
			return t, nil
		}
		// A metric's status is one of its tags (an HTTP client's
		// request count by {status}), not a severity.
		if tg.alts = ps.attribute(key); len(tg.alts) > 0 {
			return tg, nil
		}
		return tg, fmt.Errorf("this source has no status")
	case "trace_id":
		if t, ok := column(cmp.Or(ps.f.s.TraceID, "TraceId"), ddTraceID); ok {
			return t, nil
		}
		return tg, fmt.Errorf("this source has no trace_id")
	case "message":
		if t, ok := column(ps.f.s.BodyColumn, ddMessage); ok {
			return t, nil
		}
		return tg, fmt.Errorf("this source has no message")
	case "operation_name":
		if t, ok := column(ps.spanName(), ddPlain); ok {
			return t, nil
		}
	case "resource_name":
		return resource("resource.name")
	case "env":
		return resource("deployment.environment.name", "deployment.environment")
	}
	if otel, ok := ddTags[key]; ok {
		return resource(otel)
	}
	if t, ok := column(key, ddPlain); ok {
		return t, nil
	}
	// Any other tag: a record attribute, else a resource attribute.
	tg.alts = ps.attribute(key)
	if len(tg.alts) == 0 {
		return tg, fmt.Errorf("unknown key %q", key)
	}
	return tg, nil
}

// either writes the alternatives' conditions: the first place that has
// the key decides.
func either(alts []ddAlt, cond func(expr string) string) string {
	out := ""
	for i := len(alts) - 1; i >= 0; i-- {
		c := cond(alts[i].expr)
		if alts[i].guard != "" {
			c = "(" + alts[i].guard + " AND " + c + ")"
		}
		switch {
		case out == "":
			out = c
		case alts[i].present == "":
			// A column is always there: what follows is never read.
			out = c
		default:
			out = "(" + c + " OR (NOT " + alts[i].present + " AND " + out + "))"
		}
	}
	if out == "" {
		return "0"
	}
	return out
}

func (ps *ddParser) exists(tg ddTarget) string {
	var ors []string
	for _, a := range tg.alts {
		if a.present == "" {
			ors = append(ors, "notEmpty(toString("+a.expr+"))")
		} else {
			ors = append(ors, a.present)
		}
	}
	if len(ors) == 0 {
		return "1"
	}
	return join(ors, " OR ")
}

func (ps *ddParser) freeText(v ddValue) string {
	return ps.textIn(ps.f.Body(), v)
}

// textIn is a case-insensitive search for v in a String expression.
func (ps *ddParser) textIn(expr string, v ddValue) string {
	if v.wild {
		if strings.Trim(v.like, "%") == "" {
			return "1"
		}
		return expr + " ILIKE " + ps.p.Add("%"+v.like+"%", "String")
	}
	return "positionCaseInsensitiveUTF8(" + expr + ", " + ps.p.Add(v.text, "String") + ") > 0"
}

// equal writes key:value.
func (ps *ddParser) equal(tg ddTarget, v ddValue) string {
	if v.text == "*" && v.wild {
		if tg.kind == ddAll {
			return "1"
		}
		return ps.exists(tg)
	}
	switch tg.kind {
	case ddAll:
		// *:term: the message or any attribute value.
		body := ps.freeText(v)
		m, _, ok := ps.f.column(ps.f.s.AttributesMap)
		if !ok || ps.f.s.AttributesMap == "" {
			return body
		}
		return "(" + body + " OR arrayExists(x -> " + ps.textIn("x", v) + ", mapValues(" + m + ")))"
	case ddMessage:
		return ps.textIn(tg.alts[0].expr, v)
	case ddLogStatus:
		return ps.logStatus(tg.alts[0].expr, v)
	case ddSpanStatus:
		return ps.spanStatus(tg.alts[0].expr, v)
	case ddTraceID:
		if !v.wild {
			return ps.traceID(tg.alts[0].expr, v.text)
		}
	}
	return either(tg.alts, func(expr string) string {
		switch {
		case v.wild:
			if tg.numeric {
				expr = "toString(" + expr + ")"
			}
			return expr + " LIKE " + ps.p.Add(v.like, "String")
		case tg.numeric:
			if n, ok := ps.number(tg, v.text); ok {
				return expr + " = " + ps.p.Add(n, "Float64")
			}
			return "toString(" + expr + ") = " + ps.p.Add(v.text, "String")
		}
		return expr + " = " + ps.p.Add(v.text, "String")
	})
}

// number reads a value as a number; a duration may carry a unit (ns, us,
// µs, ms, s, m, h) and is nanoseconds.
func (ps *ddParser) number(tg ddTarget, v string) (string, bool) {
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return v, true
	}
	if !tg.duration {
		return "", false
	}
	for _, u := range []struct {
		suffix string
		ns     float64
	}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			if f, err := strconv.ParseFloat(n, 64); err == nil && !math.IsInf(f*u.ns, 0) && !math.IsNaN(f) {
				return strconv.FormatFloat(f*u.ns, 'f', -1, 64), true
			}
		}
	}
	return "", false
}

// compare writes key:>v (>=, <, <=): numbers compare as numbers, other
// values as strings.
func (ps *ddParser) compare(tg ddTarget, op, v string) (string, error) {
	if tg.kind == ddAll || tg.kind == ddMessage {
		return "", fmt.Errorf("%s cannot be compared with %s", tg.name, op)
	}
	if n, ok := ps.number(tg, v); ok {
		return either(tg.alts, func(expr string) string {
			if tg.numeric {
				return expr + " " + op + " " + ps.p.Add(n, "Float64")
			}
			return "toFloat64OrNull(" + expr + ") " + op + " " + ps.p.Add(n, "Float64")
		}), nil
	}
	if tg.numeric {
		return "", fmt.Errorf("%s is a number; %q is not", tg.name, v)
	}
	return either(tg.alts, func(expr string) string {
		return "toString(" + expr + ") " + op + " " + ps.p.Add(v, "String")
	}), nil
}

// logStatus is status:v on logs. A SeverityText that is one of the known
// names (any case) says the status; a record whose text is none of them
// (empty, or an SDK's own word) is judged by its SeverityNumber, so
// status:warn finds an Agent's warn, an SDK's WARNING and a record with
// only the number 13.
func (ps *ddParser) logStatus(expr string, v ddValue) string {
	low := "lower(" + expr + ")"
	if v.wild {
		return expr + " ILIKE " + ps.p.Add(v.like, "String")
	}
	i, ok := ddStatus(v.text)
	if !ok {
		return low + " = " + ps.p.Add(strings.ToLower(v.text), "String")
	}
	s := ddStatuses[i]
	cond := low + " IN (" + ps.list(append([]string{s.name}, s.aliases...)) + ")"
	num, _, hasNum := ps.f.column("SeverityNumber")
	if !hasNum || len(s.numbers) == 0 {
		return cond
	}
	var all []string
	for _, o := range ddStatuses {
		all = append(all, o.name)
		all = append(all, o.aliases...)
	}
	nums := make([]string, len(s.numbers))
	for j, n := range s.numbers {
		nums[j] = strconv.Itoa(n)
	}
	return "(" + cond + " OR (" + low + " NOT IN (" + ps.list(all) + ") AND " + num + " IN (" + strings.Join(nums, ", ") + ")))"
}

func (ps *ddParser) list(vs []string) string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, ps.p.Add(v, "String"))
		}
	}
	return strings.Join(out, ", ")
}

// spanStatus is status:error or status:ok on spans (OTel's Error, and
// everything else).
func (ps *ddParser) spanStatus(expr string, v ddValue) string {
	if v.wild {
		return expr + " ILIKE " + ps.p.Add(v.like, "String")
	}
	isErr := func() string {
		return "lower(" + expr + ") IN (" + ps.list([]string{"error", "status_code_error"}) + ")"
	}
	switch strings.ToLower(v.text) {
	case "error":
		return isErr()
	case "ok":
		return "NOT " + isErr()
	}
	return "lower(" + expr + ") = " + ps.p.Add(strings.ToLower(v.text), "String")
}

// traceID matches Datadog's decimal 64-bit id on the low half of the
// stored hex id, and a hex id as it is stored (lowercase).
func (ps *ddParser) traceID(expr, v string) string {
	if n, err := strconv.ParseUint(v, 10, 64); err == nil && len(v) < 21 {
		return "right(" + expr + ", 16) = " + ps.p.Add(fmt.Sprintf("%016x", n), "String")
	}
	return expr + " = " + ps.p.Add(strings.ToLower(v), "String")
}
