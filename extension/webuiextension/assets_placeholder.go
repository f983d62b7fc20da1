//go:build !builtinassets

package webuiextension

import (
	"embed"
	"io/fs"
)

// Without the builtinassets tag (a plain `go build` or `go test`, which
// need no npm) the UI is a page saying how to build the frontend.
//
//go:embed placeholder
var placeholderFS embed.FS

var embedded, _ = fs.Sub(placeholderFS, "placeholder")

const embeddedBuilt = false
