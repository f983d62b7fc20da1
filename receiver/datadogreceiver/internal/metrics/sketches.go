package metrics

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/DataDog/agent-payload/v5/gogen"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/otelhouse/otelhouse/internal/runtime/budget"
	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/pbwire"
)

// Sketches translates the SketchPayload protobuf of /api/beta/sketches
// (and /api/v1/sketches) into delta exponential histograms: count, sum,
// min, max and every bin of each Agent DDSketch.
//
// It reads the wire by the generated decoder's rules (pbwire), not into
// gogo's structs: a sketch's keys and counts, its tags and the structs
// were three allocations in five of the translation. It accepts and
// refuses what gogen.SketchPayload.Unmarshal does, and yields what that
// then translated to (an equivalence test and fuzz target hold it).
func Sketches(body []byte, bud *budget.Budget) (pmetric.Metrics, error) {
	if err := bud.Proto(payloadDescriptor("SketchPayload"), body); err != nil {
		return pmetric.Metrics{}, err
	}
	d := sketchDecoders.Get().(*sketchDecoder)
	d.b = newBuilder(bud)
	defer d.release()
	r := pbwire.NewReader(body)
	for n := 0; r.Next(); {
		switch r.Num {
		case sketchPayloadSketches:
			if v := r.Bytes(); r.Err() == nil {
				r.Fail(d.sketch(n, v))
				n++
			}
		case sketchPayloadMetadata:
			// Not translated, but read as the generated decoder reads it,
			// so that what it refuses is refused.
			if v := r.Bytes(); r.Err() == nil {
				var cm gogen.CommonMetadata
				r.Fail(cm.Unmarshal(v))
			}
		default:
			r.Skip()
		}
	}
	if err := r.Err(); err != nil {
		return pmetric.Metrics{}, fmt.Errorf("decoding SketchPayload protobuf: %w", err)
	}
	if d.invalid != nil {
		return pmetric.Metrics{}, d.invalid
	}
	return d.b.result()
}

// sketchDecoder reads one SketchPayload, a sketch at a time.
type sketchDecoder struct {
	b *builder
	// The sketch being read: its tags, origin and dogsketches, whose keys
	// and counts lie in keys and counts.
	tags           []string
	origin         origin
	dogs           []wireDogsketch
	keys, counts   []uint64
	bins           []bin
	legacy         int // GK-sketch distributions
	name, hostname string
	// invalid is why the first invalid sketch is (no name, legacy
	// distributions only, keys and counts apart): the rest is still read,
	// as the generated decoder reads the whole body first, then refused.
	invalid error
	// done: nothing more is built, as the sketch was invalid or the budget
	// ran out.
	done bool
}

// wireDogsketch is a Dogsketch as read; its keys and counts are
// keys[k0:k1] and counts[n0:n1].
type wireDogsketch struct {
	ts, cnt        int64
	min, max, sum  float64
	k0, k1, n0, n1 int
}

var sketchDecoders = sync.Pool{New: func() any { return &sketchDecoder{} }}

// keepBins is the most keys and counts whose room a pooled decoder keeps:
// an Agent's sketch holds a few hundred bins (4,096 at most).
const keepBins = 1 << 14

// release clears what the decoder holds of the request and pools it.
func (d *sketchDecoder) release() {
	d.b.release()
	d.b = nil
	d.invalid, d.done = nil, false
	clear(d.tags)
	if cap(d.keys)+cap(d.counts) > keepBins {
		d.keys, d.counts, d.bins = nil, nil, nil // one large sketch does not pin its room in the pool
	}
	sketchDecoders.Put(d)
}

// sketch reads sketch i and builds it, unless nothing more is built. It
// returns only the wire's errors.
func (d *sketchDecoder) sketch(i int, b []byte) error {
	d.tags, d.dogs, d.keys, d.counts = d.tags[:0], d.dogs[:0], d.keys[:0], d.counts[:0]
	d.name, d.hostname, d.legacy, d.origin = "", "", 0, origin{}
	hasOrigin := false
	r := pbwire.NewReader(b)
	for r.Next() {
		switch r.Num {
		case sketchMetric, sketchHost, sketchTags, sketchDistributions, sketchDogsketches, sketchMetadata:
			v := r.Bytes()
			if r.Err() != nil {
				return r.Err()
			}
			switch r.Num {
			case sketchMetric:
				d.name = d.b.strs.String(v)
			case sketchHost:
				d.hostname = d.b.strs.String(v)
			case sketchTags:
				d.tags = append(d.tags, d.b.strs.String(v))
			case sketchDistributions:
				var dist gogen.SketchPayload_Sketch_Distribution
				r.Fail(dist.Unmarshal(v))
				d.legacy++
			case sketchDogsketches:
				r.Fail(d.dogsketch(v))
			case sketchMetadata:
				r.Fail(metadata(v, &d.origin, &hasOrigin))
			}
		default:
			r.Skip()
		}
	}
	if r.Err() != nil || d.done {
		return r.Err()
	}
	d.build(i, hasOrigin)
	return nil
}

