package dashboards

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVariableOf(t *testing.T) {
	for name, want := range map[string]string{
		"Service Name":     "Service_Name",
		"  region / zone ": "region_zone",
		"env":              "env",
		"环境":               "",
		"9 lives":          "",
		"a环境b":             "a_b",
		"__x__":            "x",
	} {
		assert.Equal(t, want, VariableOf(name), name)
	}
}

// TestFilterRules: each of HyperDX's filter rules, alone, on a valid
// query filter or static list.
func TestFilterRules(t *testing.T) {
	query := `{"type":"QUERY_EXPRESSION","name":"Service Name","expression":"ServiceName","sourceId":"logs"`
	static := `{"type":"STATIC_LIST","name":"Env","options":["prod","dev"]`
	for _, tc := range []struct {
		name, filters, want string
	}{
		{"query", query + `}`, ""},
		{"variable", query + `,"isVariableEnabled":true}`, ""},
		{"both off", query + `,"isBroadcastEnabled":false}`, "must broadcast its value, be available as a variable, or both"},
		{"name without variable", query + `,"variableName":"svc"}`, "sets variableName but is not available as a variable"},
		{"scope without broadcast", query + `,"isBroadcastEnabled":false,"isVariableEnabled":true,"appliesToSourceIds":["logs"]}`, "sets appliesToSourceIds but does not broadcast"},
		{"empty scope without broadcast", query + `,"isBroadcastEnabled":false,"isVariableEnabled":true,"appliesToSourceIds":[]}`, ""},
		{"not a token", query + `,"isVariableEnabled":true,"variableName":"a b"}`, "must be a bare token"},
		{"derived clash", query + `,"isVariableEnabled":true},` + query + `,"isVariableEnabled":true,"variableName":"Service_Name"}`, `variable name "Service_Name" is used by another filter`},
		{"no derivable name", `{"type":"QUERY_EXPRESSION","name":"环境","expression":"e","sourceId":"logs","isVariableEnabled":true}`, "has no usable variable name"},
		{"static", static + `}`, ""},
		{"static broadcast", static + `,"isBroadcastEnabled":true}`, "does not broadcast its value"},
		{"static no options", `{"type":"STATIC_LIST","name":"Env"}`, "takes at least one option"},
		{"static twice", `{"type":"STATIC_LIST","name":"Env","options":["a","a"]}`, `"a" is listed twice`},
		{"static with source", static + `,"sourceId":"logs"}`, "Unrecognized key(s) in object: 'sourceId'"},
		{"query with options", query + `,"options":["a"]}`, "Unrecognized key(s) in object: 'options'"},
		{"unknown type", `{"type":"STATIC","name":"x"}`, "Invalid discriminator value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decode([]byte(`{"name":"d","tiles":[],"filters":[` + tc.filters + `]}`))
			require.NoError(t, err)
			err = d.Validate(seq(), sources("logs"))
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestStaticListDefaults(t *testing.T) {
	d, err := Decode([]byte(`{"name":"d","tiles":[],"filters":[{"type":"STATIC_LIST","name":"Env","options":["prod"]}]}`))
	require.NoError(t, err)
	require.NoError(t, d.Validate(seq(), sources()))
	b, err := json.Marshal(d.Filters[0])
	require.NoError(t, err)
	assert.JSONEq(t, `{"id":"gen1","type":"STATIC_LIST","name":"Env","options":["prod"],"isBroadcastEnabled":false,"isVariableEnabled":true}`, string(b))
}

// TestHeal: a stored dashboard reads back as it could be sent back.
func TestHeal(t *testing.T) {
	d, err := Decode([]byte(`{"name":"d",
		"containers":[{"id":"c","title":"C","collapsed":false,"tabs":[{"id":"t","title":"T"}]}],
		"filters":[
			{"type":"QUERY_EXPRESSION","name":"a","expression":"e","sourceId":"s","isBroadcastEnabled":false,"isVariableEnabled":true,"appliesToSourceIds":["s"]},
			{"type":"QUERY_EXPRESSION","name":"b","expression":"e","sourceId":"s","variableName":"left"}],
		"tiles":[
			{"id":"1","x":0,"y":0,"w":1,"h":1,"containerId":"c","tabId":"gone","config":{"displayType":"number","sourceId":"s","select":[{"aggFn":"count"}],
				"color":"chart-4","colorRules":[{"operator":"gt","value":1,"color":"chart-1"},{"operator":"gt","value":2,"color":"nope"}],
				"backgroundChart":{"type":"line","color":"chart-10"}}},
			{"id":"2","x":0,"y":0,"w":1,"h":1,"containerId":"gone","tabId":"t","config":{"displayType":"number","sourceId":"s","select":[{"aggFn":"count"}],
				"color":"nope","colorRules":[{"operator":"gt","value":1,"color":"nope"}]}}]}`))
	require.NoError(t, err)
	d.Heal()
	assert.Nil(t, d.Filters[0].AppliesToSourceIDs)
	assert.Empty(t, d.Filters[1].VariableName)
	assert.Equal(t, "c", d.Tiles[0].ContainerID)
	assert.Empty(t, d.Tiles[0].TabID)
	assert.Empty(t, d.Tiles[1].ContainerID)
	assert.Empty(t, d.Tiles[1].TabID)
	first := d.Tiles[0].Config.Display
	assert.JSONEq(t, `"chart-red"`, string(first["color"]))
	assert.JSONEq(t, `[{"operator":"gt","value":1,"color":"chart-green"}]`, string(first["colorRules"]))
	assert.JSONEq(t, `{"type":"line","color":"chart-gray"}`, string(first["backgroundChart"]))
	second := d.Tiles[1].Config.Display
	assert.NotContains(t, second, "color")
	assert.NotContains(t, second, "colorRules")
}

// TestFilterValues: a condition, or a variable's chosen values.
func TestFilterValues(t *testing.T) {
	for _, tc := range []struct{ values, want string }{
		{`[{"type":"sql","condition":"a = 1"},{"type":"variable","name":"svc","values":[]}]`, ""},
		{`[{"type":"variable","values":["a"]}]`, "name is required with type variable"},
		{`[{"type":"variable","name":"svc"}]`, "values is required with type variable"},
		{`[{"type":"nonsense","condition":""}]`, "savedFilterValues.0.type must be one of"},
	} {
		d, err := Decode([]byte(`{"name":"d","tiles":[],"savedFilterValues":` + tc.values + `}`))
		require.NoError(t, err)
		err = d.Validate(seq(), sources())
		if tc.want == "" {
			require.NoError(t, err)
			b, _ := json.Marshal(d.SavedFilterValues)
			assert.JSONEq(t, tc.values, string(b))
			continue
		}
		require.Error(t, err, tc.values)
		assert.Contains(t, err.Error(), tc.want)
	}
}
