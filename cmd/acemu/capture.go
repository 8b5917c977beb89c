package main

import (
	"fmt"
	"os"

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

// systemCaptures are the --pcap files of a comparison, one per system
// (createSystemFiles).
type systemCaptures struct {
	filter capture.Filter
	files  map[string]*packetCapture
	errs   firstError
}

func newSystemCaptures(path, filter string, ss []systems.System) (*systemCaptures, error) {
	f, err := capture.ParseFilter(filter)
	if err != nil {
		return nil, fmt.Errorf("--pcap-filter: %w", err)
	}
	files, err := createSystemFiles("--pcap", path, ".pcap", ss)
	if err != nil {
		return nil, err
	}
	c := &systemCaptures{filter: f, files: map[string]*packetCapture{}}
	for name, sf := range files {
		c.files[name] = &packetCapture{f: sf.f, path: sf.path}
	}
	return c, nil
}

// observer starts system's capture on net (compare.Options.Observe);
// systems run in parallel.
func (c *systemCaptures) observer(system string, net *fabric.Network) observe.Observer {
	pc := c.files[system]
	w, err := capture.NewWriter(pc.f, net, c.filter)
	if err != nil {
		c.errs.set(fmt.Errorf("--pcap %s: %w", pc.path, err))
		return nil
	}
	pc.w = w
	return w
}

// close ends every capture and returns the first failure.
func (c *systemCaptures) close() error {
	err := c.errs.err
	for _, pc := range c.files {
		pc.close(&err)
	}
	return err
}