// dogsketch reads a Dogsketch onto d.dogs.
func (d *sketchDecoder) dogsketch(b []byte) error {
	g := wireDogsketch{k0: len(d.keys), n0: len(d.counts)}
	r := pbwire.NewReader(b)
	for r.Next() {
		switch r.Num {
		case dogsketchTs:
			g.ts = int64(r.Varint()) //nolint:gosec // the generated decoder's conversion
		case dogsketchCnt:
			g.cnt = int64(r.Varint()) //nolint:gosec // the generated decoder's conversion
		case dogsketchMin:
			g.min = math.Float64frombits(r.Fixed64())
		case dogsketchMax:
			g.max = math.Float64frombits(r.Fixed64())
		case dogsketchAvg:
			r.Fixed64()
		case dogsketchSum:
			g.sum = math.Float64frombits(r.Fixed64())
		case dogsketchK:
			d.keys = r.AppendVarints(d.keys)
		case dogsketchN:
			d.counts = r.AppendVarints(d.counts)
		default:
			r.Skip()
		}
	}
	// A repeated field's elements belong to this dogsketch alone, so its
	// ranges end where the slices do.
	g.k1, g.n1 = len(d.keys), len(d.counts)
	d.dogs = append(d.dogs, g)
	return r.Err()
}

// build translates the sketch just read, sketch i, by the checks and in
// the order the translation of gogo's structs made them.
func (d *sketchDecoder) build(i int, hasOrigin bool) {
	b := d.b
	if !b.more() {
		d.done = true
		return
	}
	if d.name == "" {
		d.refuse(fmt.Errorf("sketch %d has no metric name", i))
		return
	}
	if len(d.dogs) == 0 && d.legacy > 0 {
		d.refuse(errors.New("legacy GK-sketch distributions are not supported; Agents since v6 send DDSketches"))
		return
	}
	s := series{name: d.name, host: d.hostname, typ: distribution, interval: DefaultInterval, tags: d.tags}
	if hasOrigin {
		s.origin = &d.origin
	}
	m := b.metric(&s)
	for _, g := range d.dogs {
		keys, counts := d.keys[g.k0:g.k1], d.counts[g.n0:g.n1]
		if len(keys) != len(counts) {
			d.refuse(fmt.Errorf("sketch %d (%s) has %d keys but %d counts", i, d.name, len(keys), len(counts)))
			return
		}
		d.bins = d.bins[:0]
		for x, k := range keys {
			d.bins = append(d.bins, keyBin(sint32(k), uint32(counts[x]))) //nolint:gosec // as the generated decoder truncates
		}
		if !b.storable(g.ts) {
			continue
		}
		dp, ok := b.histogram(m)
		if !ok {
			d.done = true
			return
		}
		dp.SetStartTimestamp(startSeconds(g.ts, DefaultInterval))
		dp.SetTimestamp(seconds(g.ts))
		dp.SetCount(uint64(g.cnt)) //nolint:gosec // a count the Agent sent
		dp.SetSum(g.sum)
		if g.cnt > 0 {
			dp.SetMin(g.min)
			dp.SetMax(g.max)
		}
		b.setBuckets(dp, d.bins)
	}
}

// refuse records why the payload is refused; nothing more is built.
func (d *sketchDecoder) refuse(err error) { d.invalid, d.done = err, true }

// sint32 is a sint32 field's value from its varint, of which the
// generated decoder keeps the low 32 bits, then undoes the zigzag.
func sint32(v uint64) int32 {
	u := uint32(v)                   //nolint:gosec // the low 32 bits, as the generated decoder keeps
	return int32(u>>1) ^ -int32(u&1) //nolint:gosec // zigzag: at most 31 bits, and the sign
}
