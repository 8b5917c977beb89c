package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/systems"
	"github.com/spf13/pflag"
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
func closeOutput(f *outfile.File, flag, path string, werr error, err *error) {
	if werr != nil {
		f.Abort() // never a truncated file
	} else {
		werr = f.Close()
	}
	if werr != nil && *err == nil {
		*err = fmt.Errorf("%s %s: %w", flag, path, werr)
	}
}

// createOutput creates path (for flag) as an output file made by mk.
func createOutput(flag, path string, mk func(*outfile.File, string) outputFile) (outputFile, error) {
	f, err := outfile.Create(path)
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

func newSystemOutputs(flag, path, ext string, ss []systems.System, mk func(*outfile.File, string) outputFile) (*systemOutputs, error) {
	o := &systemOutputs{files: map[string]outputFile{}}
	for _, s := range ss {
		f, err := createOutput(flag, systemPath(path, ext, s.Name, ss), mk)
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

// outputFlags are the flags of the files a run writes: --out, the files
// written as it goes, --pcap (with --pcap-filter) and --trace (with
// --trace-npus), and --links, written when it ends; and --wide, how its
// tables print (result.wide).
type outputFlags struct {
	out, pcap, pcapFilter, trace, traceNPUs, links string
	wide                                           bool
}

// register adds the flags to fs; perSystem says that a run has several
// systems, each with its own files, and out what --out writes besides
// the results, the platform and the files given as relative paths.
func (f *outputFlags) register(fs *pflag.FlagSet, perSystem bool, out string) {
	pcapEach, traceEach, traceWhat, linksEach := "", "", "the run", ""
	if perSystem {
		pcapEach, traceEach, traceWhat, linksEach = " (one per system, named FILE.SYSTEM.pcap, when several)", " (one per system, named FILE.SYSTEM.json, when several)", "each system's run", " (one per system, named FILE.SYSTEM.csv, when several)"
	}
	fs.StringVar(&f.out, "out", "", "also write every artifact of the run into this directory: result.txt, result.csv, result.json, the platform configuration used (platform.yaml), "+out+"files given as relative paths")
	fs.StringVar(&f.pcap, "pcap", "", "write every packet crossing a link to this pcap file"+pcapEach+", stamped with simulated time; where one NPU stands for all, its links only (--full: every link; docs/packet-capture.md)")
	fs.StringVar(&f.pcapFilter, "pcap-filter", "", "keep only these packets in --pcap, e.g. npu=0,coll=0,cycles=0-200000 (keys link, npu, coll, cycles)")
	fs.StringVar(&f.trace, "trace", "", "write a timeline of "+traceWhat+" to this file"+traceEach+": Chrome/Perfetto trace-event JSON (docs/timeline.md)")
	fs.StringVar(&f.traceNPUs, "trace-npus", "0", "NPUs whose chunks and ACE counters --trace records: a list such as 0,5 or all")
	fs.StringVar(&f.links, "links", "", "write what each link carried to this CSV file"+linksEach+": one row per link, its nodes, port, class, whether a switch is at either end, bytes, packets, busy cycles, utilisation and busiest-window utilisation; where one NPU stands for all, its links only (docs/cli.md)")
	registerWide(fs, &f.wide)
}

// fileFlag is a flag that names a file: an input the run reads
// (--workload, --config), or an output written once for the whole run
// (--timeseries, --per-layer), whose path --out may move.
type fileFlag struct {
	flag string
	path *string
}

// prepare checks the flags once fs is parsed (a filter without its file
// would be ignored; no output on an input or on another output,
// refuseClashes) and, with --out, moves the relative paths (the run's
// files and the whole-run outputs outs) into it; it then creates the
// directory of every output file, as --out and --plot create theirs.
// ss are the run's systems, each with its own --pcap, --trace and --links
// file when there are several; more are the command's other outputs
// (--plot's figures). Call it once every other flag is known good: it
// creates directories.
func (f *outputFlags) prepare(fs *pflag.FlagSet, ss []systems.System, inputs []fileUse, more []fileUse, outs ...fileFlag) error {
	if f.pcap == "" {
		if err := refuseFlags(fs, []string{"pcap-filter"}, "is for --pcap"); err != nil {
			return err
		}
	}
	if f.trace == "" {
		if err := refuseFlags(fs, []string{"trace-npus"}, "is for --trace"); err != nil {
			return err
		}
	}
	paths := []*string{&f.pcap, &f.trace, &f.links}
	for _, o := range outs {
		paths = append(paths, o.path)
	}
	if f.out != "" {
		for _, p := range paths {
			*p = inDir(f.out, *p)
		}
	}
	files := f.files(ss, outs)
	if err := refuseClashes(inputs, slices.Concat(f.outFiles(len(outs) > 0, len(more) == 0), more, files)); err != nil {
		return err
	}
	if f.out != "" {
		if err := makeDir("--out", f.out); err != nil {
			return err
		}
	}
	return makeParents(files)
}

// makeDir creates dir, given by flag, and its parents, if need be.
func makeDir(flag, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}

// systemPath is a per-system output's file for system s among ss: path
// itself for one system, with the system's name before its extension (ext
// if it has none) for several.
func systemPath(path, ext, s string, ss []systems.System) string {
	if len(ss) < 2 {
		return path
	}
	e := filepath.Ext(path)
	return strings.TrimSuffix(path, e) + "." + s + cmp.Or(e, ext)
}

// resultFiles are the results --out writes (writeOut), summary.csv when
// the run has a summary table.
var resultFiles = []string{"result.txt", "result.csv", "result.json", "platform.yaml"}

// figureFiles are the comparison's figures, drawn into --plot's directory
// or else --out's.
var figureFiles = []string{"utilization.png", "utilization.svg", "breakdown.png", "breakdown.svg"}

// outFiles are the files --out writes itself: the results (and
// summary.csv for a comparison, the one run with whole-run outputs), and
// the figures when drawn there (figures).
func (f *outputFlags) outFiles(comparison, figures bool) []fileUse {
	names := resultFiles
	if comparison {
		names = append(slices.Clone(names), "summary.csv")
		if figures {
			names = append(names, figureFiles...)
		}
	}
	return dirFiles("--out", f.out, names...)
}

// files are the output flags' files: each system's --pcap, --trace and
// --links file and the whole-run outputs outs.
func (f *outputFlags) files(ss []systems.System, outs []fileFlag) []fileUse {
	var files []fileUse
	for _, o := range outs {
		files = append(files, fileUse{flag: o.flag, path: *o.path})
	}
	names := []string{""} // one run
	if len(ss) > 1 {
		names = nil
		for _, s := range ss {
			names = append(names, s.Name)
		}
	}
	for _, k := range f.perSystem() {
		if k.path == "" {
			continue
		}
		for _, n := range names {
			what := k.flag
			if n != "" {
				what += " (for " + n + ")"
			}
			files = append(files, fileUse{flag: what, path: systemPath(k.path, k.ext, n, ss)})
		}
	}
	return files
}

// outputKind is an output file a command's flags ask for, not yet
// created: its flag, path, default extension and how it is made.
type outputKind struct {
	flag, path, ext string
	mk              func(*outfile.File, string) outputFile
}

// asked returns the files written as the run goes that the flags ask for:
// --pcap (with its filter, checked against the run's npus NPUs) and
// --trace (with its NPUs; name names the run of a system).
func (f *outputFlags) asked(npus int, name func(system string) string) ([]outputKind, error) {
	makers := [...]func() (func(*outfile.File, string) outputFile, error){ // in perSystem's order
		func() (func(*outfile.File, string) outputFile, error) { return pcapOutput(f.pcapFilter, npus) },
		func() (func(*outfile.File, string) outputFile, error) { return traceOutput(f.traceNPUs, name) },
	}
	var out []outputKind
	kinds := f.perSystem()
	for i, k := range kinds[:len(makers)] {
		if k.path == "" {
			continue
		}
		var err error
		if k.mk, err = makers[i](); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// perSystem are the outputs written for each system, in this order:
// --pcap and --trace (written as the run goes), and --links (when it
// ends), with the paths given ("" for none) and their default extensions.
func (f *outputFlags) perSystem() [3]outputKind {
	return [3]outputKind{{flag: "--pcap", path: f.pcap, ext: ".pcap"}, {flag: "--trace", path: f.trace, ext: ".json"}, f.linksKind()}
}

// linksKind is the --links output.
func (f *outputFlags) linksKind() outputKind {
	return outputKind{flag: "--links", path: f.links, ext: ".csv", mk: linksOutput}
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
