package tags

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEach(t *testing.T) {
	var got [][2]string
	Each(" env:prod, ,team:a,bare,url:http://x:1 ,", func(k, v string) { got = append(got, [2]string{k, v}) })
	assert.Equal(t, [][2]string{{"env", "prod"}, {"team", "a"}, {"bare", ""}, {"url", "http://x:1"}}, got)
}

func TestResourceKey(t *testing.T) {
	for dd, otel := range map[string]string{
		"env": Env, "service": Service, "version": Version, "host": Host,
		"kube_namespace": "k8s.namespace.name", "pod_name": "k8s.pod.name", "container_id": "container.id",
		"availability-zone": "cloud.availability_zone", "region": "cloud.region",
	} {
		got, ok := ResourceKey(dd)
		assert.True(t, ok, dd)
		assert.Equal(t, otel, got, dd)
	}
	for _, miss := range []string{"team", "", "e", "envx", "xenv", "kube_", "Service", "region ", "availability_zon"} {
		_, ok := ResourceKey(miss)
		assert.False(t, ok, miss)
	}
	// The table answers as the map does, for each key and near misses.
	assert.Less(t, len(resourceKeys)*3, len(resourceSlots), "a third full at most")
	for dd, otel := range resourceKeys {
		got, ok := ResourceKey(dd)
		assert.True(t, ok, dd)
		assert.Equal(t, otel, got, dd)
		for _, near := range []string{dd[1:], dd[:len(dd)-1], dd + "s", "_" + dd} {
			want, wantOK := resourceKeys[near]
			got, ok := ResourceKey(near)
			assert.Equal(t, wantOK, ok, near)
			assert.Equal(t, want, got, near)
		}
	}
}

// BenchmarkResourceKey looks up a series' usual tags, hits and misses.
func BenchmarkResourceKey(b *testing.B) {
	keys := []string{"env", "service", "version", "region", "availability-zone", "team", "endpoint", "status_code", "pod_name", "kube_namespace"}
	b.Run("slots", func(b *testing.B) {
		for b.Loop() {
			for _, k := range keys {
				ResourceKey(k)
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			for _, k := range keys {
				_ = resourceKeys[k]
			}
		}
	})
}
