package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// pagePart bounds the documents read from the engine at once while a list
// answer streams out (a page of 500 dashboards may hold 500 MiB).
const pagePart = 4 << 20

// paging reads limit (def when absent, at most most) and offset.
func paging(r *http.Request, def, most int) (limit, offset int, err error) {
	limit, offset = def, 0
	if v := r.URL.Query().Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > most {
			return 0, 0, fmt.Errorf("limit must be an integer from 1 to %d", most)
		}
	}
	if v := r.URL.Query().Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 {
			return 0, 0, errors.New("offset must be a non-negative integer")
		}
	}
	return limit, offset, nil
}
