package wholefile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteReplacesWholeAndLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	require.NoError(t, os.WriteFile(p, []byte("old and longer"), 0o644))
	require.NoError(t, Write(p, []byte("new")))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "new", string(b))
	_, err = os.Stat(p + TempSuffix)
	require.True(t, os.IsNotExist(err), "the temporary file is renamed away")
	require.Error(t, Write(filepath.Join(dir, "missing", "f"), nil), "a directory that does not exist is an error")
}
