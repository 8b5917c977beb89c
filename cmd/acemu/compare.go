package main

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/units"
	"github.com/acemu/acemu/workload"
	"github.com/acemu/acemu/workload/models"
)

const compareUsage = `Usage: acemu [--workload NAME|FILE] [--topo MACHINE] [flags]

Train a workload for --iterations iterations on Table VI's systems and compare
them: compute, exposed communication, iteration time, %% of the ideal system,
and ACE's speedup over each. Built-in workloads: %s; or an ASTRA-sim 1.0
text workload file (docs/astrasim-workloads.md); or a Chakra execution trace,
PREFIX.0.et with a file per rank (docs/chakra.md). Systems run in parallel;
results do not depend on it.

Flags:
`

func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("acemu", pflag.ContinueOnError)
	topo := fs.String("topo", defaultTopo, "the machine: a torus LxVxH, dgx1, a switch fabric switch:P0xP1 (e.g. switch:4x4) or a topology file (docs/topology.md)")
	wl := fs.String("workload", defaultWorkload, "built-in workload ("+strings.Join(workload.BuiltinNames(), ", ")+") or an ASTRA-sim workload file")
	sysList := fs.String("systems", strings.Join(systems.Names()[:5], ","), "systems to compare, comma-separated")
	intFlag(fs, "iterations", platform.Default().Iterations, "training iterations")
	fs.String("priority", defaultOf("training.priority"), "order of collectives competing for the network: lifo or fifo")
	ccube := fs.String("ccube", "", "the C-Cube paper's configuration B, C1, C2, CC or R (its Section V-B): sets the all-reduce's algorithm (double-tree, double-tree-overlapped or the ring), --schedule (oneshot or oneshot-chained) and, for the trees, the one-shot all-reduce as one chunk on every system but ACE (docs/training-loop.md, \"The one-shot as one chunk\"); for dgx1, the paper's machine")
	schedule := fs.String("schedule", train.ScheduleLayerwise.String(), "when the overlapping systems all-reduce their weight gradients: "+strings.Join(train.Schedules(), ", ")+" (layerwise: each layer's after its back-prop, the ACE paper's; oneshot: one after back-prop, which the next forward pass waits for; oneshot-chained: the same with gradient queuing, each layer's forward waiting only for its own chunks; docs/training-loop.md)")
	fs.String("policy", defaultOf("training.issue_policy"), "how the overlapping systems issue their weight-gradient all-reduces: eager (each when its gradients exist, the ACE paper's), funnel, concum (concum:K for K in flight; 2 by default) or depcha, the designs of the MXNet-MPI paper's Section 4 (docs/training-loop.md, \"Issue policies\")")
	fs.String("key-order", defaultOf("training.key_order"), "the keys funnel, concum and depcha issue by: backward (key 0 is the first gradient back-prop produces) or forward (key 0 is the first layer's)")
	fs.String("copy-bw", defaultOf("training.copy"), "under funnel, concum and depcha, the rate of each gradient's copy into its communication buffer, one copy at a time: none (all-reduced in place) or a bandwidth such as 16GB/s")
	fs.String("fusion", defaultOf("training.fusion"), "tensor fusion: none, or a bucket size (e.g. 25MB): weight-gradient all-reduces fused in back-prop order until a bucket holds that many bytes")
	format := fs.String("format", "table", "output: "+formats)
	workers := intFlag(fs, "workers", 0, "systems simulated at once (default GOMAXPROCS)")
	full := fs.Bool("full", false, "simulate every NPU even where one can stand for all (same results, slower; for checking)")
	series := fs.String("timeseries", "", "write each system's network utilisation per 1000-cycle window to this CSV file")
	perLayer := fs.String("per-layer", "", "write each system's compute and exposed communication per iteration, layer and pass, and each layer's collectives, to this file: .csv or .json by its extension (docs/cli.md, \"Per-layer results\")")
	plotDir := fs.String("plot", "", "draw the network utilisation over time (Fig. 10) and the iteration breakdown (Fig. 11) as PNG and SVG into this directory")
	var of outputFlags
	of.register(fs, true, "the figures (as --plot), and --timeseries, --per-layer, --trace, --pcap and --links ")
	fs.String("compute", defaultOf("training.compute"), "where a built-in workload's compute comes from: "+strings.Join(workload.ComputeSources(), ", ")+" (auto: the paper's simulator's per-layer times where public, else the roofline; docs/workloads.md)")
	fs.String("batch", defaultOf("training.batch"), "samples per NPU of a built-in workload on the roofline: paper (the paper's: 32, 128, 512) or a number")
	otherReg := fs.Bool("other-regime", true, "for a built-in with both compute regimes, also run the other one and print its result in one line")
	fs.String("memory-policy", defaultOf("training.memory_policy"), "how compute and communication share each NPU's memory and SMs: "+strings.Join(contend.Policies(), " or ")+" (docs/memory-system.md)")
	registerACEFlags(fs)
	fs.String("ace-mem-bw", defaultOf("ace.mem_bw"), "memory bandwidth given to ACE's DMA, each way (Table VI); compute gets the rest of 900 GB/s")
	var pf platformFlags
	pf.register(fs)
	var tf traceFlags
	tf.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), compareUsage, strings.Join(workload.BuiltinNames(), ", "))
		fmt.Fprint(fs.Output(), fs.FlagUsages())
	}
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu: %v\n", err)
		return 1
	}
	if *wl == "" {
		return fail(fmt.Errorf("--workload is empty: give one of %s or an ASTRA-sim file", strings.Join(workload.BuiltinNames(), ", ")))
	}
	if err := checkFormat(*format); err != nil {
		return fail(err)
	}
	if err := checkWorkers(*workers); err != nil {
		return fail(err)
	}
	if isChakra(*wl) {
		return runTraceCompare(fs, *wl, *topo, *sysList, *format, *workers, &pf, tf, of.wide, stdout, stderr)
	}
	if err := refuseFlags(fs, traceOnly, "is for a Chakra trace (--workload PREFIX.0.et; docs/chakra.md), not "+*wl); err != nil {
		return fail(err)
	}
	sched, err := train.ParseSchedule(*schedule)
	if err != nil {
		return fail(fmt.Errorf("--schedule: %w", err))
	}
	var cc *compare.CCubeConfig
	if *ccube != "" {
		c, err := compare.CCubeConfigOf(*ccube)
		if err != nil {
			return fail(fmt.Errorf("--ccube: %w", err))
		}
		if fs.Changed("schedule") {
			return fail(fmt.Errorf("--ccube %s sets the schedule (%s); drop --schedule", c.Name, c.Schedule))
		}
		cc, sched = &c, c.Schedule
	}
	machine, err := parseTopoFlag(*topo)
	if err != nil {
		return fail(err)
	}
	// The platform: defaults, --config, --set, then the named flags given.
	p, err := pf.build(fs)
	if err != nil {
		return fail(err)
	}
	if cc != nil {
		got, def := p.Algorithms[collectives.OpAllReduce], platform.Default().Algorithms[collectives.OpAllReduce]
		if from := pf.given(fs, flagKeys)("collectives.allreduce", got); got != def || strings.HasPrefix(from, "--set ") {
			return fail(fmt.Errorf("--ccube %s sets the all-reduce's algorithm (%s); drop collectives.allreduce = %s", cc.Name, cc.Algorithm, got))
		}
		if err := p.Set("collectives.allreduce", cc.Algorithm); err != nil {
			return fail(fmt.Errorf("--ccube %s: %w", cc.Name, err))
		}
	}
	if err := unusedLinkKeys(p, machine, *topo); err != nil {
		return fail(err)
	}
	w, err := compare.PlatformWorkloadGiven(p, *wl, pf.given(fs, flagKeys))
	if err != nil {
		return fail(err)
	}
	if err := unusedMemBoundShare(p, w); err != nil {
		return fail(err)
	}
	if err := unusedMicro(p, w); err != nil {
		return fail(err)
	}
	opts, err := compare.PlatformOptions(p)
	if err != nil {
		return fail(err)
	}
	ss, err := compare.PlatformSystems(splitList(*sysList), p)
	if err != nil {
		return fail(fmt.Errorf("--systems: %w", err))
	}
	if !slices.ContainsFunc(ss, func(s systems.System) bool { return s.Kind == systems.ACE }) {
		if err := refuseFlags(fs, aceFlagNames, "is for ACE, which --systems does not include"); err != nil {
			return fail(err)
		}
		if err := unusedParams(p, "a comparison without ACE (--systems)", "ace."); err != nil {
			return fail(err)
		}
	}
	if err := unusedSchedule(sched, ss, w); err != nil {
		return fail(err)
	}
	uses := compare.Uses{Systems: ss, Workloads: []*workload.Workload{w}, Builtin: slices.Contains(workload.BuiltinNames(), *wl)}
	if err := unusedByRun(p, uses, pf.given(fs, flagKeys)); err != nil {
		return fail(err)
	}
	if err := unusedIssue(p, ss, w, sched); err != nil {
		return fail(err)
	}
	var perLayerAs string // the --per-layer file's format
	if *perLayer != "" {
		if perLayerAs, err = perLayerFormat(*perLayer); err != nil {
			return fail(err)
		}
	}
	inputs := []fileUse{{flag: "--config", path: pf.config}}
	if !slices.Contains(workload.BuiltinNames(), *wl) {
		inputs = append(inputs, fileUse{flag: "--workload", path: *wl})
	}
	if machine.Kind == "file" {
		inputs = append(inputs, fileUse{flag: "--topo", path: *topo})
	}
	if err := of.prepare(fs, ss, inputs, dirFiles("--plot", *plotDir, figureFiles...), fileFlag{"--timeseries", series}, fileFlag{"--per-layer", perLayer}); err != nil {
		return fail(err)
	}
	var perLayerFile *outfile.File
	if *perLayer != "" {
		if perLayerFile, err = outfile.Create(*perLayer); err != nil {
			return fail(fmt.Errorf("--per-layer: %w", err))
		}
		defer perLayerFile.Abort() // written at the end; nothing is left by a run that fails
	}
	plotFlag := "--plot"
	if of.out != "" && *plotDir == "" {
		*plotDir, plotFlag = of.out, "--out"
	}
	opts.Machine, opts.Workload, opts.Systems, opts.Schedule = machine, w, ss, sched
	if cc != nil {
		cc.Apply(&opts)
	}
	opts.Workers, opts.Full, opts.Series = *workers, *full, *series != "" || *plotDir != ""
	opts.KeepMetrics = *perLayer != ""
	kinds, err := of.asked(machine.Machine.N(), func(system string) string { return w.Name + " on " + system })
	if err != nil {
		return fail(err)
	}
	var outs []*systemOutputs // --pcap, --trace: one file per system
	for _, k := range kinds {
		o, err := newSystemOutputs(k.flag, k.path, k.ext, ss, k.mk)
		if err != nil {
			for _, o := range outs {
				_ = o.close()
			}
			return fail(err)
		}
		outs = append(outs, o)
	}
	// --links: one file per system, created now, written from the results.
	var links *systemOutputs
	if k := of.linksKind(); k.path != "" {
		if links, err = newSystemOutputs(k.flag, k.path, k.ext, ss, k.mk); err != nil {
			for _, o := range outs {
				_ = o.close()
			}
			return fail(err)
		}
		opts.LinkStats = true
	}
	if len(outs) > 0 {
		opts.Observe = func(system string, net *fabric.Network) observe.Observers {
			var obs []observe.Observers
			for _, o := range outs {
				obs = append(obs, o.observer(system, net))
			}
			return observe.JoinAll(obs...)
		}
	}
	var names []string
	for _, s := range ss {
		names = append(names, s.Name)
	}
	pb := newProgressBars(stderr, names, barsQueued)
	if pb != nil {
		opts.Progress = pb.update
	}
	// Ctrl-C prints the systems that finished.
	var finMu sync.Mutex
	var finished []compare.SystemResult
	opts.Finished = func(r compare.SystemResult) {
		finMu.Lock()
		defer finMu.Unlock()
		r.NetworkUtilization, r.ComputeUtilization, r.LinkStats = nil, nil, nil // in the files, not the report
		finished = append(finished, r)
	}
	defer onInterrupt(func(stderr io.Writer) {
		pb.finish() // the bars stop before the results and the message
		finMu.Lock()
		defer finMu.Unlock()
		if len(finished) == 0 {
			fmt.Fprintf(stderr, "acemu: interrupted before any of the %d systems finished; files being written were removed\n", len(ss))
			return
		}
		slices.SortFunc(finished, func(a, b compare.SystemResult) int {
			return slices.Index(names, a.Name) - slices.Index(names, b.Name)
		})
		part := result{doc: map[string]any{"interrupted": true, "workload": w.Name, "topology": machine.Machine.Name, "systems": finished}}
		part.header, part.rows = compareTable(finished, nil, nil, false)
		part.full, part.prov, part.wide = &summary{}, provenanceOf(p), of.wide
		part.full.header, part.full.rows = compareTable(finished, nil, nil, true)
		_ = part.write(stdout, *format)
		fmt.Fprintf(stderr, "acemu: interrupted: %d of %d systems finished (printed); files being written were removed\n", len(finished), len(ss))
	})()
	// The other compute regime runs beside, its one line under the table.
	var other *workload.Workload
	if *otherReg {
		if other, err = otherRegime(w); err != nil {
			return fail(err)
		}
	}
	var otherRep *compare.Report
	var otherErr error
	var otherDone sync.WaitGroup
	if other != nil {
		oo := opts
		oo.Workload, oo.Observe, oo.Finished, oo.Progress, oo.Series, oo.KeepMetrics, oo.LinkStats = other, nil, nil, nil, false, false, false
		otherDone.Add(1)
		go func() {
			defer otherDone.Done()
			otherRep, otherErr = compare.Run(oo)
		}()
	}
	rep, err := compare.Run(opts)
	otherDone.Wait()
	err = cmp.Or(err, otherErr)
	pb.finish()
	if links != nil {
		if err == nil {
			for _, r := range rep.Systems {
				links.files[r.Name].(*linksFile).set(r.LinkStats)
			}
		}
		outs = append(outs, links)
	}
	for _, o := range outs {
		err = cmp.Or(err, o.close())
	}
	if err != nil {
		return fail(err)
	}
	if *series != "" {
		if err := writeSeries(*series, rep); err != nil {
			return fail(fmt.Errorf("--timeseries: %w", err))
		}
	}
	if perLayerFile != nil {
		if err := writePerLayer(perLayerFile, *perLayer, rep, perLayerAs); err != nil {
			return fail(err)
		}
	}
	if *plotDir != "" {
		if err := drawComparison(plotFlag, *plotDir, rep); err != nil {
			return fail(err)
		}
	}
	for i := range rep.Systems {
		rep.Systems[i].NetworkUtilization, rep.Systems[i].ComputeUtilization = nil, nil // in the files, not the report
	}
	paper, withPaper := compare.PaperFig10(w.Name)
	// The paper's figures sit beside the paper's experiment (its compute)
	// or its stated setup (the roofline at its batch), on its torus.
	paperBatch, _ := models.Batch(w.Name)
	withPaper = withPaper && rep.Topology == compare.PaperTopology && rep.IssuePolicy == "" && rep.Fusion == "" &&
		(w.Compute == workload.ComputePaper || w.Compute == workload.ComputeRoofline && w.Batch == paperBatch)
	doc := commandReport{Report: rep, Compute: regimeLine(w)}
	// The paper's figures: columns of their own in the wide table and CSV,
	// a table of their own under the narrow one.
	if !withPaper {
		paper = nil
	}
	res := result{full: &summary{}, prov: provenanceOf(p)}
	res.header, res.rows = compareTable(rep.Systems, rep.SpeedupOfACE, paper, false)
	res.full.header, res.full.rows = compareTable(rep.Systems, rep.SpeedupOfACE, paper, true)
	if withPaper {
		doc.Paper = paper
		res.summary = paperTable(rep.Systems, rep.SpeedupOfACE, paper)
	}
	res.lead = append(res.lead, regimeLine(w))
	how := "every NPU simulated"
	if rep.Folded {
		how = "one NPU simulated for all (symmetric; --full to simulate each)"
	}
	res.notes = append(res.notes, compareLegend)
	if line := aceByPass(rep.Systems); line != "" {
		res.notes = append(res.notes, line)
	}
	res.notes = append(res.notes, fmt.Sprintf("%s on %s (%d NPUs), %s, %s priority, memory policy %s%s; cycles at 1245 MHz; %s", rep.Workload, rep.Topology, rep.NPUs, units.Count(p.Iterations, "iteration"), rep.Policy, rep.Memory, scheduleNote(rep.Schedule)+issueNote(rep), how))
	if line, err := train.Describe(w, machine.Machine, opts.Micro); err != nil {
		return fail(err)
	} else if line != "" {
		res.notes = append(res.notes, line)
	}
	if line := microNote(rep.Systems); line != "" {
		res.notes = append(res.notes, line)
	}
	res.notes = append(res.notes, libraNotes(rep.Systems)...)
	if cc != nil {
		as := "in the platform's chunks"
		if cc.Whole {
			as = "as one chunk on every system but ACE (in its chunks)"
		}
		res.notes = append(res.notes, fmt.Sprintf("C-Cube's %s: %s; the one-shot all-reduce (%s) %s", cc.Name, cc.What, cc.Algorithm, as))
	}
	if slices.ContainsFunc(ss, func(s systems.System) bool { return s.Kind == systems.Baseline }) {
		res.notes = append(res.notes, libraryNote(p.Library))
		doc.BaselineLibrary = &p.Library
	}
	if withPaper {
		res.notes = append(res.notes, "paper: the ACE paper's Section VI-B for this workload on 4x8x4 (Fig. 10); – where it gives none. docs/validation.md says by how much and why acemu differs.")
	}
	if otherRep != nil {
		doc.OtherRegime = &otherRegimeDoc{Compute: regimeLine(other), Report: otherRep}
		res.notes = append(res.notes, regimeSummary(other, otherRep))
	}
	res.doc, res.wide = doc, of.wide
	if of.out != "" {
		if err := res.writeOut(of.out, p); err != nil {
			return fail(err)
		}
	}
	if err := res.write(stdout, *format); err != nil {
		return fail(err)
	}
	return 0
}

