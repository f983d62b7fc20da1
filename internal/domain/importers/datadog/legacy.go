package datadog

import "encoding/json"

// UnmarshalJSON reads a widget of either shape: the dashboard API's
// ({"definition": …, "layout": …}) or the older screenboard's, whose
// widget is flat — type, title_text, tile_def.requests, html, x, y,
// width, height — read into the same definition and layout.
func (w *widget) UnmarshalJSON(b []byte) error {
	type plain widget
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*w = widget(p)
	if w.Definition != nil {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw["type"] == nil {
		return nil //nolint:nilerr // not an older widget either: reported as a widget without a type
	}
	w.Definition, w.Layout = legacyWidget(raw)
	return nil
}

// legacyKeys are the older widget's keys kept as they are.
var legacyKeys = []string{"type", "url", "check", "grouping", "group_by", "tags", "text", "query", "content"}

func legacyWidget(raw map[string]json.RawMessage) (map[string]json.RawMessage, *layout) {
	def := map[string]json.RawMessage{}
	for _, k := range legacyKeys {
		if v, ok := raw[k]; ok {
			def[k] = v
		}
	}
	typ := str(raw, "type")
	if t := str(raw, "title_text"); t != "" {
		def["title"] = mustJSON(t)
	}
	if h := str(raw, "html"); h != "" && typ == "note" {
		// html is the older note's text (content, when present, is stale).
		def["content"] = mustJSON(h)
	}
	var tile struct {
		Requests []map[string]json.RawMessage `json:"requests"`
	}
	_ = json.Unmarshal(raw["tile_def"], &tile)
	if len(tile.Requests) > 0 {
		if typ == "hostmap" {
			// The older host map lists its fill and size requests.
			byKind := map[string]map[string]json.RawMessage{}
			for _, r := range tile.Requests {
				byKind[cmpOr(str(r, "type"), "fill")] = map[string]json.RawMessage{"q": r["q"]}
			}
			def["requests"] = mustJSON(byKind)
		} else {
			for _, r := range tile.Requests {
				// Its request's type is today's display_type.
				if r["display_type"] == nil && r["type"] != nil {
					r["display_type"] = r["type"]
				}
			}
			def["requests"] = mustJSON(tile.Requests)
		}
	}
	var l struct {
		X, Y, Width, Height *float64
	}
	_ = json.Unmarshal(mustJSON(map[string]json.RawMessage{"X": raw["x"], "Y": raw["y"], "Width": raw["width"], "Height": raw["height"]}), &l)
	if l.X == nil || l.Y == nil || l.Width == nil || l.Height == nil {
		return def, nil
	}
	return def, &layout{X: *l.X, Y: *l.Y, Width: *l.Width, Height: *l.Height}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
