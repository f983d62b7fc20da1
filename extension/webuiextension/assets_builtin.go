//go:build builtinassets

package webuiextension

import (
	"embed"
	"io/fs"
)

// The frontend built by `make build` (web/dist), in the binary.
//
//go:embed all:web/dist
var builtFS embed.FS

var embedded, _ = fs.Sub(builtFS, "web/dist")

const embeddedBuilt = true
