package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/sim"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/units"
	"github.com/acemu/acemu/verify"
)

// collectiveReport is the JSON form of one collective run.
type collectiveReport struct {
	Topology     string   `json:"topology"`
	NPUs         int      `json:"npus"`
	Op           string   `json:"op"`
	Algorithm    string   `json:"algorithm"`
	Phases       []string `json:"phases"`
	System       string   `json:"system"`
	PayloadBytes int64    `json:"payload_bytes"`
	ChunkBytes   int64    `json:"chunk_bytes"`
	MessageBytes int64    `json:"message_bytes"`
	Chunks       int      `json:"chunks"`
	Folded       bool     `json:"folded"` // one NPU stood for all (same numbers)
	// BaselineLibrary is what a baseline's library pays beyond bandwidth.
	BaselineLibrary   *npu.Library       `json:"baseline_library,omitempty"`
	Cycles            int64              `json:"cycles"`
	TimeUs            float64            `json:"time_us"`
	BytesSentPerNPU   int64              `json:"bytes_sent_per_npu"`
	NetworkGBpsPerNPU float64            `json:"network_gbps_per_npu"`
	BoundGBpsPerNPU   *float64           `json:"bound_gbps_per_npu,omitempty"`
	LinkUtilization   map[string]float64 `json:"link_utilization"`
	linkLabels        []string           // LinkUtilization's keys in the machine's order, for the table
	MemReadPerNPU     int64              `json:"mem_read_bytes_per_npu"`
	MemWritePerNPU    int64              `json:"mem_write_bytes_per_npu"`
	CommSMs           int                `json:"comm_sms"`
	CommMemGBps       float64            `json:"comm_mem_gbps"`
	CommSMBusy        float64            `json:"comm_sm_busy"`
	ACE               *aceReport         `json:"ace,omitempty"`
	ACEUtilization    *float64           `json:"ace_utilization,omitempty"`
	DataOK            *bool              `json:"data_ok,omitempty"`
	DataError         string             `json:"data_error,omitempty"`
	Microcode         string             `json:"microcode,omitempty"`
	Events            uint64             `json:"events"`
	TraceHash         string             `json:"trace_hash,omitempty"`
}

// aceReport is the ACE-specific part of a report: busy shares of its
// resources (means over NPUs) and its layout.
type aceReport struct {
	SRAMBytes      int64   `json:"sram_bytes"`
	FSMs           int     `json:"fsms"`
	CommMemGBps    float64 `json:"comm_mem_gbps"`
	SRAMReadBusy   float64 `json:"sram_read_busy"`
	SRAMWriteBusy  float64 `json:"sram_write_busy"`
	ALUBusy        float64 `json:"alu_busy"`
	DMABusy        float64 `json:"dma_busy"`
	FSMBusy        float64 `json:"fsm_busy"`
	FSMBlocked     float64 `json:"fsm_blocked"`
	PartitionBytes []int64 `json:"partition_bytes"`
	Partition      string  `json:"partition"`
	FSMsPerPhase   []int   `json:"fsms_per_phase"`
	// SRAM ports per bank, each PortBytes wide.
	SRAMReadPorts  int `json:"sram_read_ports_per_bank"`
	SRAMWritePorts int `json:"sram_write_ports_per_bank"`
	SRAMPortBytes  int `json:"sram_port_bytes"`
}

// planOpts are the flags that choose a collective and its algorithm, shared
// by the collective and microcode commands.
type planOpts struct {
	topo, op, algorithm, phases, factors, size, chunk, message, group, groupNPUs string
	unidirectional                                                               bool
	spec                                                                         *topology.Spec // what --topo names
}

