package platform

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/units"
	"github.com/acemu/acemu/workload"
	"github.com/acemu/acemu/workload/models"
)

// param builds a Param from its default (as the file writes it; "" for a
// fixed value, which is its own default) and how its value is read and
// written.
func param(key, def, unit, source, doc string, v value) Param {
	return Param{Key: key, Default: def, Unit: unit, Source: source, Doc: doc, get: v.get, set: v.set}
}

// params is every parameter. Sources name the ACE paper's tables and
// sections, or the docs/ page of a [choice].
var params = append(baseParams, classParams()...)

// classParams are links.CLASS.bandwidth and links.CLASS.latency for every
// link class beyond intra and inter (topology.Classes), each inheriting
// the intra- or inter-package link's while not set.
func classParams() []Param {
	var out []Param
	for i, c := range topology.Classes() {
		base, what := "intra", "intra-package"
		if c.Inter {
			base, what = "inter", "inter-package"
		}
		out = append(out,
			Param{Key: "links." + c.Name + ".bandwidth", Unit: "GB/s", Source: "[choice] docs/topology.md",
				Doc: "raw bandwidth of a link of class " + c.Name + ", per direction; unset: the " + what + " link's", Inherits: "links." + base + ".bandwidth",
				get: func(p *Platform) string {
					if p.Classes[i].GBps == nil {
						return ""
					}
					return units.FormatBandwidth(p.Classes[i].GBps)
				},
				set: bandwidth(1, 100000, func(p *Platform) **big.Rat { return &p.Classes[i].GBps }).set},
			Param{Key: "links." + c.Name + ".latency", Unit: "cycles", Source: "[choice] docs/topology.md",
				Doc: "latency of a link of class " + c.Name + "; unset: the " + what + " link's", Inherits: "links." + base + ".latency",
				get: func(p *Platform) string {
					if p.Classes[i].Latency == nil {
						return ""
					}
					return strconv.FormatInt(*p.Classes[i].Latency, 10)
				},
				set: func(p *Platform, s string) error {
					n, err := parseCount(s, 0, 1_000_000)
					if err == nil {
						p.Classes[i].Latency = &n
					}
					return err
				}})
	}
	return out
}

