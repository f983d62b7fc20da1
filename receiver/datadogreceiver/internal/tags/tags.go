// Package tags maps Datadog tags to OpenTelemetry resource attributes. It is
// shared by every signal so a tag lands on the same attribute whatever
// carried it.
package tags

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Standard Datadog keys that have a semantic-convention home on the resource.
const (
	Service = "service.name"
	Env     = "deployment.environment.name"
	Version = "service.version"
	Host    = "host.name"
)

// resourceKeys maps the Datadog unified-service, container, Kubernetes and
// cloud tags to OpenTelemetry resource attributes (semantic conventions).
var resourceKeys = map[string]string{
	"service":             Service,
	"env":                 Env,
	"version":             Version,
	"host":                Host,
	"container_id":        "container.id",
	"container_name":      "container.name",
	"image_name":          "container.image.name",
	"image_tag":           "container.image.tags",
	"image_id":            "container.image.id",
	"runtime":             "container.runtime",
	"kube_cluster_name":   "k8s.cluster.name",
	"kube_namespace":      "k8s.namespace.name",
	"pod_name":            "k8s.pod.name",
	"pod_uid":             "k8s.pod.uid",
	"kube_container_name": "k8s.container.name",
	"kube_deployment":     "k8s.deployment.name",
	"kube_replica_set":    "k8s.replicaset.name",
	"kube_stateful_set":   "k8s.statefulset.name",
	"kube_daemon_set":     "k8s.daemonset.name",
	"kube_job":            "k8s.job.name",
	"kube_cronjob":        "k8s.cronjob.name",
	"kube_node":           "k8s.node.name",
	"cloud_provider":      "cloud.provider",
	"region":              "cloud.region",
	"availability_zone":   "cloud.availability_zone",
	"availability-zone":   "cloud.availability_zone",
	"zone":                "cloud.availability_zone",
	"account_id":          "cloud.account.id",
	"task_arn":            "aws.ecs.task.arn",
	"task_family":         "aws.ecs.task.family",
	"task_version":        "aws.ecs.task.revision",
	"ecs_cluster_name":    "aws.ecs.cluster.arn",
	"os":                  "os.type",
}

// ResourceKey returns the resource attribute a Datadog tag key maps to.
// Every signal asks it for every tag of every item, so it reads
// resourceSlots rather than the map: a key's length and end bytes pick
// its slot, and one string comparison (or an empty slot) decides, at half
// a map lookup's cost (BenchmarkResourceKey).
func ResourceKey(ddKey string) (string, bool) {
	if i, ok := ResourceIndex(ddKey); ok {
		return ResourceName(i), true
	}
	return "", false
}

// ResourceIndex is ResourceKey as a small number for ResourceName, for
// records that hold no pointers (the garbage collector need not see
// them): 0 and false for a key with no resource attribute.
func ResourceIndex(ddKey string) (uint8, bool) {
	if ddKey == "" {
		return 0, false
	}
	for i := resourceSlot(ddKey); ; i = (i + 1) % uint(len(resourceSlots)) {
		e := &resourceSlots[i]
		if e.dd == ddKey {
			return uint8(i), true
		}
		if e.dd == "" {
			return 0, false
		}
	}
}

// ResourceName is the resource attribute of a ResourceIndex.
func ResourceName(i uint8) string { return resourceSlots[i%uint8(len(resourceSlots))].otel }

// resourceSlots is resourceKeys as an open-addressed table (linear probing),
// at most a third full so that a miss meets an empty slot at once.
var resourceSlots = func() (t [128]struct{ dd, otel string }) {
	for dd, otel := range resourceKeys {
		i := resourceSlot(dd)
		for t[i].dd != "" {
			i = (i + 1) % uint(len(t))
		}
		t[i].dd, t[i].otel = dd, otel
	}
	return t
}()

func resourceSlot(k string) uint {
	return (uint(len(k))*37 + uint(k[0])*5 + uint(k[len(k)-1])) % 128
}

// Split splits "k:v" at the first colon. A tag with no colon is a key with
// an empty value, as Datadog treats it.
func Split(tag string) (key, value string) {
	if i := strings.IndexByte(tag, ':'); i >= 0 {
		return tag[:i], tag[i+1:]
	}
	return tag, ""
}

// Each calls fn for every non-empty tag of a comma-separated tag list
// ("env:prod,team:a"), trimming blanks, without allocating.
func Each(list string, fn func(key, value string)) {
	for len(list) > 0 {
		var tag string
		if i := strings.IndexByte(list, ','); i >= 0 {
			tag, list = list[:i], list[i+1:]
		} else {
			tag, list = list, ""
		}
		tag = strings.TrimSpace(tag)
		if tag == "" {
			continue
		}
		fn(Split(tag))
	}
}

// Put adds a tag value to m; a key seen again keeps every value, in order,
// as one slice attribute (Datadog tags are multi-valued, not last-wins).
func Put(m pcommon.Map, k, v string) {
	cur, ok := m.Get(k)
	if !ok {
		m.PutStr(k, v)
		return
	}
	AddValue(cur, v)
}

// AddValue adds v to the value(s) a tag already has in cur.
func AddValue(cur pcommon.Value, v string) {
	if cur.Type() == pcommon.ValueTypeSlice {
		cur.Slice().AppendEmpty().SetStr(v)
		return
	}
	prev := cur.AsString()
	s := cur.SetEmptySlice()
	s.AppendEmpty().SetStr(prev)
	s.AppendEmpty().SetStr(v)
}

// PutNonEmpty puts v under k unless v is empty: Datadog sends "" for
// fields it does not know, which are absent in OpenTelemetry.
func PutNonEmpty(m pcommon.Map, k, v string) {
	if v != "" {
		m.PutStr(k, v)
	}
}
