package logs

import (
	"sync"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver/internal/tags"
)

type kv struct{ k, v string }

// parsedTags is a ddtags list split into resource attributes and record
// attributes. It is immutable once made and shared by every request.
type parsedTags struct {
	list       string
	res, attrs []kv
	env, ver   []byte
	// resID is shared by every list with the same resource tags, so
	// records whose lists differ only in record attributes share a
	// resource.
	resID uint64
}

// maxTagLists bounds the cache; an agent sends the same few lists (one per
// container or pod) over and over, so it rarely fills.
const maxTagLists = 8192

// tagLists caches parsed lists across requests: parsing one costs more
// than a record's translation.
var tagLists = struct {
	sync.RWMutex
	lists  map[string]*parsedTags
	resIDs map[string]uint64
	next   uint64
}{lists: map[string]*parsedTags{}, resIDs: map[string]uint64{}}

func lookupTags(list []byte) *parsedTags {
	tagLists.RLock()
	pt := tagLists.lists[string(list)]
	tagLists.RUnlock()
	if pt != nil {
		return pt
	}
	key := string(list)
	pt = parseTags(key)
	var res []byte
	for _, a := range pt.res {
		res = append(append(append(append(res, a.k...), ':'), a.v...), ',')
	}
	tagLists.Lock()
	defer tagLists.Unlock()
	if cur := tagLists.lists[key]; cur != nil {
		return cur
	}
	if len(tagLists.lists) >= maxTagLists {
		// ids keep counting up, so a list parsed before the reset never
		// shares one with a different resource after it.
		clear(tagLists.lists)
		clear(tagLists.resIDs)
	}
	id, ok := tagLists.resIDs[string(res)]
	if !ok {
		tagLists.next++
		id = tagLists.next
		tagLists.resIDs[string(res)] = id
	}
	pt.resID = id
	tagLists.lists[key] = pt
	return pt
}

func parseTags(list string) *parsedTags {
	pt := &parsedTags{list: list}
	tags.Each(list, func(k, v string) {
		switch k {
		case "env":
			pt.env = []byte(v)
			return
		case "version":
			pt.ver = []byte(v)
			return
		case "service", "host", "source":
			// service and host come from their own fields; a tag repeating
			// them stays a record attribute.
		default:
			if rk, ok := tags.ResourceKey(k); ok {
				pt.res = append(pt.res, kv{rk, v})
				return
			}
		}
		pt.attrs = append(pt.attrs, kv{k, v})
	})
	return pt
}
