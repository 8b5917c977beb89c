package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/timeline"
	"github.com/acemu/acemu/units"
)

// timelineFile is a --trace file (an outputFile): its recorder's trace is
// written when the run ends.
type timelineFile struct {
	f    *outfile.File
	path string
	npus []int // --trace-npus; nil with all
	all  bool
	name func(system string) string
	r    *timeline.Recorder // once started
}

// traceOutput makes --trace files recording the NPUs npus names
// (--trace-npus: a list, or all), the run named by name.
func traceOutput(npus string, name func(system string) string) (func(f *outfile.File, path string) outputFile, error) {
	var list []int
	all := strings.EqualFold(strings.TrimSpace(npus), "all")
	if !all {
		for _, f := range strings.Split(npus, ",") {
			n, err := units.ParseInt(f)
			if err != nil {
				return nil, fmt.Errorf("--trace-npus %q: %w; want NPU numbers, comma-separated, or all", npus, err)
			}
			if n < 0 || n > math.MaxInt32 {
				return nil, fmt.Errorf("--trace-npus %q: want NPU numbers, comma-separated, or all", npus)
			}
			list = append(list, int(n))
		}
	}
	return func(f *outfile.File, path string) outputFile {
		return &timelineFile{f: f, path: path, npus: list, all: all, name: name}
	}, nil
}

// start checks the NPUs against the network and begins recording.
func (t *timelineFile) start(system string, net *fabric.Network) (observe.Observers, error) {
	o := timeline.Options{Name: t.name(system), NPUs: t.npus, All: t.all}
	if net.Folded() {
		o.StandsFor = net.NPUs()
	}
	for _, n := range t.npus {
		if n >= net.NPUs() {
			return observe.Observers{}, fmt.Errorf("--trace-npus: NPU %d: want NPU numbers from 0 to %d, comma-separated, or all", n, net.NPUs()-1)
		}
		if net.Folded() && n != 0 {
			return observe.Observers{}, fmt.Errorf("--trace-npus: NPU %d: one NPU, NPU 0, stands for all in this run; --full simulates every NPU", n)
		}
	}
	t.r = timeline.New(o)
	return observe.Observers{Work: t.r}, nil // a timeline draws no packets
}

// close writes the trace, if the run started it.
func (t *timelineFile) close(err *error) {
	if t.r == nil { // never started: no file
		t.f.Abort()
		return
	}
	closeOutput(t.f, "--trace", t.path, t.r.Write(t.f), err)
}
