package charts

import (
	"os"
	"testing"

	"github.com/otelhouse/otelhouse/extension/embeddedclickhouseextension/chtest"
)

func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }
