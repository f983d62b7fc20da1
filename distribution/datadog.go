package main //nolint:revive // the package comment is ocb's, in the generated main.go

import (
	"fmt"
	"os"

	"go.opentelemetry.io/collector/featuregate"

	"github.com/otelhouse/otelhouse/receiver/datadogreceiver"
)

// Not generated (ocb leaves other files alone): ENABLE_DATADOG_RECEIVER=true
// turns the Datadog receiver's gate on, as --feature-gates=receiver.datadog
// would. The switch lives here rather than in datadogswitchconverter, which
// only maps configuration: the gate is process state, set once before the
// command line is read.
func init() { enableDatadogGate(os.Getenv) }

func enableDatadogGate(getenv func(string) string) {
	if getenv(datadogreceiver.EnableEnvVar) != "true" {
		return
	}
	if err := featuregate.GlobalRegistry().Set(datadogreceiver.FeatureGateID, true); err != nil {
		fmt.Fprintf(os.Stderr, "%s=true: %v\n", datadogreceiver.EnableEnvVar, err)
		os.Exit(1)
	}
}
