package main

import "github.com/otelhouse/otelhouse/internal/runtime/gctune"

// Not generated (ocb leaves other files alone): before the collector
// starts, pace the garbage collector for a small live heap that turns
// over fast; GOGC in the environment overrides it (see docs/performance.md).
func init() { gctune.FromEnv() }
