// Package compare runs one training workload on several of Table VI's
// systems and sets them side by side: the comparator behind `acemu --topo
// 4x8x4 --workload resnet50`. Each system runs in its own simulation (its
// own kernel and network), in parallel across cores; the results do not
// depend on how many run at once.
package compare

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// Options chooses a comparison.
type Options struct {
	Shape      torus.Shape
	Workload   *workload.Workload
	Systems    []systems.System
	Iterations int  // 0: train.DefaultIterations
	FIFO       bool // serve collectives oldest first (default LIFO, spec §7)
	ACE        ace.Config
	Workers    int // 0: GOMAXPROCS
}

// SystemResult is one system's run.
type SystemResult struct {
	Name       string `json:"name"`
	Iterations int    `json:"iterations"`
	// Means per iteration, in cycles.
	IterationCycles   float64 `json:"iteration_cycles"`
	ComputeCycles     float64 `json:"compute_cycles"`
	ExposedCommCycles float64 `json:"exposed_comm_cycles"`
	// Totals over the run, in cycles.
	TotalCycles      int64    `json:"total_cycles"`
	TotalCompute     int64    `json:"total_compute_cycles"`
	TotalExposedComm int64    `json:"total_exposed_comm_cycles"`
	PerIteration     []int64  `json:"iteration_cycles_each"`
	PctOfIdeal       float64  `json:"pct_of_ideal"`
	ExposedShare     float64  `json:"exposed_comm_share"`
	Collectives      int      `json:"collectives"`
	CollectiveBytes  int64    `json:"collective_bytes_per_npu"`
	BytesSentPerNPU  int64    `json:"bytes_sent_per_npu"`
	NetworkGBps      float64  `json:"effective_network_gbps_per_npu"`
	MemReadPerNPU    int64    `json:"mem_read_bytes_per_npu"`
	MemWritePerNPU   int64    `json:"mem_write_bytes_per_npu"`
	CommMemGBps      float64  `json:"comm_mem_used_gbps"`
	CommSMBusy       float64  `json:"comm_sm_busy"`
	ACEUtilization   *float64 `json:"ace_utilization,omitempty"`
	Events           uint64   `json:"events"`
}

// Report is the comparison.
type Report struct {
	Topology string         `json:"topology"`
	NPUs     int            `json:"npus"`
	Workload string         `json:"workload"`
	Policy   string         `json:"priority"`
	Systems  []SystemResult `json:"systems"`
	// SpeedupOfACE is, per other system, its time over ACE's.
	SpeedupOfACE map[string]float64 `json:"speedup_of_ace,omitempty"`
}

// Run runs the comparison.
func Run(o Options) (*Report, error) {
	if o.Workload == nil || len(o.Systems) == 0 {
		return nil, fmt.Errorf("compare: need a workload and at least one system")
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := make([]SystemResult, len(o.Systems))
	errs := make([]error, len(o.Systems))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res[i], errs[i] = runSystem(o, o.Systems[i])
			}
		}()
	}
	for i := range o.Systems {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Systems[i].Name, err)
		}
	}
	rep := &Report{Topology: o.Shape.String(), NPUs: o.Shape.N(), Workload: o.Workload.Name, Policy: "lifo", Systems: res}
	if o.FIFO {
		rep.Policy = "fifo"
	}
	var ideal, aceT int64
	for _, r := range res {
		switch r.Name {
		case "ideal":
			ideal = r.TotalCycles
		case "ace":
			aceT = r.TotalCycles
		}
	}
	for i := range rep.Systems {
		if ideal > 0 && rep.Systems[i].TotalCycles > 0 {
			rep.Systems[i].PctOfIdeal = 100 * float64(ideal) / float64(rep.Systems[i].TotalCycles)
		}
	}
	if aceT > 0 {
		rep.SpeedupOfACE = map[string]float64{}
		for _, r := range res {
			if r.Name != "ace" {
				rep.SpeedupOfACE[r.Name] = float64(r.TotalCycles) / float64(aceT)
			}
		}
	}
	return rep, nil
}

// commOf maps a workload's collective to the collectives package's.
func commOf(t workload.CommType) (collectives.CollectiveOp, error) {
	switch t {
	case workload.CommAllReduce:
		return collectives.OpAllReduce, nil
	case workload.CommAllGather:
		return collectives.OpAllGather, nil
	case workload.CommReduceScatter:
		return collectives.OpReduceScatter, nil
	case workload.CommAllToAll:
		return collectives.OpAllToAll, nil
	}
	return 0, fmt.Errorf("collective %s: nothing to run", t)
}

// comm is the training loop's view of the AFI.
type comm struct{ a *afi.Interface }

