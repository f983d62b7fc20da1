package search

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsFieldName(t *testing.T) {
	for item, want := range map[string]bool{
		"Body": true, "LogAttributes.http.method": true, "Resource.host.name": true, "k8s.pod-name": true,
		"LogAttributes['k']": false, "lower(Body)": false, "Body AS b": false, "": false,
	} {
		assert.Equal(t, want, IsFieldName(item), item)
	}
}
