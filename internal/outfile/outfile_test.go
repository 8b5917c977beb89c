package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A regular file appears whole on Close, not before; Abort leaves the old
// content; no temporary file stays behind.
func TestRegularFilesAppearWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	f, err := Create(p)
	require.NoError(t, err)
	_, err = f.WriteString("new and longer")
	require.NoError(t, err)
	b, _ := os.ReadFile(p)
	require.Equal(t, "old", string(b), "not replaced before Close")
	require.NoError(t, f.Close())
	require.NoError(t, f.Close(), "twice is fine")
	b, _ = os.ReadFile(p)
	require.Equal(t, "new and longer", string(b))

	f, err = Create(p)
	require.NoError(t, err)
	_, _ = f.WriteString("half")
	f.Abort()
	b, _ = os.ReadFile(p)
	require.Equal(t, "new and longer", string(b), "an aborted file leaves the old one")
	_, err = os.Stat(p + TempSuffix)
	require.True(t, os.IsNotExist(err))

	require.NoError(t, Write(p, []byte("x")))
	b, _ = os.ReadFile(p)
	require.Equal(t, "x", string(b))

	_, err = Create(filepath.Join(dir, "missing", "f"))
	require.ErrorContains(t, err, filepath.Join(dir, "missing", "f"), "the error names the path given")
	_, err = Create(dir)
	require.ErrorContains(t, err, "is a directory")
}

// A named pipe is written directly and write-only: when its reader goes
// away the writer gets an error (EPIPE) at once, instead of blocking on a
// pipe it keeps open itself.
func TestAPipeWhoseReaderLeavesFailsTheWrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	read := make(chan error, 1)
	go func() {
		r, err := os.Open(p)
		if err == nil {
			buf := make([]byte, 10)
			_, err = r.Read(buf)
			r.Close() // the reader leaves after 10 bytes
		}
		read <- err
	}()
	f, err := Create(p)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		chunk := make([]byte, 1<<16)
		for i := 0; i < 1000; i++ { // 64 MB: far more than a pipe holds
			if _, err := f.Write(chunk); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	require.NoError(t, <-read)
	select {
	case err := <-done:
		require.True(t, errors.Is(err, syscall.EPIPE), "%v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the write blocked after the reader left")
	}
	_ = f.Close()
}

// AbortAll removes what is being written and nothing else.
func TestAbortAllRemovesOnlyFilesBeingWritten(t *testing.T) {
	dir := t.TempDir()
	done := filepath.Join(dir, "done")
	require.NoError(t, Write(done, []byte("kept")))
	f, err := Create(filepath.Join(dir, "half"))
	require.NoError(t, err)
	_, _ = f.WriteString("half")
	AbortAll()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 1)
	require.Equal(t, "done", ents[0].Name())
	f.Abort()
}

// A file's temporary name is its own (a user's NAME.tmp is untouched); an
// existing file keeps its mode; a symlink is written through, not
// replaced.
func TestTemporaryNamesModesAndSymlinks(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x")
	require.NoError(t, os.WriteFile(p+".tmp", []byte("mine"), 0o600))
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o600))
	require.NoError(t, Write(p, []byte("new")))
	b, _ := os.ReadFile(p + ".tmp")
	require.Equal(t, "mine", string(b))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	real := filepath.Join(dir, "real.csv")
	require.NoError(t, os.WriteFile(real, []byte("old content"), 0o644))
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink(real, link))
	require.NoError(t, Write(link, []byte("new")))
	b, _ = os.ReadFile(real)
	require.Equal(t, "new", string(b), "written through the link")
	li, err := os.Lstat(link)
	require.NoError(t, err)
	require.NotZero(t, li.Mode()&os.ModeSymlink, "the link stays a link")
}
