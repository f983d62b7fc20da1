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
	_, ok := ResourceKey("team")
	assert.False(t, ok)
}
