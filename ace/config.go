package ace

import (
	"fmt"
	"math/big"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
)

// Config is one ACE design point.
type Config struct {
	SRAMBytes int64 // total SRAM (Table IV: 4 × 1 MB)
	Banks     int   // SRAM banks
	PortBytes int64 // bytes per cycle of one SRAM port (the paper's "64B buses")
	// PortsPerBank is how many read ports, and how many write ports, each
	// bank has; 0 derives it from the network and the memory share (Ports,
	// docs/ace-model.md), 1 is the paper's literal reading.
	PortsPerBank int
	// Partition is the rule that sizes the SRAM partitions: "little"
	// (Little's law for the chunk flow) or "paper" (Section IV-I's
	// heuristic, footnote 9).
	Partition string
	// Notice is when an NPU tells its senders it is ready for a chunk's
	// phase (the receive-ready rendezvous, docs/ace-model.md): "room" when
	// it has room for it in the phase's partition, granted ahead in the
	// chunk order, or "fsm" when the phase's FSM takes the chunk up.
	Notice string
	// Prefetch is how far ahead chunks move: "fsm" lets a chunk join its
	// FSM's queue for a phase (load, for the first) only while fewer chunks
	// wait for that phase's FSMs than it has, or "room" whenever the
	// partition has room (docs/ace-model.md, "Loading ahead").
	Prefetch string
	ALUs     int   // ALUs (4)
	ALUBytes int64 // bytes per cycle per ALU (64: 32 × FP16)
	FSMs     int   // programmable FSMs (16)
	// FSMSplit divides the FSMs among phases: "latency" (in proportion to
	// the time a chunk alone spends in each phase) or "even".
	FSMSplit string
	// CommMemGBps is the memory bandwidth given to communication (ACE's
	// DMA), in each direction: TX DMA reads and RX DMA writes each get this
	// much (docs/ace-model.md explains why).
	CommMemGBps *big.Rat
	// BusGBps is the NPU–AFI bus, per direction.
	BusGBps *big.Rat
	// ownPrograms makes every NPU of a full network run its own programs
	// even where they could be shared (tests compare the two).
	ownPrograms bool
}

// Default is the paper's ACE: 4 MB in 4 banks of 64 B ports (as many per
// bank as the links and the DMA need), 4 ALUs of 64 B/cycle, 16 FSMs,
// 128 GB/s of memory bandwidth, a 500 GB/s bus, partitions by Little's law.
func Default() Config {
	return Config{
		SRAMBytes: 4 << 20, Banks: 4, PortBytes: 64, ALUs: 4, ALUBytes: 64, FSMs: 16,
		FSMSplit: "latency", CommMemGBps: big.NewRat(128, 1), BusGBps: big.NewRat(500, 1),
		Partition: PartitionLittle, Notice: NoticeRoom, Prefetch: PrefetchFSM,
	}
}

// Partition rules.
const (
	PartitionLittle = "little"
	PartitionPaper  = "paper"
)

// How far ahead the TX DMA loads.
const (
	PrefetchFSM  = "fsm"
	PrefetchRoom = "room"
)

// Receive-ready notices.
const (
	NoticeRoom = "room"
	NoticeFSM  = "fsm"
)

// maxPortsPerBank bounds --sram-ports: far beyond any rule's need (Table
// V's platform needs 2), it keeps a mistyped count from meaning nothing.
const maxPortsPerBank = 64

