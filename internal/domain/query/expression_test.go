package query

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

func TestCheckExpression(t *testing.T) {
	db := chtest.DB(t)
	ctx := context.Background()
	for _, tc := range []struct {
		text         string
		column, list bool
		ok           bool
	}{
		{"Timestamp", true, false, true},
		{"`Service Name`", true, false, true},
		{"ResourceAttributes['service.name']", false, false, true},
		{"ResourceAttributes['service.name']", true, false, false},
		{"J.a.b", false, false, true},
		{"J.a.b", true, false, false},
		{"Timestamp, Body, LogAttributes['k']", false, true, true},
		{"*", false, true, true},
		{"Timestamp, Body", false, false, false},
		{"lower(Body)", false, false, true},
		{"lower(Body)", true, false, false},
		{"JSONExtractString(Body, 'msg')", false, false, true},
		{"Body.message", false, false, true},
		{"LogAttributes['level']", false, false, true},
		{"Timestamp, lower(Body)", false, true, true},
		{"noSuchFunction(Body)", false, false, false},
		{"sleep(3)", false, false, false},
		{"hostName()", false, false, false},
		{"Body IN (SELECT 1)", false, false, false},
		{"Body AS b", false, false, false},
		{"(SELECT 1)", false, false, false},
		{"file('/etc/passwd')", false, false, false},
		// Read in its frame as (Body) OR (1): one expression, and what
		// runs is written from that tree, never this text.
		{"Body) OR (1", false, false, true},
		{"Body) OR (1", true, false, false},
		{"Timestamp, Body) UNION ALL SELECT (1", false, true, false},
		{"M[Body]", false, false, true},
		{"1", false, false, false},
	} {
		err := CheckExpression(ctx, db, tc.text, tc.column, tc.list)
		if tc.ok {
			require.NoError(t, err, tc.text)
			continue
		}
		require.Error(t, err, tc.text)
		var mistake Error
		assert.ErrorAs(t, err, &mistake, "%s: the caller's mistake, not the server's", tc.text)
	}
}
