package embeddedclickhouseextension

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// keepPassword writes password to path (0600) unless the file exists. A
// file that exists must hold the same password: another process wrote
// one between the configuration being resolved and this start, and the
// clients were given the other one.
func keepPassword(path, password string) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fmt.Errorf("embedded ClickHouse password file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) //nolint:gosec // password_file, a path from the configuration
	if errors.Is(err, os.ErrExist) {
		b, rerr := os.ReadFile(path) //nolint:gosec // as above
		if rerr != nil {
			return fmt.Errorf("embedded ClickHouse password file: %w", rerr)
		}
		if strings.TrimSpace(string(b)) != password {
			return fmt.Errorf("embedded ClickHouse password file %s changed after the configuration was read: start again", path)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("writing the embedded ClickHouse password: %w", err)
	}
	_, err = f.WriteString(password + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
