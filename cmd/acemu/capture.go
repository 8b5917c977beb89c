package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/acemu/acemu/capture"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/systems"
)

// packetCapture is a --pcap file being written.
type packetCapture struct {
	f    *os.File
	w    *capture.Writer
	path string
}

// startCapture opens path for a capture of net's packets that filter
// (--pcap-filter) keeps.
func startCapture(path, filter string, net *fabric.Network) (*packetCapture, error) {
	f, err := capture.ParseFilter(filter)
	if err != nil {
		return nil, fmt.Errorf("--pcap-filter: %w", err)
	}
	out, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--pcap: %w", err)
	}
	w, err := capture.NewWriter(out, net, f)
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("--pcap %s: %w", path, err)
	}
	return &packetCapture{f: out, w: w, path: path}, nil
}

// close ends the capture; a failure to write it becomes *err when that is
// nil.
func (c *packetCapture) close(err *error) {
	var werr error
	if c.w != nil {
		werr = c.w.Err()
	}
	if cerr := c.f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil && *err == nil {
		*err = fmt.Errorf("--pcap %s: %w", c.path, werr)
	}
}

// systemCaptures are the --pcap files of a comparison, one per system,
// created before the run so that a path that cannot be written fails at
// once.
type systemCaptures struct {
	filter capture.Filter
	files  map[string]*packetCapture
	mu     sync.Mutex
	err    error
}

// newSystemCaptures creates each system's capture file: path itself for
// one system, path with the system's name before its extension for
// several (run.pcap: run.ace.pcap, run.ideal.pcap, …).
func newSystemCaptures(path, filter string, ss []systems.System) (*systemCaptures, error) {
	f, err := capture.ParseFilter(filter)
	if err != nil {
		return nil, fmt.Errorf("--pcap-filter: %w", err)
	}
	c := &systemCaptures{filter: f, files: map[string]*packetCapture{}}
	ext := filepath.Ext(path)
	for _, s := range ss {
		p := path
		if len(ss) > 1 {
			p = strings.TrimSuffix(path, ext) + "." + s.Name + cmp.Or(ext, ".pcap")
		}
		out, err := os.Create(p)
		if err != nil {
			c.close()
			return nil, fmt.Errorf("--pcap: %w", err)
		}
		c.files[s.Name] = &packetCapture{f: out, path: p}
	}
	return c, nil
}

// observer starts system's capture on net (compare.Options.Observe);
// systems run in parallel.
func (c *systemCaptures) observer(system string, net *fabric.Network) observe.Observer {
	pc := c.files[system]
	w, err := capture.NewWriter(pc.f, net, c.filter)
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = fmt.Errorf("--pcap %s: %w", pc.path, err)
		}
		c.mu.Unlock()
		return nil
	}
	pc.w = w
	return w
}

// close ends every capture and returns the first failure.
func (c *systemCaptures) close() error {
	err := c.err
	for _, pc := range c.files {
		pc.close(&err)
	}
	return err
}
