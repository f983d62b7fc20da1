package search

// IsFieldName reports whether a select item names a field as a where
// does (a column, <map column>.<key>, Resource.<key>, an attribute key)
// rather than being an expression to compute.
func IsFieldName(item string) bool {
	if item == "" {
		return false
	}
	for i := 0; i < len(item); i++ {
		c := item[i]
		if !(c == '_' || c == '.' || c == '-' || c == '@' || c == ':' || c == '/' ||
			c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
