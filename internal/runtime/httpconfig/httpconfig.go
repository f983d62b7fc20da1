// Package httpconfig decodes component configurations that squash-embed
// confighttp.ServerConfig beside their own settings. ServerConfig has an
// Unmarshal method; embedded, it is promoted to the component's config, and
// confmap then calls it for the whole config, silently dropping every other
// field. Components define their own Unmarshal with Unmarshal below.
//
// The collector's own receivers embed ServerConfig as a named squashed
// field instead; since collector v0.160.0 that silently accepts unknown
// keys, because ServerConfig.Unmarshal decodes with WithIgnoreUnused
// (open-telemetry/opentelemetry-collector#15907, fix proposed in #15918).
// A typo in a receiver's settings must fail at start, so this package stays
// until that fix is in the collector version we build with; the typo cases
// of the components' config tests say when it can go.
package httpconfig

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/confmap"
)

// Unmarshal decodes the server settings with ServerConfig's own logic and
// the component's settings (own, a pointer to a struct) from the same
// keys, rejecting keys neither knows.
func Unmarshal(conf *confmap.Conf, server *confighttp.ServerConfig, own any) error {
	if conf == nil {
		return nil
	}
	if err := server.Unmarshal(conf); err != nil {
		return err
	}
	if err := conf.Unmarshal(own, confmap.WithIgnoreUnused()); err != nil {
		return err
	}
	known := map[string]bool{}
	topKeys(reflect.TypeOf(*server), known)
	topKeys(reflect.TypeOf(own).Elem(), known)
	var unknown []string
	for _, k := range conf.AllKeys() {
		top, _, _ := strings.Cut(k, confmap.KeyDelimiter)
		if !known[top] && !slices.Contains(unknown, top) {
			unknown = append(unknown, top)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("has invalid keys: %s", strings.Join(unknown, ", "))
	}
	return nil
}

// topKeys collects the top-level mapstructure keys of a struct type,
// following squashed fields.
func topKeys(t reflect.Type, into map[string]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		parts := strings.Split(f.Tag.Get("mapstructure"), ",")
		if slices.Contains(parts[1:], "squash") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				topKeys(ft, into)
			}
			continue
		}
		name := parts[0]
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		into[name] = true
	}
}