func (o *planOpts) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.topo, "topo", "4x4x4", "torus shape LxVxH (L NPUs per package ring, V×H packages), dgx1 (NVIDIA's DGX-1), a switch fabric switch:P0xP1 (e.g. switch:4x4), or a topology file (docs/topology.md; acemu topology dump writes one)")
	fs.StringVar(&o.op, "op", "allreduce", "collective: allreduce, reduce-scatter, all-gather, all-to-all")
	fs.StringVar(&o.algorithm, "algorithm", "", "algorithm (default: hierarchical; direct for all-to-all); one of:\n"+algorithmHelp())
	fs.StringVar(&o.phases, "phases", "", "hierarchical phases, kind:dimension[:algorithm] comma-separated,\ne.g. rs:local:ring,ar:vertical:ring,ar:horizontal:ring,ag:local:ring")
	fs.StringVar(&o.group, "group", "", "the dimensions the collective combines, comma-separated (e.g. v,h on a torus: each NPU's group of the packages sharing its local position, all groups at once); default every dimension (docs/collectives.md, \"Communicators\")")
	fs.StringVar(&o.groupNPUs, "group-npus", "", "the communicator as listed groups of NPUs: groups /-separated, each group's NPU ids (or ranges a-b) comma-separated in ring order, every NPU in one group, the groups equally large (e.g. "+groupNPUsExample+" on 4x4x1: its diagonals); each group combines its own data, all at once, its messages routed; --phases names it group (g); not with --group (docs/collectives.md, \"Communicators\")")
	fs.StringVar(&o.factors, "factors", "", "the factorisation of the NPU count blueconnect and two-level decompose over, lowest tier first, e.g. 3x2x2 (default: the machine's dimensions' sizes: a torus's L, V, H, a switch fabric's tiers)")
	fs.BoolVar(&o.unidirectional, "unidirectional", false, "run ring phases one way only (default: both ways, half the data each)")
	fs.StringVar(&o.size, "size", "64MiB", "collective size per NPU (KiB/MiB/GiB are powers of 1024, KB/MB/GB of 1000)")
	fs.StringVar(&o.chunk, "chunk", defaultOf("afi.chunk"), "initial chunk size, the unit of pipelining (Table III)")
	fs.StringVar(&o.message, "message", defaultOf("afi.message"), "largest message (Table V)")
}

func algorithmHelp() string {
	var b strings.Builder
	for _, a := range collectives.Algorithms() {
		var ops []string
		for _, o := range a.Ops {
			ops = append(ops, o.String())
		}
		fmt.Fprintf(&b, "  %s (%s): %s\n", a.Name, strings.Join(ops, ", "), a.Help)
	}
	fmt.Fprintf(&b, "per-phase algorithms for --phases: %s", strings.Join(collectives.GroupAlgorithmNames(), ", "))
	return b.String()
}

// plan builds the collective's plan from the flags, on the topology --topo
// names (topology.Parse: a torus, or a topology file whose NPUs are
// numbered as N×1×1 and whose messages are all routed).
func (o *planOpts) plan() (*collectives.Plan, error) {
	spec, err := topology.Parse(o.topo)
	if err != nil {
		return nil, err
	}
	o.spec = spec
	op, err := collectives.ParseOp(o.op)
	if err != nil {
		return nil, fmt.Errorf("--op: %w", err)
	}
	size, err := units.ParseSize(o.size)
	if err != nil {
		return nil, fmt.Errorf("--size: %w", err)
	}
	chunk, err := units.ParseSize(o.chunk)
	if err != nil {
		return nil, fmt.Errorf("--chunk: %w", err)
	}
	msg, err := units.ParseSize(o.message)
	if err != nil {
		return nil, fmt.Errorf("--message: %w", err)
	}
	cfg := collectives.Config{Machine: spec.Machine, Op: op, MessageBytes: msg, Unidirectional: o.unidirectional, PhaseSpec: o.phases}
	if o.group != "" {
		for _, d := range strings.Split(o.group, ",") {
			cfg.Span = append(cfg.Span, strings.TrimSpace(d))
		}
	}
	if o.groupNPUs != "" {
		if o.group != "" {
			return nil, fmt.Errorf("--group %s and --group-npus %s both name the communicator; give one: --group for dimensions, --group-npus for listed groups of NPUs", o.group, o.groupNPUs)
		}
		if cfg.Groups, err = parseGroupNPUs(o.groupNPUs, spec.Machine.N()); err != nil {
			return nil, err
		}
	}
	if o.factors != "" {
		for _, f := range strings.FieldsFunc(o.factors, func(r rune) bool { return r == 'x' || r == 'X' || r == ',' }) {
			v, err := units.ParseInt(f)
			if err != nil {
				return nil, fmt.Errorf("--factors %q: %w (factors are whole numbers, e.g. 3x2x2)", o.factors, err)
			}
			cfg.Factors = append(cfg.Factors, int(v))
		}
	}
	alg := o.algorithm
	if alg == "" {
		alg = collectives.DefaultAlgorithm(op)
	}
	if o.phases != "" && alg != "hierarchical" {
		return nil, fmt.Errorf("--phases is for --algorithm hierarchical, not %s", alg)
	}
	if o.group != "" && alg != "hierarchical" {
		return nil, fmt.Errorf("--group is for --algorithm hierarchical (the default all-reduce, reduce-scatter and all-gather), not %s", alg)
	}
	if o.groupNPUs != "" && alg != "hierarchical" {
		return nil, fmt.Errorf("--group-npus is for --algorithm hierarchical (the default all-reduce, reduce-scatter and all-gather), not %s", alg)
	}
	if o.factors != "" && alg != "blueconnect" && alg != "two-level" {
		return nil, fmt.Errorf("--factors is for --algorithm blueconnect or two-level, not %s", alg)
	}
	if o.unidirectional && alg != "hierarchical" && alg != "blueconnect" && alg != "two-level" && alg != "ring" {
		return nil, fmt.Errorf("--unidirectional is for ring phases (algorithms hierarchical, blueconnect, two-level and ring); %s has no ring direction, so drop it", alg)
	}
	return collectives.NewPlan(cfg, alg, size, chunk)
}

