package metrics

import (
	"encoding/binary"
	"hash/maphash"

	"go.opentelemetry.io/collector/pdata/pmetric"
)

// groups finds the resource and the metric a series goes to. Go maps keyed
// by the resource key and by metricKey hashed each key twice (lookup, then
// insert) and copied every new resource key to a string: a seventh of a
// series payload's translation, where the corpus makes a resource for
// every third point. Here each key is hashed once, with a per-process
// seed so that no body can choose keys that collide, and resource keys are
// kept in one buffer. A hash names the newest entry with it; entries with
// the same hash are chained, and every candidate's key is compared, so a
// collision costs a comparison, never a wrong group.
type groups struct {
	seed      maphash.Seed
	resByHash map[uint64]int32
	resources []resource
	resKeys   []byte // every resource's key, one after another
	metByHash map[uint64]int32
	metrics   []groupedMetric
	scratch   []byte // a metric key, encoded to hash it
}

// resource is a ResourceMetrics' metrics, found by its key.
type resource struct {
	keyStart, keyEnd int
	next             int32 // the previous resource with the same hash, or -1
	metrics          pmetric.MetricSlice
}

type metricKey struct {
	res        int // the resource's index: cheaper to hash than its key
	name, unit string
	typ        Type
	interval   int64
}

type groupedMetric struct {
	key  metricKey
	next int32 // the previous metric with the same hash, or -1
	m    pmetric.Metric
}

func newGroups() groups {
	return groups{seed: maphash.MakeSeed(), resByHash: map[uint64]int32{}, metByHash: map[uint64]int32{}}
}

// resource returns the index of the resource with key k and whether there
// is one; hash is k's, for addResource.
func (g *groups) resource(k []byte) (i int, hash uint64, ok bool) {
	hash = maphash.Bytes(g.seed, k)
	j, ok := g.resByHash[hash]
	if !ok {
		return 0, hash, false
	}
	for ; j >= 0; j = g.resources[j].next {
		r := &g.resources[j]
		if string(g.resKeys[r.keyStart:r.keyEnd]) == string(k) {
			return int(j), hash, true
		}
	}
	return 0, hash, false
}

// addResource records a new resource with key k (of hash hash) and returns
// its index.
func (g *groups) addResource(k []byte, hash uint64, metrics pmetric.MetricSlice) int {
	next, ok := g.resByHash[hash]
	if !ok {
		next = -1
	}
	start := len(g.resKeys)
	g.resKeys = append(g.resKeys, k...)
	i := len(g.resources)
	g.resources = append(g.resources, resource{keyStart: start, keyEnd: len(g.resKeys), next: next, metrics: metrics})
	g.resByHash[hash] = int32(i) //nolint:gosec // a request holds far fewer than 2³¹ resources: each takes budget
	return i
}

// metric returns the metric with key k, if there is one, and k's hash for
// addMetric.
func (g *groups) metric(k metricKey) (m pmetric.Metric, hash uint64, ok bool) {
	// Lengths first, so that no two keys encode alike.
	b := binary.LittleEndian.AppendUint32(g.scratch[:0], uint32(len(k.name))) //nolint:gosec // a length
	b = append(b, k.name...)
	b = append(b, k.unit...)
	b = binary.LittleEndian.AppendUint64(b, uint64(k.res))      //nolint:gosec // bits to hash
	b = binary.LittleEndian.AppendUint64(b, uint64(k.typ))      //nolint:gosec // bits to hash
	b = binary.LittleEndian.AppendUint64(b, uint64(k.interval)) //nolint:gosec // bits to hash
	g.scratch = b
	hash = maphash.Bytes(g.seed, b)
	j, ok := g.metByHash[hash]
	if !ok {
		return pmetric.Metric{}, hash, false
	}
	for ; j >= 0; j = g.metrics[j].next {
		if g.metrics[j].key == k {
			return g.metrics[j].m, hash, true
		}
	}
	return pmetric.Metric{}, hash, false
}

// addMetric records a new metric with key k (of hash hash).
func (g *groups) addMetric(k metricKey, hash uint64, m pmetric.Metric) {
	next, ok := g.metByHash[hash]
	if !ok {
		next = -1
	}
	g.metByHash[hash] = int32(len(g.metrics)) //nolint:gosec // a request holds far fewer than 2³¹ metrics: each takes budget
	g.metrics = append(g.metrics, groupedMetric{key: k, next: next, m: m})
}

// keepAtMost is the room, in entries, that groups keep for the next
// request; a request that needed more has its room dropped, so that one
// large body does not pin its index for the life of the process.
const keepAtMost = 1 << 14

// reset forgets every group, keeping the room of a usual request.
func (g *groups) reset() {
	clear(g.resByHash)
	clear(g.metByHash)
	clear(g.resources)
	clear(g.metrics)
	g.resources, g.metrics, g.resKeys = g.resources[:0], g.metrics[:0], g.resKeys[:0]
	if cap(g.resources) > keepAtMost || cap(g.metrics) > keepAtMost || cap(g.resKeys) > 64*keepAtMost {
		g.resources, g.metrics, g.resKeys = nil, nil, nil
		g.resByHash, g.metByHash = map[uint64]int32{}, map[uint64]int32{}
	}
}
