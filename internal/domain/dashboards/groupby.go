package dashboards

import (
	"encoding/json"
	"errors"

	"github.com/otelhouse/otelhouse/internal/domain/query"
)

// Fields is a groupBy as a tile keeps it (one string) or as a chart query
// takes it (a list); either decodes to the list.
type Fields []string

// UnmarshalJSON takes "a, b" or ["a", "b"].
func (f *Fields) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*f = query.SplitList(s)
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return errors.New("groupBy must be a string or a list of strings")
	}
	*f = list
	return nil
}
