// Package outfile writes output files that are complete or absent: a
// regular file is written under a temporary name beside it and renamed
// into place when it is closed, so that a run stopped part-way (Ctrl-C, a
// crash) never leaves a truncated file where a result should be. A path
// that is not a regular file (a named pipe, /dev/stdout, /dev/null) is
// written directly, opened write-only: a pipe whose reader goes away then
// fails the write (EPIPE) instead of blocking forever, as a pipe opened
// read-write, with a reader of its own, would.
package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// open are the regular files being written, for AbortAll.
var open struct {
	sync.Mutex
	files map[*File]bool
}

func track(f *File, on bool) {
	open.Lock()
	defer open.Unlock()
	if open.files == nil {
		open.files = map[*File]bool{}
	}
	if on {
		open.files[f] = true
	} else {
		delete(open.files, f)
	}
}

// AbortAll removes the temporary files of every regular file still being
// written, for a process that is about to exit (Ctrl-C): their targets are
// left as they were.
func AbortAll() {
	open.Lock()
	defer open.Unlock()
	for f := range open.files {
		_ = os.Remove(f.tmp)
	}
}

// TempSuffix ends the name of a regular file being written (".NAME.*.tmp").
const TempSuffix = ".tmp"

// File is an output file being written.
type File struct {
	*os.File
	path, tmp string
	closed    bool
}

// Create opens path for writing. A regular file (or a path not there yet)
// is written under a temporary name of its own beside it (".NAME.*.tmp")
// and renamed into place on Close, keeping an existing file's mode;
// anything else (a symlink, /dev/stdout, a pipe) is written directly.
func Create(path string) (*File, error) {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, &os.PathError{Op: "create", Path: path, Err: errors.New("is a directory; name a file")}
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			f, err = os.OpenFile(path, os.O_WRONLY, 0) // a pipe or device takes no truncation
		}
		if err != nil {
			return nil, err
		}
		return &File{File: f, path: path}, nil
	}
	mode := os.FileMode(0o644)
	if err == nil {
		mode = fi.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	f, err := os.CreateTemp(filepath.Clean(dir+"."), "."+base+".*"+TempSuffix)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: path, Err: unwrapPath(err)}
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		_ = os.Remove(f.Name())
		return nil, err
	}
	out := &File{File: f, path: path, tmp: f.Name()}
	track(out, true)
	return out, nil
}

// unwrapPath is a path error's cause (so that messages name the path the
// user gave, not the temporary one).
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Close finishes the file: a regular file appears under its name now, or,
// if closing fails, not at all. Closing twice does nothing more.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	err := f.File.Close()
	if f.tmp == "" {
		return err
	}
	track(f, false)
	if err != nil {
		_ = os.Remove(f.tmp)
		return err
	}
	return os.Rename(f.tmp, f.path)
}

// Abort closes the file without making it: a regular file is left as it
// was before (absent, or its earlier content).
func (f *File) Abort() {
	if f.closed {
		return
	}
	f.closed = true
	_ = f.File.Close()
	if f.tmp != "" {
		track(f, false)
		_ = os.Remove(f.tmp)
	}
}

// Write writes b to path, complete or not at all.
func Write(path string, b []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.File.Write(b); err != nil {
		f.Abort()
		return err
	}
	return f.Close()
}
