package observabilityapiextension

import "crypto/tls"

// tlsConfig is the client TLS for an https ClickHouse endpoint: system
// roots, modern versions.
func tlsConfig() *tls.Config { return &tls.Config{MinVersion: tls.VersionTLS12} }