func (c comm) Issue(now rtl.Cycle, t workload.CommType, bytes int64, done func(now rtl.Cycle)) error {
	op, err := commOf(t)
	if err != nil {
		return err
	}
	_, err = c.a.Issue(now, op, bytes, done)
	return err
}

// stuckReporter is an engine that can say what its unfinished
// collectives wait on.
type stuckReporter interface {
	Stuck() error
}

// runSystem runs the workload on one system.
func runSystem(o Options, sys systems.System) (SystemResult, error) {
	r := SystemResult{Name: sys.Name}
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, o.Shape, torus.DefaultLinks())
	if err != nil {
		return r, err
	}
	cfg := afi.DefaultConfig(o.Shape)
	var eng afi.Engine
	var st stuckReporter
	var npuEng *npu.Engine
	var aceEng *ace.Engine
	switch sys.Kind {
	case systems.Ideal, systems.Baseline:
		if sys.Kind == systems.Ideal {
			npuEng, err = npu.NewIdealEngine(k, net, o.Shape, npu.DefaultIdeal())
		} else {
			npuEng, err = npu.NewBaselineEngine(k, net, o.Shape, npu.DefaultBaseline(sys.CommSMs, sys.CommMemGBps))
		}
		if err != nil {
			return r, err
		}
		if !o.FIFO {
			npuEng.SetPolicy(npu.LIFO)
		}
		eng, st = npuEng, npuEng
	case systems.ACE:
		for _, l := range o.Workload.Layers {
			for _, c := range []workload.Comm{l.FwdComm, l.InGradComm, l.WtGradComm} {
				if c.Type != workload.CommNone && c.Type != workload.CommAllReduce {
					return r, fmt.Errorf("the workload has %s collectives besides all-reduces; ACE with more than one kind of collective (DLRM's all-to-all beside its all-reduces) is not modelled yet (docs/ace-model.md)", c.Type)
				}
			}
		}
		layout, err := cfg.Plan(collectives.OpAllReduce, cfg.ChunkBytes)
		if err != nil {
			return r, err
		}
		acfg := o.ACE
		if acfg.SRAMBytes == 0 {
			acfg = ace.Default()
		}
		acfg.CommMemGBps = sys.CommMemGBps
		aceEng, err = ace.NewEngine(k, net, layout, acfg, nil)
		if err != nil {
			return r, err
		}
		aceEng.SetLIFO(!o.FIFO)
		eng, st = aceEng, aceEng
	}
	a, err := afi.New(cfg, eng)
	if err != nil {
		return r, err
	}
	m, err := train.Run(k, o.Workload, train.Config{Compute: sys.Compute(), Overlap: sys.Overlap, Iterations: o.Iterations}, comm{a})
	if err != nil {
		if serr := st.Stuck(); serr != nil {
			return r, fmt.Errorf("%w\n%v", err, serr)
		}
		return r, err
	}
	n := float64(len(m.Iterations))
	r.Iterations = len(m.Iterations)
	r.TotalCycles, r.TotalCompute, r.TotalExposedComm = m.TotalCycles, m.ComputeCycles, m.ExposedCommCycles
	r.IterationCycles = float64(m.TotalCycles) / n
	r.ComputeCycles = float64(m.ComputeCycles) / n
	r.ExposedCommCycles = float64(m.ExposedCommCycles) / n
	for _, it := range m.Iterations {
		r.PerIteration = append(r.PerIteration, it.IterationCycles)
	}
	if m.TotalCycles > 0 {
		r.ExposedShare = float64(m.ExposedCommCycles) / float64(m.TotalCycles)
	}
	r.Collectives, r.CollectiveBytes = m.Collectives, m.CollectiveBytes
	cycles := rtl.Cycle(m.TotalCycles)
	var sent, rd, wr []int64
	if npuEng != nil {
		sent, rd, wr = npuEng.Traffic()
		r.CommSMBusy = npuEng.SMBusy(cycles)
	} else {
		s := aceEng.Stats(cycles)
		sent, rd, wr = s.BytesSent, s.MemRead, s.MemWrite
		u := s.Utilization
		r.ACEUtilization = &u
	}
	r.BytesSentPerNPU, r.MemReadPerNPU, r.MemWritePerNPU = mean(sent), mean(rd), mean(wr)
	if cycles > 0 {
		secs := float64(cycles) / rtl.ClockHz
		r.NetworkGBps = float64(r.BytesSentPerNPU) / secs / 1e9
		r.CommMemGBps = float64(r.MemReadPerNPU+r.MemWritePerNPU) / secs / 1e9
	}
	r.Events = k.Events()
	return r, nil
}

func mean(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	var t int64
	for _, x := range xs {
		t += x
	}
	return t / int64(len(xs))
}