// Validate reports a configuration that cannot work, naming the fix.
func (c Config) Validate() error {
	switch {
	case c.SRAMBytes < 1:
		return fmt.Errorf("SRAM of %d bytes: must be positive", c.SRAMBytes)
	case c.Banks < 1 || c.PortBytes < 1:
		return fmt.Errorf("SRAM of %d banks with %d-byte ports: need at least one bank and one byte per cycle", c.Banks, c.PortBytes)
	case c.ALUs < 1 || c.ALUBytes < 1:
		return fmt.Errorf("%d ALUs of %d B/cycle: need at least one ALU", c.ALUs, c.ALUBytes)
	case c.FSMs < 1:
		return fmt.Errorf("%d FSMs: need at least one per phase", c.FSMs)
	case c.PortsPerBank < 0 || c.PortsPerBank > maxPortsPerBank:
		return fmt.Errorf("%d SRAM ports per bank: use 1 to %d, or 0 to derive them from the links and the memory share", c.PortsPerBank, maxPortsPerBank)
	case c.Partition != PartitionLittle && c.Partition != PartitionPaper:
		return fmt.Errorf("partition rule %q: use little or paper", c.Partition)
	case c.Notice != NoticeRoom && c.Notice != NoticeFSM:
		return fmt.Errorf("receive-ready notice %q: use room or fsm", c.Notice)
	case c.Prefetch != PrefetchFSM && c.Prefetch != PrefetchRoom:
		return fmt.Errorf("prefetch %q: use fsm or room", c.Prefetch)
	case c.FSMSplit != "latency" && c.FSMSplit != "even":
		return fmt.Errorf("FSM split %q: use latency or even", c.FSMSplit)
	case c.CommMemGBps == nil || c.CommMemGBps.Sign() <= 0:
		return fmt.Errorf("memory bandwidth for communication must be positive (e.g. 128GB/s)")
	case c.BusGBps == nil || c.BusGBps.Sign() <= 0:
		return fmt.Errorf("NPU–AFI bus bandwidth must be positive")
	}
	return nil
}

// rates are the exact per-cycle rates of a configuration; sram is one
// port's, the same for reads and writes.
type rates struct {
	mem, bus, port, alu rtl.Rate
}

// dma is the rate a DMA engine moves data at: its memory share, at most
// the NPU–AFI bus.
func (r rates) dma() *big.Rat {
	m, b := r.mem.Rat(), r.bus.Rat()
	if b.Cmp(m) < 0 {
		return b
	}
	return m
}

func (c Config) rates() (rates, error) {
	one := big.NewRat(1, 1)
	mem, err := rtl.RateGBps(c.CommMemGBps, one)
	if err != nil {
		return rates{}, fmt.Errorf("memory bandwidth for communication: %w", err)
	}
	bus, err := rtl.RateGBps(c.BusGBps, one)
	if err != nil {
		return rates{}, fmt.Errorf("NPU–AFI bus: %w", err)
	}
	return rates{
		mem: mem, bus: bus,
		port: rtl.Rate{Num: c.PortBytes, Den: 1},
		alu:  rtl.Rate{Num: c.ALUBytes, Den: 1},
	}, nil
}

// Ports returns how many read ports and how many write ports each SRAM bank
// of NPU npu's ACE has on net: PortsPerBank when set, otherwise the fewest
// that give reads the bandwidth of every outgoing link plus the RX DMA, and
// writes every incoming link plus the TX DMA (the rule the paper uses for
// the NPU–AFI bus, "the sum of all links"; docs/ace-model.md).
func (c Config) Ports(net *fabric.Network, npu int) (read, write int, err error) {
	if c.PortsPerBank > 0 {
		return c.PortsPerBank, c.PortsPerBank, nil
	}
	rt, err := c.rates()
	if err != nil {
		return 0, 0, err
	}
	out, in := rt.dma(), rt.dma()
	for p := 0; p < net.Ports(); p++ {
		if l := net.Out(npu, p); l != nil {
			out.Add(out, l.Params.Rate.Rat())
		}
	}
	for _, l := range net.In(npu) {
		in.Add(in, l.Params.Rate.Rat())
	}
	bank := big.NewRat(int64(c.Banks)*c.PortBytes, 1)
	rd := max(rtl.CeilRat(new(big.Rat).Quo(out, bank)), 1)
	wr := max(rtl.CeilRat(new(big.Rat).Quo(in, bank)), 1)
	return int(rd), int(wr), nil
}
