// Package attrmap fills attribute maps in time linear in their size.
//
// pcommon.Map's Put methods search the map before appending, so n puts
// cost n²/2 key comparisons: a span with 50,000 tags took seconds, and one
// as large as a body may be would take hours. A Writer puts entries
// directly, as pdata does, while the map is small, and gathers the rest to
// write them in one pass.
package attrmap

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/tags"
)

// direct is the size up to which a map is filled through pdata's own Put:
// what almost every map holds, so the usual path is unchanged.
const direct = 64

// Reserve makes room in m for n entries, up to the size a Writer fills
// directly: past it, Flush builds the map anew and room reserved is lost.
func Reserve(m pcommon.Map, n int) { m.EnsureCapacity(min(n, direct)) }

// Writer puts entries into one map; Flush must be called before the map
// is read again. The last value put under a key wins, as with pcommon.Map.
type Writer struct {
	m pcommon.Map
	// Once the map is large: its entries until then, and the keys put
	// since, in order, with their values.
	old   map[string]pcommon.Value
	oldM  pcommon.Map
	index map[string]int
	keys  []string
	vals  []pcommon.Value
}

// NewWriter returns a Writer adding to m.
func NewWriter(m pcommon.Map) Writer { return Writer{m: m} }

// Put returns the value to fill for key k.
func (w *Writer) Put(k string) pcommon.Value {
	if w.index == nil {
		if w.m.Len() < direct {
			return w.m.PutEmpty(k)
		}
		w.gather()
	}
	i, ok := w.index[k]
	if !ok {
		i = len(w.keys)
		w.index[k] = i
		w.keys = append(w.keys, k)
		w.vals = append(w.vals, pcommon.Value{})
	}
	w.vals[i] = pcommon.NewValueEmpty()
	return w.vals[i]
}

// gather sets the map's entries aside, indexed, so that later puts need
// no search.
func (w *Writer) gather() {
	w.oldM = pcommon.NewMap()
	w.m.MoveTo(w.oldM)
	w.old = make(map[string]pcommon.Value, w.oldM.Len())
	for k, v := range w.oldM.All() {
		w.old[k] = v
	}
	w.index = make(map[string]int)
}

// PutStr puts a string.
func (w *Writer) PutStr(k, v string) { w.Put(k).SetStr(v) }

// AddTag adds a tag's value: a key seen again keeps every value, in
// order, as one slice (Datadog tags are multi-valued, not last-wins).
func (w *Writer) AddTag(k, v string) {
	if w.index == nil && w.m.Len() < direct {
		// One search of the map, where get and then Put made two: a
		// resource's tags were a sixth of a series payload's translation.
		cur, found := w.m.GetOrPutEmpty(k)
		if found {
			tags.AddValue(cur, v)
		} else {
			cur.SetStr(v)
		}
		return
	}
	if cur, ok := w.get(k); ok {
		tags.AddValue(cur, v)
		return
	}
	w.PutStr(k, v)
}

func (w *Writer) get(k string) (pcommon.Value, bool) {
	if w.index == nil {
		return w.m.Get(k)
	}
	if i, ok := w.index[k]; ok {
		return w.vals[i], true
	}
	if ov, ok := w.old[k]; ok {
		v := w.Put(k)
		ov.CopyTo(v)
		return v, true
	}
	return pcommon.Value{}, false
}

// Flush writes the gathered entries.
func (w *Writer) Flush() {
	if w.index == nil {
		return
	}
	// FromRaw is the one pdata call that builds a map without searching
	// it: it makes every entry (empty), then one pass sets the values.
	raw := make(map[string]any, len(w.old)+len(w.keys))
	for k := range w.old {
		raw[k] = nil
	}
	for _, k := range w.keys {
		raw[k] = nil
	}
	_ = w.m.FromRaw(raw)
	for k, v := range w.m.All() {
		if i, ok := w.index[k]; ok {
			w.vals[i].CopyTo(v)
		} else {
			w.old[k].CopyTo(v)
		}
	}
	*w = Writer{m: w.m}
}
