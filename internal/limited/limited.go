// Package limited reads files of bounded size: a file larger than its
// limit is refused after reading limit+1 bytes, so that a huge file, or
// one that never ends (/dev/zero, a pipe), costs bounded memory and time.
package limited

import (
	"fmt"
	"io"
	"os"
)

// ReadFile reads name, refusing it when it holds more than limit bytes;
// what says what the file is for the message ("a sweep file is a few KB").
func ReadFile(name string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %s; %s", name, size(limit), what)
	}
	return data, nil
}

func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