var baseParams = []Param{
	param("links.intra.bandwidth", "200GB/s", "GB/s", "Table V", "raw bandwidth of an intra-package link, per direction",
		bandwidth(1, 100000, func(p *Platform) **big.Rat { return &p.IntraGBps })),
	param("links.intra.latency", "90", "cycles", "Table V", "latency of an intra-package link",
		count(0, 1_000_000, func(p *Platform) *int64 { return &p.IntraLatency })),
	param("links.inter.bandwidth", "25GB/s", "GB/s", "Table V", "raw bandwidth of an inter-package link, per direction",
		bandwidth(1, 100000, func(p *Platform) **big.Rat { return &p.InterGBps })),
	param("links.inter.latency", "500", "cycles", "Table V", "latency of an inter-package link",
		count(0, 1_000_000, func(p *Platform) *int64 { return &p.InterLatency })),
	param("links.efficiency", "0.94", "fraction", "Table V", "share of a link's raw bandwidth that carries payload",
		fraction(false, func(p *Platform) **big.Rat { return &p.Efficiency })),
	param("links.tx_buffer", "32", "packets", "[choice] docs/topology.md", "a link's output port buffer",
		intCount(1, 1<<16, func(p *Platform) *int { return &p.TxBuffer })),
	param("links.rx_buffer", "128", "packets", "[choice] docs/topology.md", "a link's input buffer: its credits",
		intCount(1, 1<<16, func(p *Platform) *int { return &p.RxBuffer })),
	param("afi.chunk", "64KiB", "bytes", "Table III", "initial chunk a collective is cut into",
		size(256, 1<<30, func(p *Platform) *int64 { return &p.ChunkBytes })),
	param("afi.message", "8KiB", "bytes", "Table V (Table III: 4 KB)", "largest message of a chunk's step",
		size(256, 1<<30, func(p *Platform) *int64 { return &p.MessageBytes })),
	param("ace.sram", "4MiB", "bytes", "Table IV (4 × 1 MB)", "ACE's SRAM",
		size(64<<10, 1<<30, func(p *Platform) *int64 { return &p.ACE.SRAMBytes })),
	param("ace.banks", "4", "banks", "Table IV", "SRAM banks",
		intCount(1, 64, func(p *Platform) *int { return &p.ACE.Banks })),
	param("ace.port_bytes", "64", "bytes/cycle", "Section VI (64 B buses)", "width of one SRAM port",
		count(1, 4096, func(p *Platform) *int64 { return &p.ACE.PortBytes })),
	param("ace.ports_per_bank", "derived", "ports", "[choice] docs/ace-model.md", "read ports, and write ports, per bank: derived (as the links and DMA need), literal (1) or a number",
		value{func(p *Platform) string {
			switch p.ACE.PortsPerBank {
			case 0:
				return "derived"
			case 1:
				return "literal"
			}
			return strconv.Itoa(p.ACE.PortsPerBank)
		}, func(p *Platform, s string) error {
			switch strings.ToLower(s) {
			case "derived":
				p.ACE.PortsPerBank = 0
			case "literal":
				p.ACE.PortsPerBank = 1
			default:
				n, err := parseCount(s, 1, 64)
				if err != nil {
					return fmt.Errorf("use derived, literal or a number of ports from 1 to 64: %w", err)
				}
				p.ACE.PortsPerBank = int(n)
			}
			return nil
		}}),
	param("ace.partition", "little", "rule", "[choice] docs/ace-model.md", "how the SRAM is split among phases: little or paper",
		choice([]string{ace.PartitionLittle, ace.PartitionPaper}, func(p *Platform) *string { return &p.ACE.Partition })),
	param("ace.notice", "room", "rule", "[choice] docs/ace-model.md", "when a receiver says it is ready for a chunk's phase: room or fsm",
		choice([]string{ace.NoticeRoom, ace.NoticeFSM}, func(p *Platform) *string { return &p.ACE.Notice })),
	param("ace.prefetch", "fsm", "rule", "[choice] docs/ace-model.md", "how far ahead chunks load and move: fsm or room",
		choice([]string{ace.PrefetchFSM, ace.PrefetchRoom}, func(p *Platform) *string { return &p.ACE.Prefetch })),
	param("ace.alus", "4", "ALUs", "Table IV", "ALUs",
		intCount(1, 256, func(p *Platform) *int { return &p.ACE.ALUs })),
	param("ace.alu_bytes", "64", "bytes/cycle", "Table IV (32 × FP16)", "what one ALU reduces per cycle",
		count(1, 4096, func(p *Platform) *int64 { return &p.ACE.ALUBytes })),
	param("ace.fsms", "16", "FSMs", "Table IV", "programmable FSMs",
		intCount(3, 1024, func(p *Platform) *int { return &p.ACE.FSMs })),
	param("ace.fsm_split", "latency", "rule", "[choice] docs/ace-model.md", "how the FSMs are divided among phases: latency or even",
		choice([]string{"latency", "even"}, func(p *Platform) *string { return &p.ACE.FSMSplit })),
	param("ace.mem_bw", "128GB/s", "GB/s", "Table VI", "memory bandwidth of ACE's DMA, each way",
		bandwidth(1, 900, func(p *Platform) **big.Rat { return &p.ACE.CommMemGBps })),
	param("ace.bus", "500GB/s", "GB/s", "Table V", "NPU–AFI bus, per direction",
		bandwidth(1, 100000, func(p *Platform) **big.Rat { return &p.ACE.BusGBps })),
	algorithmParam(collectives.OpAllReduce, "allreduce"),
	algorithmParam(collectives.OpReduceScatter, "reduce_scatter"),
	algorithmParam(collectives.OpAllGather, "all_gather"),
	algorithmParam(collectives.OpAllToAll, "all_to_all"),
	param("baseline.launch", strconv.FormatInt(int64(npu.NCCLLaunchCycles), 10), "cycles", "[choice] docs/baseline-model.md (NCCL's 8.4 µs)", "the SM-driven baseline's launch and set-up per collective: its chunks start this long after its issue",
		count(0, 1_000_000_000, func(p *Platform) *int64 { return (*int64)(&p.Library.LaunchCycles) })),
	param("baseline.step", strconv.FormatInt(int64(npu.NCCLStepCycles), 10), "cycles", "[choice] docs/baseline-model.md (NCCL's 3.4 µs on NVLink)", "the SM-driven baseline's protocol latency per step: a message is usable this long after its last packet is in memory",
		count(0, 1_000_000_000, func(p *Platform) *int64 { return (*int64)(&p.Library.StepCycles) })),
	param("training.iterations", "2", "iterations", "Section V", "training iterations simulated",
		intCount(1, 1000, func(p *Platform) *int { return &p.Iterations })),
	param("training.priority", "lifo", "rule", "Section V", "which collective in flight goes first: lifo or fifo",
		value{func(p *Platform) string { return p.Order.String() }, func(p *Platform, s string) (err error) {
			p.Order, err = afi.ParseOrder(s)
			return err
		}}),
	param("training.memory_policy", "share", "policy", "[choice] docs/memory-system.md", "how compute and communication share each NPU: share or partition",
		value{func(p *Platform) string { return p.Memory.String() }, func(p *Platform, s string) error {
			m, err := contend.ParsePolicy(s)
			if err == nil {
				p.Memory = m
			}
			return err
		}}),
	param("training.compute", workload.ComputeAuto, "source", "[choice] docs/workloads.md", "where a built-in workload's compute comes from: auto (the paper's simulator's per-layer times where public, else the roofline), paper or roofline",
		choice(workload.ComputeSources(), func(p *Platform) *string { return &p.Compute })),
	param("training.batch", "paper", "samples", "Section V; docs/workloads.md", "samples per NPU of a built-in workload on the roofline: paper (32, 128, 512) or a number",
		value{func(p *Platform) string {
			if p.Batch == 0 {
				return "paper"
			}
			return strconv.FormatInt(p.Batch, 10)
		}, func(p *Platform, s string) error {
			if strings.EqualFold(strings.TrimSpace(s), "paper") {
				p.Batch = 0
				return nil
			}
			n, err := parseCount(s, 1, models.MaxBatch)
			if err == nil {
				p.Batch = n
			}
			return err
		}}),
	param("training.micro", "back-to-back", "mode", "[choice] docs/parallelism.md", "how a MICRO workload issues its collectives: back-to-back (one after another, each timed on its own) or concurrent (all at once, as ASTRA-sim 1.0 runs MICRO files)",
		choice([]string{"back-to-back", "concurrent"}, func(p *Platform) *string { return &p.Micro })),
	param("training.issue_policy", "eager", "policy", "[choice] docs/training-loop.md; the MXNet-MPI paper, Section 4", "how data parallelism's weight-gradient all-reduces are issued: eager (each when its gradients exist, the ACE paper's), funnel, concum (concum:K, K in flight) or depcha",
		value{func(p *Platform) string { return p.Issue.String() }, func(p *Platform, s string) error {
			q, err := train.ParseIssuePolicy(s)
			if err == nil {
				p.Issue.Kind, p.Issue.Outstanding = q.Kind, q.Outstanding
			}
			return err
		}}),
	param("training.key_order", "backward", "order", "[choice] docs/training-loop.md", "the keys funnel, concum and depcha issue all-reduces by: backward (key 0 the first gradient back-prop produces) or forward (key 0 the first layer's)",
		value{func(p *Platform) string { return p.Issue.Keys.String() }, func(p *Platform, s string) (err error) {
			p.Issue.Keys, err = train.ParseKeyOrder(s)
			return err
		}}),
	param("training.copy", "none", "GB/s", "[choice] docs/training-loop.md", "rate of each gradient's copy into its communication buffer under funnel, concum and depcha, one at a time: none (all-reduced in place) or a bandwidth",
		value{func(p *Platform) string {
			if p.Issue.CopyGBps == nil {
				return "none"
			}
			return units.FormatBandwidth(p.Issue.CopyGBps)
		}, func(p *Platform, s string) error {
			if strings.EqualFold(strings.TrimSpace(s), "none") {
				p.Issue.CopyGBps = nil
				return nil
			}
			return bandwidth(1, 100000, func(p *Platform) **big.Rat { return &p.Issue.CopyGBps }).set(p, s)
		}}),
	param("training.fusion", "none", "bytes", "[choice] docs/training-loop.md", "tensor fusion: none (one all-reduce a layer) or a bucket size, layers' weight-gradient all-reduces fused in back-prop order until a bucket holds that many bytes",
		value{func(p *Platform) string {
			if p.Fusion.BucketBytes == 0 {
				return "none"
			}
			return units.FormatSize(p.Fusion.BucketBytes)
		}, func(p *Platform, s string) error {
			if strings.EqualFold(strings.TrimSpace(s), "none") {
				p.Fusion = train.Fusion{}
				return nil
			}
			return size(1, workload.MaxCommBytes, func(p *Platform) *int64 { return &p.Fusion.BucketBytes }).set(p, s)
		}}),
	param("training.mem_bound_share", "derived", "fraction", "[choice] docs/astrasim-workloads.md", "memory-bound share of timed (ASTRA-sim) compute: derived from each layer's shape, or a fraction for every time",
		value{func(p *Platform) string {
			if p.MemBoundShare == nil {
				return "derived"
			}
			return ratText(p.MemBoundShare)
		}, func(p *Platform, s string) error {
			if strings.EqualFold(strings.TrimSpace(s), "derived") {
				p.MemBoundShare = nil
				return nil
			}
			return fraction(true, func(p *Platform) **big.Rat { return &p.MemBoundShare }).set(p, s)
		}}),
	param("npu.compute_speed", "1", "factor", "[choice] docs/sweeps.md", "how many times faster than Table V the NPU computes (every kernel takes 1/factor of its time; communication's resources unchanged)",
		factor(big.NewRat(1, 100), big.NewRat(1000, 1), func(p *Platform) **big.Rat { return &p.ComputeSpeed })),
	param("npu.sms", "", "SMs", "Table V", "streaming multiprocessors", fixed(strconv.Itoa(npu.SMs))),
	param("npu.clock", "", "MHz", "Table V", "NPU clock; one cycle is the unit of time", fixed(strconv.Itoa(npu.ClockHz/1_000_000))),
	param("npu.peak", "", "TFLOPS", "Table V", "FP16 peak", fixed(strconv.Itoa(int(npu.PeakFLOPS/1e12)))),
	param("npu.memory", "", "GB/s", "Table V", "NPU–memory bandwidth", fixed(strconv.Itoa(npu.MemoryGBps)+"GB/s")),
	param("npu.sm_bytes", "", "bytes/cycle", "Section III", "what an SM loads, and stores, per cycle", fixed(strconv.Itoa(npu.SMLoadStoreBytes))),
	param("npu.packet", "", "bytes", "Table V", "packet and flit", fixed(units.FormatSize(fabric.PacketBytes))),
}

// algorithmParam is the key collectives.KEY: the algorithm every command
// runs op with (the comparator's training, sweeps, figures), one of those
// registered for it (acemu collective --help lists them).
func algorithmParam(op collectives.CollectiveOp, key string) Param {
	return param("collectives."+key, collectives.DefaultAlgorithm(op), "algorithm", "Section V; docs/collectives.md",
		"the algorithm every "+op.String()+" runs with (one of those registered for it)",
		value{func(p *Platform) string { return p.Algorithms[op] }, func(p *Platform, s string) error {
			s = strings.TrimSpace(s)
			if err := collectives.CheckAlgorithm(s, op); err != nil {
				return err
			}
			p.Algorithms[op] = s
			return nil
		}})
}
