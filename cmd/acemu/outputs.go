package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/systems"
)

// outputFile is a file a run writes as it goes (--pcap, --trace): start
// gives the observers that write it once the run's network exists, close
// finishes it.
type outputFile interface {
	start(system string, net *fabric.Network) (observe.Observers, error)
	// close finishes the file; a failure becomes *err when that is nil.
	close(err *error)
}

// closeOutput closes f after a write error werr (nil: none), and puts the
// first failure, named by flag and path, into *err when that is nil.
func closeOutput(f *os.File, flag, path string, werr error, err *error) {
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil && *err == nil {
		*err = fmt.Errorf("%s %s: %w", flag, path, werr)
	}
}

// createOutput creates path (for flag) as an output file made by mk.
func createOutput(flag, path string, mk func(*os.File, string) outputFile) (outputFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return mk(f, path), nil
}

// systemOutputs are a comparison's output files of one kind, one per
// system, created before the run so that a path that cannot be written
// fails at once: path itself for one system, path with the system's name
// before its extension (ext if it has none) for several (run.pcap:
// run.ace.pcap, run.ideal.pcap, …).
type systemOutputs struct {
	files map[string]outputFile
	mu    sync.Mutex
	err   error // the first failure to start one (systems run in parallel)
}

func newSystemOutputs(flag, path, ext string, ss []systems.System, mk func(*os.File, string) outputFile) (*systemOutputs, error) {
	o := &systemOutputs{files: map[string]outputFile{}}
	for _, s := range ss {
		p := path
		if len(ss) > 1 {
			e := filepath.Ext(path)
			p = strings.TrimSuffix(path, e) + "." + s.Name + cmp.Or(e, ext)
		}
		f, err := createOutput(flag, p, mk)
		if err != nil {
			_ = o.close()
			return nil, err
		}
		o.files[s.Name] = f
	}
	return o, nil
}

// observer starts system's file on net (compare.Options.Observe).
func (o *systemOutputs) observer(system string, net *fabric.Network) observe.Observers {
	obs, err := o.files[system].start(system, net)
	if err != nil {
		o.mu.Lock()
		o.err = cmp.Or(o.err, err)
		o.mu.Unlock()
		return observe.Observers{}
	}
	return obs
}

// close finishes every file and returns the first failure.
func (o *systemOutputs) close() error {
	err := o.err
	for _, f := range o.files {
		f.close(&err)
	}
	return err
}

// outputKind is an output file a command's flags ask for, not yet
// created: its flag, path, default extension and how it is made.
type outputKind struct {
	flag, path, ext string
	mk              func(*os.File, string) outputFile
}

// askedOutputs are the output files asked for: --pcap (with its filter)
// and --trace (with its NPUs; name names the run of a system), where the
// path is not "".
func askedOutputs(pcap, filter, trace, npus string, name func(system string) string) ([]outputKind, error) {
	var out []outputKind
	if pcap != "" {
		mk, err := pcapOutput(filter)
		if err != nil {
			return nil, err
		}
		out = append(out, outputKind{"--pcap", pcap, ".pcap", mk})
	}
	if trace != "" {
		mk, err := traceOutput(npus, name)
		if err != nil {
			return nil, err
		}
		out = append(out, outputKind{"--trace", trace, ".json", mk})
	}
	return out, nil
}

// startOutputs creates each output and starts it on net, for a run of
// one system; it returns their observers and what finishes them (a
// failure becomes *err when that is nil).
func startOutputs(kinds []outputKind, net *fabric.Network) (obs observe.Observers, finish func(err *error), err error) {
	var files []outputFile
	closeAll := func(err *error) {
		for _, f := range files {
			f.close(err)
		}
	}
	defer func() {
		if err != nil {
			var ignored error // err is the failure to report
			closeAll(&ignored)
		}
	}()
	var all []observe.Observers
	for _, k := range kinds {
		f, err := createOutput(k.flag, k.path, k.mk)
		if err != nil {
			return observe.Observers{}, nil, err
		}
		files = append(files, f)
		o, err := f.start("", net)
		if err != nil {
			return observe.Observers{}, nil, err
		}
		all = append(all, o)
	}
	return observe.JoinAll(all...), closeAll, nil
}
