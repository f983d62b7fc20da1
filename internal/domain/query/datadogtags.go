package query

import (
	"fmt"
	"strings"
	"unicode"
)

// A Datadog metric query (avg:system.cpu.user{host:web-1} by {host})
// filters and groups by tags; its tags resolve as the Datadog where
// language resolves a key, so host: means the same in a log search and
// on a metric chart. The metric query itself is parsed and run by charts.

// TagFilter is a metric query's tag filter: a leaf Key:Value (or a bare
// tag, Value ""), a leaf Key:(Values...) (IsList), or an operation ("and",
// "or", "not") on Parts.
type TagFilter struct {
	Op         string // "leaf", "and", "or", "not"
	Key, Value string
	Parts      []*TagFilter
	IsList     bool
	Values     []string
}

// TagFilter writes f as a condition on the scope's table, its values
// bound in p; a tag it cannot resolve is an Error.
func (s *Scope) TagFilter(f *TagFilter, p *Params) (string, error) {
	c, err := filterSQL(f, &ddParser{f: s.f, p: p})
	if err != nil {
		return "", Error{err}
	}
	return c, nil
}

// TagValue is the value of a tag (a leading @ ignored) as a String
// expression to group by: the first place holding the tag gives it, ”
// when none does.
func (s *Scope) TagValue(tag string, p *Params) (string, error) {
	ps := &ddParser{f: s.f, p: p}
	tg, err := ps.target(strings.TrimPrefix(tag, "@"))
	if err != nil {
		return "", Error{err}
	}
	g := "''"
	for i := len(tg.alts) - 1; i >= 0; i-- {
		a := tg.alts[i]
		if a.present == "" {
			g = "toString(" + a.expr + ")"
		} else {
			g = "if(" + a.present + ", toString(" + a.expr + "), " + g + ")"
		}
	}
	return g, nil
}

// ddLiteral is a tag value as typed: * and ? are wildcards.
func ddLiteral(s string) ddValue {
	v := ddValue{text: s}
	var like strings.Builder
	for _, r := range s {
		switch r {
		case '*':
			v.wild = true
			like.WriteByte('%')
		case '?':
			v.wild = true
			like.WriteByte('_')
		case '%', '_', '\\':
			like.WriteByte('\\')
			like.WriteRune(r)
		default:
			like.WriteRune(r)
		}
	}
	v.like = like.String()
	return v
}

// filterSQL writes a tag filter with the Datadog where language's tag
// resolution on the metric table.
func filterSQL(f *TagFilter, ps *ddParser) (string, error) {
	switch f.Op {
	case "not":
		c, err := filterSQL(f.Parts[0], ps)
		return "NOT " + c, err
	case "and", "or":
		var cs []string
		for _, p := range f.Parts {
			c, err := filterSQL(p, ps)
			if err != nil {
				return "", err
			}
			cs = append(cs, c)
		}
		return join(cs, " "+strings.ToUpper(f.Op)+" "), nil
	}
	key := f.Key
	if k, ok := strings.CutPrefix(key, "@"); ok {
		key = k
	}
	if strings.IndexFunc(key, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("tag %q has a control character", key)
	}
	tg, err := ps.target(key)
	if err != nil {
		return "", err
	}
	if f.IsList {
		var cs []string
		for _, v := range f.Values {
			cs = append(cs, ps.equal(tg, ddLiteral(v)))
		}
		return join(cs, " OR "), nil
	}
	if f.Value == "" {
		return ps.exists(tg), nil
	}
	return ps.equal(tg, ddLiteral(f.Value)), nil
}

// datadogNames is ddTags the other way: the Datadog tag a metric query
// names an OpenTelemetry resource key by. Of several aliases of one key
// (zone, availability_zone), the longest without a dash: Datadog's own.
var datadogNames = func() map[string]string {
	out := map[string]string{}
	for dd, otel := range ddTags {
		if strings.Contains(dd, "-") {
			continue
		}
		if cur, ok := out[otel]; !ok || len(dd) > len(cur) || len(dd) == len(cur) && dd < cur {
			out[otel] = dd
		}
	}
	return out
}()

// DatadogTag is the Datadog tag naming an OpenTelemetry resource key
// (host for host.name), if it has one.
func DatadogTag(otelKey string) (string, bool) {
	t, ok := datadogNames[otelKey]
	return t, ok
}
