package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/acemu/acemu/systems"
)

// systemFile is one system's output file of a comparison.
type systemFile struct {
	f    *os.File
	path string
}

// createSystemFiles creates each system's file for flag: path itself for
// one system, path with the system's name before its extension (ext if
// it has none) for several (run.pcap: run.ace.pcap, run.ideal.pcap, …).
// They are created before the run, so that a path that cannot be written
// fails at once.
func createSystemFiles(flag, path, ext string, ss []systems.System) (map[string]systemFile, error) {
	files := map[string]systemFile{}
	for _, s := range ss {
		p := path
		if len(ss) > 1 {
			e := filepath.Ext(path)
			p = strings.TrimSuffix(path, e) + "." + s.Name + cmp.Or(e, ext)
		}
		f, err := os.Create(p)
		if err != nil {
			for _, sf := range files {
				sf.f.Close()
			}
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		files[s.Name] = systemFile{f: f, path: p}
	}
	return files, nil
}

// firstError keeps the first error of systems running in parallel.
type firstError struct {
	mu  sync.Mutex
	err error
}

func (e *firstError) set(err error) {
	e.mu.Lock()
	e.err = cmp.Or(e.err, err)
	e.mu.Unlock()
}
