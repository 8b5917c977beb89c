package limited

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadFileRefusesWhatIsTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(p, []byte("12345"), 0o644))
	b, err := ReadFile(p, 5, "x")
	require.NoError(t, err)
	require.Equal(t, "12345", string(b))
	_, err = ReadFile(p, 4, "a test file is short")
	require.ErrorContains(t, err, "larger than 4 bytes; a test file is short")
	// A file that never ends is refused after limit+1 bytes.
	_, err = ReadFile("/dev/zero", 1<<20, "x")
	require.ErrorContains(t, err, "larger than 1 MiB")
	_, err = ReadFile(filepath.Join(t.TempDir(), "none"), 10, "x")
	require.Error(t, err)
}