type collectiveOpts struct {
	planOpts
	system, format, microcode string
	pf                        platformFlags
	p                         platform.Platform
	commMemBW                 string
	commSMs                   int
	commSMsGiven              bool // --comm-sms was given (0 then is a value)
	traceHash, checkData      bool
	full                      bool
	outputFlags
}

func runCollective(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("collective", pflag.ContinueOnError)
	var o collectiveOpts
	o.planOpts.register(fs)
	fs.StringVar(&o.system, "system", "ideal", "endpoint, one of the paper's Table VI systems:\n"+systemHelp())
	registerACEFlags(fs)
	fs.StringVar(&o.commMemBW, "comm-mem-bw", "", "memory bandwidth given to communication, each way (default: the system's, Table VI)")
	intVar(fs, &o.commSMs, "comm-sms", 0, "SMs given to communication on a baseline (default: the system's, Table VI)")
	fs.StringVar(&o.format, "format", "table", "output: "+formats)
	fs.BoolVar(&o.checkData, "check-data", false, "carry real values and check every NPU's result (data_ok in JSON)")
	fs.BoolVar(&o.full, "full", false, "simulate every NPU even where one can stand for all (same results, slower)")
	fs.StringVar(&o.microcode, "microcode", "", "run the programs in this microcode file instead of the built-in ones (see docs/microcode.md)")
	fs.BoolVar(&o.traceHash, "trace-hash", false, "also print a hash of the full packet trace (for determinism checks)")
	o.outputFlags.register(fs, false, "and --trace, --pcap and --links ")
	o.pf.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: acemu collective [flags]\n\nSimulate one collective on a 3D torus (or a topology file, --topo FILE) and report time and bandwidth.\n\nFlags:\n%s", fs.FlagUsages())
	}
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	noteBareSize(stderr, "acemu collective", fs)
	if !strings.EqualFold(o.system, "ace") {
		if err := refuseFlags(fs, aceFlagNames, "is for --system ace"); err != nil {
			fmt.Fprintf(stderr, "acemu collective: %v\n", err)
			return 2
		}
	}
	o.commSMsGiven = fs.Changed("comm-sms")
	p, err := o.pf.build(fs)
	if err != nil {
		fmt.Fprintf(stderr, "acemu collective: %v\n", err)
		return 1
	}
	o.p, o.chunk, o.message = p, units.FormatSize(p.ChunkBytes), units.FormatSize(p.MessageBytes)
	// A lone collective has no training loop; ACE's keys are for ACE.
	unused := []string{"training.", "npu.compute_speed"}
	if !strings.EqualFold(o.system, "ace") {
		unused = append(unused, "ace.")
	}
	if s, e := systems.Lookup(o.system); e == nil && s.Kind != systems.Baseline {
		unused = append(unused, "baseline.") // the SM-driven baseline's library
	}
	err = unusedAlgorithms(p, "acemu collective")
	if err == nil {
		err = unusedParams(p, "acemu collective --system "+o.system, unused...)
	}
	if err == nil {
		err = checkFormat(o.format)
	}
	if err == nil {
		inputs := []fileUse{{flag: "--config", path: o.pf.config}, {flag: "--microcode", path: o.microcode}}
		if existingFile(o.topo) {
			inputs = append(inputs, fileUse{flag: "--topo", path: o.topo}) // a topology file
		}
		err = o.outputFlags.prepare(fs, nil, inputs, nil)
	}
	if err != nil {
		fmt.Fprintf(stderr, "acemu collective: %v\n", err)
		return 1
	}
	rep, err := simulateCollective(o)
	if err != nil {
		fmt.Fprintf(stderr, "acemu collective: %v\n", err)
		return 1
	}
	res, rec := collectiveResult(rep), collectiveRecord(rep)
	res.full, res.prov = &summary{header: rec.header, rows: rec.rows}, provenanceOf(o.p) // CSV is the record
	res.wide = o.wide
	if o.out != "" {
		if err := res.writeOut(o.out, o.p); err != nil {
			fmt.Fprintf(stderr, "acemu collective: %v\n", err)
			return 1
		}
	}
	if err := res.write(stdout, o.format); err != nil {
		fmt.Fprintf(stderr, "acemu collective: %v\n", err)
		return 1
	}
	if rep.DataOK != nil && !*rep.DataOK {
		// The report is printed (it says what is wrong); the run failed.
		fmt.Fprintf(stderr, "acemu collective: --check-data: the result is wrong: %s\n", rep.DataError)
		return 1
	}
	return 0
}

