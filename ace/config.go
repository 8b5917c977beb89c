package ace

import (
	"fmt"
	"math/big"

	"github.com/acemu/acemu/rtl"
)

// Config is one ACE design point.
type Config struct {
	SRAMBytes int64 // total SRAM (Table IV: 4 × 1 MB)
	Banks     int   // SRAM banks
	PortBytes int64 // bytes per cycle of each bank's read port and of its write port
	ALUs      int   // ALUs (4)
	ALUBytes  int64 // bytes per cycle per ALU (64: 32 × FP16)
	FSMs      int   // programmable FSMs (16)
	// FSMSplit divides the FSMs among phases: "latency" (in proportion to
	// the time a chunk alone spends in each phase) or "even".
	FSMSplit string
	// CommMemGBps is the memory bandwidth given to communication (ACE's
	// DMA), in each direction: TX DMA reads and RX DMA writes each get this
	// much (docs/ace-model.md explains why).
	CommMemGBps *big.Rat
	// BusGBps is the NPU–AFI bus, per direction.
	BusGBps *big.Rat
}

// Default is the paper's ACE: 4 MB in 4 banks of 64 B ports, 4 ALUs of
// 64 B/cycle, 16 FSMs, 128 GB/s of memory bandwidth, a 500 GB/s bus.
func Default() Config {
	return Config{
		SRAMBytes: 4 << 20, Banks: 4, PortBytes: 64, ALUs: 4, ALUBytes: 64, FSMs: 16,
		FSMSplit: "latency", CommMemGBps: big.NewRat(128, 1), BusGBps: big.NewRat(500, 1),
	}
}

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
	case c.FSMSplit != "latency" && c.FSMSplit != "even":
		return fmt.Errorf("FSM split %q: use latency or even", c.FSMSplit)
	case c.CommMemGBps == nil || c.CommMemGBps.Sign() <= 0:
		return fmt.Errorf("memory bandwidth for communication must be positive (e.g. 128GB/s)")
	case c.BusGBps == nil || c.BusGBps.Sign() <= 0:
		return fmt.Errorf("NPU–AFI bus bandwidth must be positive")
	}
	return nil
}

// rates are the exact per-cycle rates of a configuration.
type rates struct {
	mem, bus, sram, alu rtl.Rate
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
		sram: rtl.Rate{Num: int64(c.Banks) * c.PortBytes, Den: 1},
		alu:  rtl.Rate{Num: c.ALUBytes, Den: 1},
	}, nil
}
