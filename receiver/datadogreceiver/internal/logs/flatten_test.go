package logs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Nested objects become dotted keys, as Datadog addresses them
// (@http.status_code): top-level, inside a JSON message (read in place,
// its quotes escaped, and unescaped when it holds other escapes), and in
// the extra members of a log-injection "dd" object. Arrays, scalars and
// empty objects are kept as values; nothing is dropped.
func TestNestedAttributesAreFlattened(t *testing.T) {
	want := map[string]any{
		"http.method": "GET", "http.status_code": int64(500), "http.url_details.path": "/api/x",
		"http.url_details.queryString.page": "2", "http.ok": false, "http.ratio": 0.5, "http.none": nil,
		"usr.id": "42", "usr.roles": []any{"admin", map[string]any{"scope": "all"}}, "usr.prefs": map[string]any{},
		"plain": "v",
	}
	nested := `{"http":{"method":"GET","status_code":500,"url_details":{"path":"/api/x","queryString":{"page":"2"}},"ok":false,"ratio":0.5,"none":null},` +
		`"usr":{"id":"42","roles":["admin",{"scope":"all"}],"prefs":{}},"plain":"v"}`
	top := `{"message":"m",` + nested[1:]
	lr, _ := one(t, on, top, Defaults{})
	assert.Equal(t, want, lr.Attributes().AsRaw(), "top level")

	msg := strings.ReplaceAll(`{"msg":"m",`+nested[1:], `"`, `\"`)
	lr, _ = one(t, on, `{"message":"`+msg+`"}`, Defaults{})
	assert.Equal(t, want, lr.Attributes().AsRaw(), "in a JSON message, read in place")

	// An escape other than \" makes the message unescaped first.
	msg = strings.ReplaceAll(`{"msg":"a\\nb","http":{"method":"G\\u0045T","path":"/x"}}`, `"`, `\"`)
	lr, _ = one(t, on, `{"message":"`+msg+`"}`, Defaults{})
	assert.Equal(t, map[string]any{"http.method": "GET", "http.path": "/x"}, lr.Attributes().AsRaw(), "unescaped message")
	assert.Equal(t, "a\nb", lr.Body().Str())

	lr, _ = one(t, on, `{"message":"m","dd":{"trace_id":"1","extra":{"a":{"b":1}}}}`, Defaults{})
	assert.Equal(t, map[string]any{"dd.extra.a.b": int64(1)}, lr.Attributes().AsRaw(), "a dd object's extra members")

	// A dotted key written flat and the same path nested are one
	// attribute: the later in the document wins, as for a repeated key.
	lr, _ = one(t, on, `{"message":"m","http.method":"POST","http":{"method":"GET"}}`, Defaults{})
	assert.Equal(t, map[string]any{"http.method": "GET"}, lr.Attributes().AsRaw())

	// With decode_json_message off a message is text, and its nested
	// objects are not attributes.
	lr, _ = one(t, Translator{}, `{"message":"{\"a\":{\"b\":1}}","c":{"d":2}}`, Defaults{})
	assert.Equal(t, map[string]any{"c.d": int64(2)}, lr.Attributes().AsRaw())
}

// Datadog's bounds: keys of at most maxFlatDepth levels, records of at
// most maxFlatKeys attributes. What is past them is kept as one map value
// (stored as its JSON text), under the dotted key that leads to it.
func TestFlatteningIsBounded(t *testing.T) {
	deep := `{"l10":{"l11":"v"}}`
	for i := 9; i >= 2; i-- {
		deep = fmt.Sprintf(`{"l%d":%s}`, i, deep)
	}
	lr, _ := one(t, on, `{"message":"m","l1":`+deep+`,"ten":{"l2":{"l3":{"l4":{"l5":{"l6":{"l7":{"l8":{"l9":{"l10":1}}}}}}}}}}`, Defaults{})
	assert.Equal(t, map[string]any{
		"l1.l2.l3.l4.l5.l6.l7.l8.l9.l10":  map[string]any{"l11": "v"},
		"ten.l2.l3.l4.l5.l6.l7.l8.l9.l10": int64(1),
	}, lr.Attributes().AsRaw())

	// An object whose keys would take the record past maxFlatKeys stays
	// one map; a smaller one after it still fits and is flattened.
	obj := func(n int) string {
		var sb strings.Builder
		sb.WriteByte('{')
		for i := range n {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `"k%d":{"v":%d}`, i, i)
		}
		return sb.String() + "}"
	}
	lr, _ = one(t, on, `{"message":"m","a":1,"big":`+obj(maxFlatKeys)+`,"small":`+obj(maxFlatKeys-3)+`,"z":2}`, Defaults{})
	attrs := lr.Attributes().AsRaw()
	assert.Len(t, attrs, maxFlatKeys, "a, big, small's keys, z")
	assert.Len(t, attrs["big"], maxFlatKeys)
	assert.Equal(t, int64(3), attrs["small.k3.v"])
	assert.Equal(t, int64(2), attrs["z"])

	// Exactly at the bound it is flattened: the record has maxFlatKeys.
	lr, _ = one(t, on, `{"message":"m","a":1,"big":`+obj(maxFlatKeys-1)+`}`, Defaults{})
	assert.Equal(t, maxFlatKeys, lr.Attributes().Len())

	// Tags count too: a record with a tag has room for one key less.
	lr, _ = one(t, on, `{"message":"m","ddtags":"team:x","a":1,"big":`+obj(maxFlatKeys-1)+`}`, Defaults{})
	assert.Equal(t, 3, lr.Attributes().Len(), "team, a, big as one map")
}
