package query

import (
	"testing"

	"github.com/otelhouse/otelhouse/internal/chtest"
)

func TestMain(m *testing.M) { chtest.Main(m) }
