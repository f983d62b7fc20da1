package store

import (
	"testing"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

func TestMain(m *testing.M) { chtest.Main(m) }