func simulateCollective(o collectiveOpts) (_ *collectiveReport, err error) {
	sys, err := o.systemSpec()
	if err != nil {
		return nil, err
	}
	plan, err := o.plan()
	if err != nil {
		return nil, err
	}
	if err := unusedLinkKeys(o.p, o.spec, o.topo); err != nil {
		return nil, err
	}
	if o.microcode != "" {
		if err := loadMicrocode(plan, o.microcode); err != nil {
			return nil, err
		}
	}
	mach := plan.Machine
	// One NPU stands for all when nothing needs every NPU (data checks, the
	// trace hash of every link) and the plan allows it: the same numbers
	// (docs/architecture.md "Folding").
	full := o.full || o.checkData || o.traceHash
	why := sim.Foldable(o.spec, full, plan)
	folded := why == nil
	simulated := mach.N()
	if folded {
		simulated = 1
	}
	// More NPUs than a run simulates one by one are refused by the run,
	// saying why it is not folded; the pairs are checked below that.
	if err := collectives.CheckSimulated(fmt.Sprintf("%d bytes in chunks of %d", plan.Payload, plan.ChunkBytes), int64(plan.NumChunks()), simulated); err != nil && simulated <= machine.MaxFullNPUs {
		return nil, err
	}
	settings, err := o.p.LinkSettings()
	if err != nil {
		return nil, err
	}
	var tr *observe.Hash
	var hash observe.Observer
	if o.traceHash {
		tr = observe.NewHash(observe.PacketSent, observe.PacketReceived)
		hash = tr
	}
	var dc *verify.DataCheck
	var check observe.Observer
	var data *npu.DataHooks
	if o.checkData {
		if dc, err = verify.NewDataCheck(plan); err != nil {
			return nil, fmt.Errorf("--check-data: %w", err)
		}
		check, data = dc, &npu.DataHooks{Init: dc.Hook}
	}
	var cfg ace.Config
	if sys.Kind == systems.ACE {
		if cfg, err = o.aceConfig(sys); err != nil {
			return nil, err
		}
	}
	// --pcap and --trace: their observer sees the packets (the network's)
	// and the endpoint's work.
	name := plan.Algorithm + " " + plan.Op.String() + " on " + o.system
	kinds, err := o.outputFlags.asked(mach.N(), func(string) string { return name })
	if err != nil {
		return nil, err
	}
	// --links: created now (a path that cannot be written fails before
	// the run), written when it ends; each link's busiest window is
	// tracked only then.
	var links *linksFile
	var windows rtl.Cycle
	if o.links != "" {
		var f outputFile
		if f, err = createOutput("--links", o.links, linksOutput); err != nil {
			return nil, err
		}
		links, windows = f.(*linksFile), compare.WindowCycles
		defer links.close(&err)
	}
	var finish func(*error)
	rn, err := sim.New(sim.Setup{Machine: o.spec, Links: settings, System: sys, Fold: folded, Layout: plan, ACE: cfg,
		Library: o.p.Library, Data: data, Windows: windows, LinkWindows: links != nil,
		Observe: func(net *fabric.Network) (observe.Observers, error) {
			outputs, fin, err := startOutputs(kinds, net)
			finish = fin
			return observe.Observers{Packets: observe.Join(hash, outputs.Packets), Work: observe.Join(check, outputs.Work)}, err
		}})
	if finish != nil {
		defer finish(&err)
	}
	if err != nil {
		switch {
		case !errors.Is(err, machine.ErrTooManyNPUs):
		case sim.Foldable(o.spec, full) == nil && !folded: // the plan is why (its answer is kept)
			err = fmt.Errorf("%w; this plan cannot be folded: %v", err, why)
		case !o.full && (o.checkData || o.traceHash): // the check is why
			err = fmt.Errorf("%w; but --check-data and --trace-hash simulate every NPU: check a machine of at most %d NPUs", err, machine.MaxFullNPUs)
		}
		return nil, err
	}
	rep := &collectiveReport{
		Topology: mach.Name, NPUs: mach.N(), Op: plan.Op.String(), Algorithm: plan.Algorithm, System: o.system,
		PayloadBytes: plan.Payload, ChunkBytes: plan.ChunkBytes, MessageBytes: plan.MessageBytes, Chunks: plan.NumChunks(),
		LinkUtilization: map[string]float64{}, Microcode: o.microcode, Folded: folded,
	}
	rep.CommSMs = sys.CommSMs
	if sys.Kind == systems.Baseline {
		rep.BaselineLibrary = &o.p.Library
	}
	if sys.CommMemGBps != nil {
		rep.CommMemGBps, _ = sys.CommMemGBps.Float64()
	}
	m, err := rn.One(plan)
	if err != nil {
		return nil, err
	}
	cycles, net := m.Cycles, rn.Net
	rep.Events = m.Events
	rep.BytesSentPerNPU, rep.MemReadPerNPU, rep.MemWritePerNPU = m.BytesSent, m.MemRead, m.MemWrite
	if sys.Kind == systems.Baseline {
		rep.CommSMBusy = m.CommSMBusy
	}
	if res := m.ACE; res != nil {
		u := res.Utilization
		rep.ACEUtilization = &u
		bw, _ := cfg.CommMemGBps.Float64()
		rep.ACE = &aceReport{SRAMBytes: cfg.SRAMBytes, FSMs: cfg.FSMs, CommMemGBps: bw,
			SRAMReadBusy: res.SRAMRead, SRAMWriteBusy: res.SRAMWrite, ALUBusy: res.ALU, DMABusy: res.DMA, FSMBusy: res.FSM, FSMBlocked: res.FSMBlocked,
			PartitionBytes: res.Partitions, Partition: cfg.Partition, FSMsPerPhase: res.FSMsPerPhase,
			SRAMReadPorts: res.ReadPorts, SRAMWritePorts: res.WritePorts, SRAMPortBytes: int(cfg.PortBytes)}
	}
	rep.Cycles = int64(cycles)
	for ph := 0; ph < plan.NumPhases(); ph++ {
		rep.Phases = append(rep.Phases, plan.PhaseName(ph))
	}
	rep.TimeUs = float64(cycles) / rtl.ClockHz * 1e6
	rep.NetworkGBpsPerNPU = m.NetworkGBps()
	if bound, ok := verify.HierarchicalAllReduceBoundOn(mach); ok && isPaperAllReduce(o) {
		b, _ := bound.Float64()
		rep.BoundGBpsPerNPU = &b
	}
	for _, u := range mach.LinkUtilization(net, cycles) {
		rep.LinkUtilization[u.Label] = u.Share
		rep.linkLabels = append(rep.linkLabels, u.Label)
	}
	if dc != nil {
		ok := dc.Result() == nil
		rep.DataOK = &ok
		if !ok {
			rep.DataError = dc.Result().Error()
		}
	}
	if tr != nil {
		rep.TraceHash = fmt.Sprintf("%016x", tr.Sum())
	}
	if links != nil {
		links.set(net.LinkStats(cycles))
	}
	return rep, nil
}