// microNote gives a MICRO run's collectives' times per system, "" for
// other kinds.
func microNote(rs []compare.SystemResult) string {
	var parts []string
	for _, r := range rs {
		if len(r.MicroCycles) == 0 {
			continue
		}
		var cs []string
		for _, c := range r.MicroCycles {
			cs = append(cs, strconv.FormatInt(c, 10))
		}
		parts = append(parts, r.Name+" "+strings.Join(cs, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Each collective, issue to completion, in cycles: " + strings.Join(parts, "; ") + "."
}

// parseTopoFlag reads the machine --topo names, its errors naming the
// flag.
func parseTopoFlag(topo string) (*topology.Spec, error) {
	machine, err := topology.Parse(topo)
	if err != nil && !strings.Contains(err.Error(), "--topo") {
		err = fmt.Errorf("--topo: %w", err)
	}
	return machine, err
}

// unusedSchedule refuses a --schedule other than the default that would
// change nothing: no system in ss overlaps communication with compute
// (BaselineNoOverlap fuses its own all-reduce under every schedule), or w
// has no weight-gradient all-reduce to issue in one shot.
func unusedSchedule(s train.Schedule, ss []systems.System, w *workload.Workload) error {
	if s == train.ScheduleLayerwise {
		return nil
	}
	if !slices.ContainsFunc(ss, func(s systems.System) bool { return s.Overlap }) {
		return fmt.Errorf("--schedule %s: no system in --systems overlaps communication with compute, and baseline-nooverlap issues its own single all-reduce at the end of back-prop under every schedule (docs/training-loop.md); add an overlapping system or leave --schedule out", s)
	}
	if w.Parallelism != workload.ParallelismData && w.Parallelism != workload.ParallelismHybridDLRM {
		return fmt.Errorf("--schedule %s: the one-shot schedules are data parallelism's (docs/training-loop.md), and workload %s is %s (docs/parallelism.md); leave --schedule out", s, w.Name, w.Parallelism)
	}
	if train.OneShotBytes(w) == 0 {
		return fmt.Errorf("--schedule %s: workload %s has no weight-gradient all-reduce to issue in one shot, so the schedule changes nothing; leave --schedule out", s, w.Name)
	}
	return nil
}

// scheduleNote names a training schedule other than the default for the
// run's settings line (", schedule oneshot-chained"); "" for the default,
// layerwise, whose output is as it was before schedules could be chosen.
func scheduleNote(schedule string) string {
	if schedule == "" {
		return ""
	}
	return ", schedule " + schedule
}

// libraNotes says, for each LIBRA system of rs, the plan its programme
// chose on the curves measured before the run: how many groups on how
// many SMs, and the model's back-prop time.
func libraNotes(rs []compare.SystemResult) []string {
	var out []string
	for _, r := range rs {
		p := r.Libra
		if p == nil {
			continue
		}
		count := map[int]int{}
		for _, g := range p.Groups {
			count[g.SMs]++
		}
		var parts []string
		for _, sms := range slices.Sorted(maps.Keys(count)) {
			parts = append(parts, fmt.Sprintf("%d on %d SMs", count[sms], sms))
		}
		out = append(out, fmt.Sprintf("%s: %s's plan on contention curves measured on this platform (docs/libra.md): %s (%s), the model's back-prop %.3f ms.",
			r.Name, p.Programme, units.Count(len(p.Groups), "group"), strings.Join(parts, ", "), p.Predicted/1245e3))
	}
	return out
}

// issueNote names the issue policy and tensor fusion, when not the
// defaults, for the run's settings line (", issue policy depcha, keys in
// backward order, tensor fusion buckets of 25000000 B"); "" otherwise.
func issueNote(rep *compare.Report) string {
	s := ""
	if rep.IssuePolicy != "" {
		s += ", issue policy " + rep.IssuePolicy
	}
	if rep.Fusion != "" {
		s += ", tensor fusion " + rep.Fusion
	}
	return s
}

// commandReport is the comparator's --format json document: the report,
// where its compute comes from, the paper's figures beside it (Fig. 10, on
// 4x8x4) and the other compute regime's report.
type commandReport struct {
	*compare.Report
	Compute     string                      `json:"compute"`
	Paper       map[string]compare.PaperRow `json:"paper,omitempty"`
	OtherRegime *otherRegimeDoc             `json:"other_regime,omitempty"`
	// BaselineLibrary is what the baselines' library pays beyond bandwidth.
	BaselineLibrary *npu.Library `json:"baseline_library,omitempty"`
}

// libraryNote says what the SM-driven baselines pay beyond bandwidth.
func libraryNote(l npu.Library) string {
	return fmt.Sprintf("Baselines pay their library's latencies beyond bandwidth: %d cycles per collective, %d per step (NCCL's Simple protocol by default, docs/baseline-model.md; --set baseline.launch=0 --set baseline.step=0 for bandwidth alone).",
		l.LaunchCycles, l.StepCycles)
}

// otherRegimeDoc is the other compute regime's run.
type otherRegimeDoc struct {
	Compute string          `json:"compute"`
	Report  *compare.Report `json:"report"`
}

// writeSeries writes the systems' network utilisation per window as CSV:
// the window's first cycle, then one column per system (empty once a
// system's run has ended). It streams the rows to the file: a series of
// 10^7 windows is a CSV of some 550 MB, which is not held in memory.
func writeSeries(path string, rep *compare.Report) error {
	f, err := outfile.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w := csv.NewWriter(bw)
	head := []string{"cycle"}
	n := 0
	for _, s := range rep.Systems {
		head = append(head, s.Name+" link util %")
		n = max(n, len(s.NetworkUtilization))
	}
	_ = w.Write(head)
	row := make([]string, len(head))
	for i := 0; i < n; i++ {
		row[0] = strconv.Itoa(i * compare.WindowCycles)
		for j, s := range rep.Systems {
			v := ""
			if i < len(s.NetworkUtilization) {
				v = strconv.FormatFloat(100*s.NetworkUtilization[i], 'f', 4, 64)
			}
			row[j+1] = v
		}
		if err := w.Write(row); err != nil {
			f.Abort()
			return err
		}
	}
	w.Flush()
	if err := cmp.Or(w.Error(), bw.Flush()); err != nil {
		f.Abort()
		return err
	}
	return f.Close()
}

// loadWorkload returns a built-in workload or reads an ASTRA-sim file.
func loadWorkload(name string) (*workload.Workload, error) {
	w, err := workload.Load(name)
	if err != nil {
		return nil, fmt.Errorf("--workload: %w", err)
	}
	return w, nil
}

// fileHint adds to a torus topology's error for a file where the
// commands that read topology files are.
func fileHint(err error) error {
	if errors.Is(err, topology.ErrFile) {
		return fmt.Errorf("%w (topology files work with acemu, acemu collective and acemu topology dump)", err)
	}
	return err
}
