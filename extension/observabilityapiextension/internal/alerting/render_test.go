package alerting

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The scheduler's evaluation and delivery are tested through the REST API
// that stores the alerts (internal/api: alerting_test.go,
// savedsearchalert_test.go, replicas_test.go); rendering is pure.
func TestRenderUsesTheNotificationsJSONNames(t *testing.T) {
	v := 3.0
	n := Notification{AlertID: "a1", Name: "errors", State: StateAlert, Value: &v, Group: []string{"checkout"}}
	assert.Equal(t, "ALERT errors: 3 [checkout]", render("{{.state}} {{.name}}: {{.value}} {{.group}}", n))
	assert.Empty(t, render("", n))
}