// systemSpec is the Table VI system the flags name, with --comm-sms and
// --comm-mem-bw applied.
func (o collectiveOpts) systemSpec() (systems.System, error) {
	sys, err := systems.Lookup(o.system)
	if err != nil {
		return sys, fmt.Errorf("--system: %w", err)
	}
	if sys.Libra != systems.LibraNone {
		return sys, fmt.Errorf("--system %s: LIBRA plans the SMs of a training run's all-reduces (acemu --workload W --systems %s --memory-policy share); for one collective on r SMs use --system baseline --comm-sms r --comm-mem-bw 450GB/s (docs/libra.md)", o.system, o.system)
	}
	var bw *big.Rat
	if o.commMemBW != "" {
		if bw, err = units.ParseBandwidth(o.commMemBW); err != nil {
			return sys, fmt.Errorf("--comm-mem-bw: %w", err)
		}
	}
	if sys, err = sys.WithACEMemory(o.p.ACE.CommMemGBps); err != nil { // ace.mem_bw, --comm-mem-bw winning
		return sys, err
	}
	var sms *int // not given: the system's
	if o.commSMsGiven {
		sms = &o.commSMs
	}
	return sys.With(sms, bw)
}

func systemHelp() string {
	var b strings.Builder
	for _, n := range systems.Names() {
		s, err := systems.Lookup(n)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "  %s: %s\n", n, s.Help)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// aceConfig builds the ACE design point from the flags and the system.
func (o collectiveOpts) aceConfig(sys systems.System) (ace.Config, error) {
	cfg := o.p.ACE
	cfg.CommMemGBps = sys.CommMemGBps // the system's share, checked again
	return cfg, cfg.Validate()
}

// isPaperAllReduce reports whether the run is the paper's default
// hierarchical all-reduce, the one verify's analytical bound describes.
func isPaperAllReduce(o collectiveOpts) bool {
	return (o.op == "allreduce" || o.op == "all-reduce") && (o.algorithm == "" || o.algorithm == "hierarchical") &&
		o.phases == "" && !o.unidirectional && o.microcode == "" && o.group == "" && o.groupNPUs == ""
}

// collectiveResult is what acemu collective prints as a table (quantity,
// value rows, each value narrow) and as JSON (the report). Its CSV is not
// these rows but collectiveRecord's.
func collectiveResult(r *collectiveReport) result {
	bw := fmt.Sprintf("%.2f GB/s", r.NetworkGBpsPerNPU)
	if r.BoundGBpsPerNPU != nil {
		bw += fmt.Sprintf(" (analytical bound %.2f GB/s, %.1f %%)", *r.BoundGBpsPerNPU, 100*r.NetworkGBpsPerNPU / *r.BoundGBpsPerNPU)
	}
	rows := [][]string{
		{"topology", fmt.Sprintf("%s (%d NPUs)", r.Topology, r.NPUs)},
		{"collective", fmt.Sprintf("%s, %s, %s endpoint", r.Op, r.Algorithm, r.System)},
	}
	for i, ph := range r.Phases {
		rows = append(rows, []string{fmt.Sprintf("phase %d", i+1), ph})
	}
	rows = append(rows,
		[]string{"payload per NPU", fmt.Sprintf("%d B in %s of ≤ %d B, messages ≤ %d B", r.PayloadBytes, units.Count(r.Chunks, "chunk"), r.ChunkBytes, r.MessageBytes)},
		[]string{"time", cyclesTime(r.Cycles) + fmt.Sprintf(" at %d MHz", rtl.ClockHz/1_000_000)},
		[]string{"bytes sent per NPU", fmt.Sprintf("%d (%.4f × payload)", r.BytesSentPerNPU, float64(r.BytesSentPerNPU)/float64(r.PayloadBytes))},
		[]string{"network bandwidth per NPU", bw})
	for _, label := range r.linkLabels {
		rows = append(rows, []string{label + " link utilisation", fmt.Sprintf("%.1f %%", 100*r.LinkUtilization[label])})
	}
	if r.MemReadPerNPU+r.MemWritePerNPU > 0 {
		rows = append(rows, []string{"memory read / written per NPU", fmt.Sprintf("%d / %d B (%.3f / %.3f per byte sent)", r.MemReadPerNPU, r.MemWritePerNPU,
			float64(r.MemReadPerNPU)/float64(r.BytesSentPerNPU), float64(r.MemWritePerNPU)/float64(r.BytesSentPerNPU))})
	}
	if r.CommSMs > 0 {
		rows = append(rows, []string{"communication SMs", fmt.Sprintf("%d SMs, %.0f GB/s of memory each way, busy %.1f %%", r.CommSMs, r.CommMemGBps, 100*r.CommSMBusy)})
	}
	var notes []string
	if l := r.BaselineLibrary; l != nil {
		rows = append(rows,
			[]string{"library launch", cyclesTime(int64(l.LaunchCycles)) + " per collective (baseline.launch)"},
			[]string{"library step", cyclesTime(int64(l.StepCycles)) + " per step (baseline.step)"})
		notes = append(notes, "The library's latencies: docs/baseline-model.md.")
	}
	if a := r.ACE; a != nil {
		rows = append(rows,
			[]string{"ACE", fmt.Sprintf("%d B SRAM, %d FSMs, %.0f GB/s of memory each way", a.SRAMBytes, a.FSMs, a.CommMemGBps)},
			[]string{"ACE FSMs per phase", joinInts(a.FSMsPerPhase)},
			[]string{"ACE SRAM ports", fmt.Sprintf("%d read and %d write of %d B per bank", a.SRAMReadPorts, a.SRAMWritePorts, a.SRAMPortBytes)},
			[]string{"ACE SRAM partitions", fmt.Sprintf("%s: %s B", a.Partition, joinInts(a.PartitionBytes))},
			[]string{"ACE busy", fmt.Sprintf("chunk in ACE %.1f %%, ALUs %.1f %%, DMA %.1f %%", 100**r.ACEUtilization, 100*a.ALUBusy, 100*a.DMABusy)},
			[]string{"ACE SRAM busy", fmt.Sprintf("read %.1f %%, write %.1f %%", 100*a.SRAMReadBusy, 100*a.SRAMWriteBusy)},
			[]string{"ACE FSMs busy", fmt.Sprintf("%.1f %% (%.1f %% holding a finished chunk)", 100*a.FSMBusy, 100*a.FSMBlocked)})
	}
	if r.DataOK != nil {
		v := "correct: every NPU holds the collective's exact result"
		if !*r.DataOK {
			v = "WRONG: " + r.DataError
		}
		rows = append(rows, []string{"data check", v})
	}
	if r.Microcode != "" {
		rows = append(rows, []string{"microcode", r.Microcode})
	}
	rows = append(rows, []string{"simulation events", fmt.Sprint(r.Events)})
	if r.TraceHash != "" {
		rows = append(rows, []string{"packet trace hash", r.TraceHash})
	}
	return result{header: []string{"quantity", "value"}, rows: rows, notes: notes, doc: r}
}

// collectiveRecord is acemu collective's CSV: one header and one record,
// every cell a number, a name or empty where it does not apply
// (docs/cli.md, "CSV columns"). The header depends on the machine only
// (one column per link label); lists and prose (the phases' names, ACE's
// FSMs per phase and partitions, a wrong result's message) are in the
// table and the JSON.
func collectiveRecord(r *collectiveReport) result {
	var header, row []string
	add := func(name, value string) {
		header = append(header, name)
		row = append(row, value)
	}
	num := func(v float64, decimals int) string { return strconv.FormatFloat(v, 'f', decimals, 64) }
	pct := func(share float64) string { return num(100*share, 2) }
	ratio := func(a, b int64) string {
		if b == 0 {
			return ""
		}
		return num(float64(a)/float64(b), 4)
	}
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	// opt is value when ok, else empty.
	opt := func(ok bool, value func() string) string {
		if !ok {
			return ""
		}
		return value()
	}
	add("topology", r.Topology)
	add("npus", strconv.Itoa(r.NPUs))
	add("op", r.Op)
	add("algorithm", r.Algorithm)
	add("system", r.System)
	add("phases", strconv.Itoa(len(r.Phases)))
	add("payload B", itoa(r.PayloadBytes))
	add("chunks", strconv.Itoa(r.Chunks))
	add("chunk B", itoa(r.ChunkBytes))
	add("message B", itoa(r.MessageBytes))
	add("cycles", itoa(r.Cycles))
	add("time µs", num(r.TimeUs, 3))
	add("time ms", num(r.TimeUs/1000, 6))
	add("bytes sent per NPU", itoa(r.BytesSentPerNPU))
	add("bytes sent / payload", ratio(r.BytesSentPerNPU, r.PayloadBytes))
	add("network GB/s per NPU", num(r.NetworkGBpsPerNPU, 3))
	bound := r.BoundGBpsPerNPU
	add("analytical bound GB/s", opt(bound != nil, func() string { return num(*bound, 3) }))
	add("% of bound", opt(bound != nil, func() string { return pct(r.NetworkGBpsPerNPU / *bound) }))
	for _, label := range r.linkLabels {
		add(label+" link util %", pct(r.LinkUtilization[label]))
	}
	add("mem read B/NPU", itoa(r.MemReadPerNPU))
	add("mem write B/NPU", itoa(r.MemWritePerNPU))
	add("mem read / byte sent", ratio(r.MemReadPerNPU, r.BytesSentPerNPU))
	add("mem write / byte sent", ratio(r.MemWritePerNPU, r.BytesSentPerNPU))
	add("comm memory GB/s each way", opt(r.CommMemGBps > 0, func() string { return num(r.CommMemGBps, 3) }))
	add("comm SMs", strconv.Itoa(r.CommSMs))
	add("comm SM busy %", opt(r.CommSMs > 0, func() string { return pct(r.CommSMBusy) }))
	l := r.BaselineLibrary
	add("library launch cycles", opt(l != nil, func() string { return itoa(int64(l.LaunchCycles)) }))
	add("library step cycles", opt(l != nil, func() string { return itoa(int64(l.StepCycles)) }))
	a := r.ACE
	for _, c := range []struct {
		name  string
		value func() string
	}{
		{"ACE SRAM B", func() string { return itoa(a.SRAMBytes) }},
		{"ACE FSMs", func() string { return strconv.Itoa(a.FSMs) }},
		{"ACE partition", func() string { return a.Partition }},
		{"SRAM read ports/bank", func() string { return strconv.Itoa(a.SRAMReadPorts) }},
		{"SRAM write ports/bank", func() string { return strconv.Itoa(a.SRAMWritePorts) }},
		{"SRAM port B", func() string { return strconv.Itoa(a.SRAMPortBytes) }},
		{"ACE util %", func() string { return pct(*r.ACEUtilization) }},
		{"SRAM read busy %", func() string { return pct(a.SRAMReadBusy) }},
		{"SRAM write busy %", func() string { return pct(a.SRAMWriteBusy) }},
		{"ALU busy %", func() string { return pct(a.ALUBusy) }},
		{"DMA busy %", func() string { return pct(a.DMABusy) }},
		{"FSM busy %", func() string { return pct(a.FSMBusy) }},
		{"FSM holding finished chunk %", func() string { return pct(a.FSMBlocked) }},
	} {
		add(c.name, opt(a != nil, c.value))
	}
	add("data check", opt(r.DataOK != nil, func() string {
		if *r.DataOK {
			return "correct"
		}
		return "wrong"
	}))
	add("microcode", r.Microcode)
	add("events", strconv.FormatUint(r.Events, 10))
	add("packet trace hash", r.TraceHash)
	return result{header: header, rows: [][]string{row}, doc: r}
}

// cyclesTime is a count of cycles and the time it takes in ms, to three
// decimals or, below 1 ms, three significant digits: "674870 cycles =
// 0.542 ms", "4826 cycles = 0.00388 ms".
func cyclesTime(cycles int64) string {
	ms := float64(cycles) / rtl.ClockHz * 1e3
	decimals := 3
	if ms > 0 && ms < 1 {
		decimals = 2 - int(math.Floor(math.Log10(ms)))
	}
	return fmt.Sprintf("%d cycles = %.*f ms", cycles, decimals, ms)
}

// joinInts is a list of whole numbers, space-separated.
func joinInts[T int | int64](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatInt(int64(x), 10)
	}
	return strings.Join(s, " ")
}
