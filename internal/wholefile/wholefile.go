// Package wholefile writes files that are complete or absent: a process
// stopped while writing leaves only a temporary file beside the target,
// never a truncated target.
package wholefile

import "os"

// TempSuffix ends the name of a file being written.
const TempSuffix = ".tmp"

// Write writes b to path under path+TempSuffix, then renames it to path.
func Write(path string, b []byte) error {
	tmp := path + TempSuffix
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}
