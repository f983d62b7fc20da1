package dashboards

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An alert-list tile decodes, validates and reads back as given; its
// mistakes are named.
func TestAlertListTile(t *testing.T) {
	body := func(config string) string {
		return `{"name":"d","tiles":[{"id":"a","name":"Alerts","x":0,"y":0,"w":12,"h":4,"config":` + config + `}]}`
	}
	for _, tc := range []struct {
		name, config string
		want         string // a problem; "" valid
	}{
		{"all", `{"displayType":"alerts"}`, ""},
		{"filtered", `{"displayType":"alerts","where":"redis memory","alertStates":["ALERT","NO_DATA"]}`, ""},
		{"null where", `{"displayType":"alerts","where":null}`, ""},
		{"unknown state", `{"displayType":"alerts","alertStates":["WARN"]}`, "tiles.0.config.alertStates[0] must be one of OK, ALERT, NO_DATA"},
		{"state twice", `{"displayType":"alerts","alertStates":["OK","OK"]}`, "alertStates names OK twice"},
		{"states not a list", `{"displayType":"alerts","alertStates":"ALERT"}`, "config.alertStates must be a list of states"},
		{"where not text", `{"displayType":"alerts","where":3}`, "config.where must be a string"},
		{"long where", `{"displayType":"alerts","where":"` + strings.Repeat("x", 1025) + `"}`, "where is longer than 1024 characters"},
		{"a chart's field", `{"displayType":"alerts","sourceId":"logs"}`, "unknown field config.sourceId (an alert-list tile takes where and alertStates)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decode([]byte(body(tc.config)))
			if err == nil {
				err = d.Validate(seq(), sources("logs"))
			}
			if tc.want != "" {
				var bad Invalid
				require.ErrorAs(t, err, &bad)
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			require.NoError(t, err)
			assert.False(t, d.Tiles[0].Config.IsChart(), "nothing is aggregated nor alerted on")
			out, err := json.Marshal(d.Tiles[0].Config)
			require.NoError(t, err)
			want := tc.config
			if tc.name == "null where" {
				want = `{"displayType":"alerts"}`
			}
			assert.JSONEq(t, want, string(out))
			again, err := Decode([]byte(body(string(out))))
			require.NoError(t, err)
			assert.Equal(t, d.Tiles[0].Config, again.Tiles[0].Config)
		})
	}
}
