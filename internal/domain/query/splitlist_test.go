package query

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSplitList(t *testing.T) {
	for in, want := range map[string][]string{
		"":                                     nil,
		" , ":                                  nil,
		"ServiceName":                          {"ServiceName"},
		" a , b ,":                             {"a", "b"},
		" Timestamp ,, Body ,":                 {"Timestamp", "Body"},
		"toStartOfHour(Timestamp), x":          {"toStartOfHour(Timestamp)", "x"},
		"JSONExtractString(Body, 'msg'), y":    {"JSONExtractString(Body, 'msg')", "y"},
		"LogAttributes['a,b'], `c,d`, \"e\"":   {"LogAttributes['a,b']", "`c,d`", `"e"`},
		`f('it\'s, here'), g`:                  {`f('it\'s, here')`, "g"},
		"tuple(1, (2, 3)).1, [1, 2][1], {'a'}": {"tuple(1, (2, 3)).1", "[1, 2][1]", "{'a'}"},
	} {
		assert.Equal(t, want, SplitList(in), in)
	}
}
