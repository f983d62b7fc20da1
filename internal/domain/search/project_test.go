package search

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProject(t *testing.T) {
	rows := []map[string]any{{
		"Timestamp": "2026-11-25T00:00:00Z", "Body": "hello",
		"LogAttributes":      map[string]string{"http.method": "GET", "user.id": "7"},
		"ResourceAttributes": map[string]string{"host.name": "web-1"},
	}}
	m := Maps{Attributes: "LogAttributes", Resource: "ResourceAttributes"}
	for _, tc := range []struct {
		name string
		want any
	}{
		{"Body", "hello"},
		{"LogAttributes.http.method", "GET"},
		{"ResourceAttributes.host.name", "web-1"},
		{"Resource.host.name", "web-1"},
		{"user.id", "7"},
		{"nothing", nil},
		{"LogAttributes.nothing", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Project(rows, []string{tc.name}, m)[0][tc.name], tc.name)
		})
	}
	assert.Equal(t, rows, Project(rows, nil, m), "no names: the whole rows")
}
