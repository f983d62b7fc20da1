package memorybudgetconverter

import (
	"errors"
	"fmt"

	"github.com/dustin/go-humanize"
)

// ParseSize reads a size in bytes as people write it: 1073741824, 1GiB,
// 1Gi (as Kubernetes does), 512MiB, 1.5GiB, or 1GB (decimal units).
func ParseSize(v any) (uint64, error) {
	switch n := v.(type) {
	case int:
		if n <= 0 {
			return 0, errors.New("must be positive")
		}
		return uint64(n), nil
	case uint64:
		if n == 0 {
			return 0, errors.New("must be positive")
		}
		return n, nil
	case string:
		b, err := humanize.ParseBytes(n)
		if err != nil {
			return 0, fmt.Errorf("%q is not a size (write it as 1GiB or 512MiB)", n)
		}
		return b, nil
	}
	return 0, fmt.Errorf("%v is not a size (write it as 1GiB or 512MiB)", v)
}
