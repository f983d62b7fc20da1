package search

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSplitSelect(t *testing.T) {
	for text, want := range map[string][]string{
		"Timestamp, Body":                                   {"Timestamp", "Body"},
		" Timestamp ,, Body ,":                              {"Timestamp", "Body"},
		"JSONExtractString(Body, 'msg'), ServiceName":       {"JSONExtractString(Body, 'msg')", "ServiceName"},
		"LogAttributes['a,b'], Body":                        {"LogAttributes['a,b']", "Body"},
		`concat('it\'s, fine', Body), x`:                    {`concat('it\'s, fine', Body)`, "x"},
		"`odd, name`, tuple(1, (2, 3)).1, [1, 2][1], {'a'}": {"`odd, name`", "tuple(1, (2, 3)).1", "[1, 2][1]", "{'a'}"},
		"":    nil,
		" , ": nil,
	} {
		assert.Equal(t, want, SplitSelect(text), text)
	}
}

func TestIsFieldName(t *testing.T) {
	for item, want := range map[string]bool{
		"Body": true, "LogAttributes.http.method": true, "Resource.host.name": true, "k8s.pod-name": true,
		"LogAttributes['k']": false, "lower(Body)": false, "Body AS b": false, "": false,
	} {
		assert.Equal(t, want, IsFieldName(item), item)
	}
}
