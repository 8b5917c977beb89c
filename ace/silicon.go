package ace

import "math/big"

// Silicon is a design point's area and power at 28 nm, exactly: the
// components of Table IV of the ACE paper, scaled to the design point by
// the rule of docs/area-power.md.
type Silicon struct {
	Parts []SiliconPart
	// AreaUm2 and PowerMW are the parts' sums.
	AreaUm2, PowerMW *big.Rat
}

// SiliconPart is one component's area (µm²) and power (mW).
type SiliconPart struct {
	Name             string
	AreaUm2, PowerMW *big.Rat
}

// Table IV of the ACE paper (28 nm): the design point's components.
const (
	tableSRAMBytes = 4 << 20 // 4 × 1 MB banks (the model's 4 MiB)
	tableFSMs      = 16
	tableALUBytes  = 64 // bytes per cycle of one ALU (32 × FP16)
)

var (
	tableSRAMArea, tableSRAMPower       = big.NewRat(5113696, 1), big.NewRat(4096, 1)
	tableControlArea, tableControlPower = big.NewRat(159803, 1), big.NewRat(128, 1)
	tableALUArea, tableALUPower         = big.NewRat(16112, 1), big.NewRat(7552, 1000) // one ALU
	tableSwitchArea, tableSwitchPower   = big.NewRat(1084, 1), big.NewRat(329, 1000)
)

// SiliconOf returns c's area and power (docs/area-power.md): the SRAM's
// in proportion to its capacity, the control unit's to the FSM count, the
// ALUs' to their number and width, the switch's as Table IV gives it.
func SiliconOf(c Config) Silicon {
	scale := func(area, power *big.Rat, num, den int64) (*big.Rat, *big.Rat) {
		f := big.NewRat(num, den)
		return new(big.Rat).Mul(area, f), new(big.Rat).Mul(power, f)
	}
	part := func(name string, area, power *big.Rat) SiliconPart {
		return SiliconPart{Name: name, AreaUm2: area, PowerMW: power}
	}
	sa, sp := scale(tableSRAMArea, tableSRAMPower, c.SRAMBytes, tableSRAMBytes)
	ca, cp := scale(tableControlArea, tableControlPower, int64(c.FSMs), tableFSMs)
	aa, ap := scale(tableALUArea, tableALUPower, int64(c.ALUs)*c.ALUBytes, tableALUBytes)
	s := Silicon{Parts: []SiliconPart{
		part("SRAM", sa, sp), part("control unit (FSMs)", ca, cp), part("ALUs", aa, ap),
		part("switch and interconnect", new(big.Rat).Set(tableSwitchArea), new(big.Rat).Set(tableSwitchPower)),
	}, AreaUm2: new(big.Rat), PowerMW: new(big.Rat)}
	for _, p := range s.Parts {
		s.AreaUm2.Add(s.AreaUm2, p.AreaUm2)
		s.PowerMW.Add(s.PowerMW, p.PowerMW)
	}
	return s
}
