package main

import (
	"fmt"

	"github.com/acemu/acemu/capture"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/observe"
)

// packetCapture is a --pcap file (an outputFile).
type packetCapture struct {
	f      *outfile.File
	path   string
	filter capture.Filter
	w      *capture.Writer // once started
}

// pcapOutput makes --pcap files keeping what filter (--pcap-filter) keeps,
// for a run of npus NPUs.
func pcapOutput(filter string, npus int) (func(f *outfile.File, path string) outputFile, error) {
	flt, err := capture.ParseFilter(filter)
	if err == nil {
		err = flt.CheckNPUs(npus)
	}
	if err != nil {
		return nil, fmt.Errorf("--pcap-filter: %w", err)
	}
	return func(f *outfile.File, path string) outputFile { return &packetCapture{f: f, path: path, filter: flt} }, nil
}

func (c *packetCapture) start(_ string, net *fabric.Network) (observe.Observers, error) {
	if t := c.filter.FoldedNPU(); t != "" && net.Folded() {
		return observe.Observers{}, fmt.Errorf("--pcap-filter %s: this run is folded: only NPU 0 and its links are simulated, standing for all %d NPUs, so a filter on another NPU would miss its own links' packets (or keep none); filter npu=0, or add --full to simulate every NPU", t, net.NPUs())
	}
	w, err := capture.NewWriter(c.f, net, c.filter)
	if err != nil {
		return observe.Observers{}, fmt.Errorf("--pcap %s: %w", c.path, err)
	}
	c.w = w
	return observe.Observers{Packets: w}, nil
}

func (c *packetCapture) close(err *error) {
	if c.w == nil { // never started: no file
		c.f.Abort()
		return
	}
	closeOutput(c.f, "--pcap", c.path, c.w.Flush(), err)
}
