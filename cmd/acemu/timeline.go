package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/timeline"
)

// timelineFile is a --trace file and the recorder whose trace goes in it.
type timelineFile struct {
	f    *os.File
	r    *timeline.Recorder
	path string
}

// traceOptions reads --trace-npus for a run on net.
func traceOptions(npus, name string, net *fabric.Network) (timeline.Options, error) {
	o := timeline.Options{Name: name}
	if net.Folded() {
		o.StandsFor = net.NPUs()
	}
	if strings.EqualFold(strings.TrimSpace(npus), "all") {
		o.All = true
		return o, nil
	}
	for _, f := range strings.Split(npus, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n >= net.NPUs() {
			return o, fmt.Errorf("--trace-npus %q: want NPU numbers from 0 to %d, comma-separated, or all", npus, net.NPUs()-1)
		}
		if net.Folded() && n != 0 {
			return o, fmt.Errorf("--trace-npus %q: one NPU, NPU 0, stands for all in this run; --full simulates every NPU", npus)
		}
		o.NPUs = append(o.NPUs, n)
	}
	return o, nil
}

// startTimeline creates path for the timeline of a run on net.
func startTimeline(path, npus, name string, net *fabric.Network) (*timelineFile, error) {
	o, err := traceOptions(npus, name, net)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	return &timelineFile{f: f, r: timeline.New(o), path: path}, nil
}

// close writes the trace and closes the file; a failure becomes *err when
// that is nil.
func (t *timelineFile) close(err *error) {
	werr := t.r.Write(t.f)
	if cerr := t.f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil && *err == nil {
		*err = fmt.Errorf("--trace %s: %w", t.path, werr)
	}
}

// systemTimelines are the --trace files of a comparison, one per system
// (createSystemFiles).
type systemTimelines struct {
	npus  string
	files map[string]*timelineFile
	errs  firstError
}

func newSystemTimelines(path, npus string, ss []systems.System) (*systemTimelines, error) {
	files, err := createSystemFiles("--trace", path, ".json", ss)
	if err != nil {
		return nil, err
	}
	t := &systemTimelines{npus: npus, files: map[string]*timelineFile{}}
	for name, sf := range files {
		t.files[name] = &timelineFile{f: sf.f, path: sf.path}
	}
	return t, nil
}

// observer starts system's timeline on net (compare.Options.Observe).
func (t *systemTimelines) observer(system, workload string, net *fabric.Network) observe.Observer {
	tf := t.files[system]
	o, err := traceOptions(t.npus, workload+" on "+system, net)
	if err != nil {
		t.errs.set(err)
		return nil
	}
	tf.r = timeline.New(o)
	return tf.r
}

// close writes every timeline and returns the first failure.
func (t *systemTimelines) close() error {
	err := t.errs.err
	for _, tf := range t.files {
		if tf.r == nil {
			tf.f.Close()
			continue
		}
		tf.close(&err)
	}
	return err
}
