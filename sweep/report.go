package sweep

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/units"
)

// Report is a finished sweep: every point and system, and the aggregate
// (docs/sweeps.md, "Results").
type Report struct {
	Sweep     *Spec       `json:"sweep"`
	Points    []PointRow  `json:"points"`
	Aggregate []Aggregate `json:"aggregate,omitempty"`
}

// PointRow is one system at one point.
type PointRow struct {
	Values   []string `json:"values"`
	Workload string   `json:"workload"`
	Topology string   `json:"topology"`
	Folded   bool     `json:"folded"`
	compare.SystemResult
	// SpeedupOfACE is this system's time over ACE's at the point.
	SpeedupOfACE *float64 `json:"speedup_of_ace,omitempty"`
	// Perf is the reference point's total cycles over this point's, for
	// the same workload, topology and system.
	Perf float64 `json:"perf_vs_reference"`
	// Silicon is ACE's area and power at the point (ACE only).
	Silicon *Silicon `json:"silicon,omitempty"`
}

// Silicon is a design point's area and power (ace.SiliconOf), rounded
// to floats for reports.
type Silicon struct {
	AreaMM2 float64 `json:"area_mm2"`
	PowerW  float64 `json:"power_w"`
}

// Aggregate is one parameter combination and system, averaged over
// workloads and topologies.
type Aggregate struct {
	Values []string `json:"values"`
	System string   `json:"system"`
	// Perf is the mean of the points' Perf.
	Perf float64 `json:"perf_vs_reference"`
	// Silicon, PerfPerArea and PerfPerWatt are for ACE: the two ratios are
	// Perf over area (power) relative to the reference's, so that the
	// reference is 1.
	Silicon     *Silicon `json:"silicon,omitempty"`
	PerfPerArea *float64 `json:"perf_per_area_vs_reference,omitempty"`
	PerfPerWatt *float64 `json:"perf_per_watt_vs_reference,omitempty"`
}

// NewReport builds the report of a sweep's points (all of them, in index
// order).
func NewReport(s *Spec, pts []PointResult) (*Report, error) {
	if len(pts) != s.Len() {
		return nil, fmt.Errorf("sweep: %d of %d points", len(pts), s.Len())
	}
	r := &Report{Sweep: s}
	nwt := len(s.Workloads) * len(s.Topologies)
	refCombo := s.combination(s.Reference)
	silicon := map[int]*big.Rat{} // per combination: ACE's area (µm²)
	power := map[int]*big.Rat{}   // and power (mW)
	for c := 0; c < s.Combinations(); c++ {
		p, err := s.Platform(s.Point(c * nwt).Values)
		if err != nil {
			return nil, err
		}
		si := ace.SiliconOf(p.ACE)
		silicon[c], power[c] = si.AreaUm2, si.PowerMW
	}
	sil := func(c int) *Silicon {
		a, _ := new(big.Rat).Quo(silicon[c], big.NewRat(1_000_000, 1)).Float64()
		w, _ := new(big.Rat).Quo(power[c], big.NewRat(1000, 1)).Float64()
		return &Silicon{AreaMM2: a, PowerW: w}
	}
	sum := map[[2]int]float64{} // (combination, system) → sum of Perf
	for i, pt := range pts {
		c := i / nwt
		ref := pts[refCombo*nwt+i%nwt]
		for k, sr := range pt.Systems {
			row := PointRow{Values: pt.Values, Workload: pt.Workload, Topology: pt.Topology, Folded: pt.Folded, SystemResult: sr}
			if v, ok := pt.SpeedupOfACE[sr.Name]; ok {
				row.SpeedupOfACE = &v
			}
			if sr.TotalCycles > 0 {
				row.Perf = float64(ref.Systems[k].TotalCycles) / float64(sr.TotalCycles)
			}
			if sr.Name == "ace" {
				row.Silicon = sil(c)
			}
			sum[[2]int{c, k}] += row.Perf
			r.Points = append(r.Points, row)
		}
	}
	if len(s.Axes) == 0 {
		return r, nil
	}
	for c := 0; c < s.Combinations(); c++ {
		for k, name := range s.Systems {
			a := Aggregate{Values: s.Point(c * nwt).Values, System: name, Perf: sum[[2]int{c, k}] / float64(nwt)}
			if name == "ace" {
				a.Silicon = sil(c)
				refPerf := sum[[2]int{refCombo, k}] / float64(nwt)
				pa := ratio(a.Perf, refPerf, silicon[c], silicon[refCombo])
				pw := ratio(a.Perf, refPerf, power[c], power[refCombo])
				a.PerfPerArea, a.PerfPerWatt = &pa, &pw
			}
			r.Aggregate = append(r.Aggregate, a)
		}
	}
	return r, nil
}

// ratio is (perf / cost) over (refPerf / refCost).
func ratio(perf, refPerf float64, cost, refCost *big.Rat) float64 {
	rel, _ := new(big.Rat).Quo(cost, refCost).Float64()
	return perf / refPerf / rel
}

// combination is the index of a parameter combination (one value per
// axis).
func (s *Spec) combination(vals []string) int {
	c := 0
	for i, a := range s.Axes {
		j := 0
		for j < len(a.Values) && a.Values[j] != vals[i] {
			j++
		}
		c = c*len(a.Values) + j
	}
	return c
}

// PointTable is the report's points as a table: the axes, workload,
// topology and system, then every metric.
func (r *Report) PointTable() (header []string, rows [][]string) {
	for _, a := range r.Sweep.Axes {
		header = append(header, a.Key)
	}
	header = append(header, "workload", "topology", "system", "total cycles", "iteration cycles", "compute cycles", "exposed cycles", "exposed %",
		"% of ideal", "ACE speedup over it ×", "perf vs ref ×", "network GB/s", "link util %", "peak link util %", "comm memory GB/s (read+write)",
		"mem read B/NPU", "mem write B/NPU", "comm SM busy %", "ACE util %", "area mm²", "power W")
	for _, p := range r.Points {
		row := append([]string(nil), p.Values...)
		row = append(row, p.Workload, p.Topology, p.Name, fmt.Sprint(p.TotalCycles), f0(p.IterationCycles), f0(p.ComputeCycles),
			f0(p.ExposedCommCycles), f1(100*p.ExposedShare), optf(p.FractionOfIdeal, func(v float64) string { return f1(100 * v) }),
			optf(p.SpeedupOfACE, f3), f3(p.Perf), f1(p.NetworkGBps), f1(100*p.LinkUtilization), f1(100*p.PeakLinkUtilization),
			f1(p.CommMemGBps), fmt.Sprint(p.MemReadPerNPU), fmt.Sprint(p.MemWritePerNPU), f1(100*p.CommSMBusy),
			optf(p.ACEUtilization, func(v float64) string { return f1(100 * v) }))
		row = append(row, siliconCells(p.Silicon)...)
		rows = append(rows, row)
	}
	return header, rows
}

// AggregateTable is the aggregate as a table.
func (r *Report) AggregateTable() (header []string, rows [][]string) {
	for _, a := range r.Sweep.Axes {
		header = append(header, a.Key)
	}
	header = append(header, "system", "perf vs ref ×", "area mm²", "power W", "perf/area vs ref ×", "perf/W vs ref ×")
	for _, a := range r.Aggregate {
		row := append([]string(nil), a.Values...)
		row = append(row, a.System, f3(a.Perf))
		row = append(row, siliconCells(a.Silicon)...)
		row = append(row, optf(a.PerfPerArea, f3), optf(a.PerfPerWatt, f3))
		rows = append(rows, row)
	}
	return header, rows
}

// Notes are the lines a table is followed by.
func (r *Report) Notes() []string {
	s := r.Sweep
	var ref []string
	for i, a := range s.Axes {
		ref = append(ref, a.Key+"="+s.Reference[i])
	}
	n := []string{fmt.Sprintf("%s (%s × %s × %s), systems %s",
		units.Count(s.Len(), "point"), units.Count(s.Combinations(), "parameter combination"), units.Count(len(s.Workloads), "workload"),
		topologies(len(s.Topologies)), strings.Join(s.Systems, ", "))}
	if len(ref) > 0 {
		n = append(n, "perf vs ref: the reference point's total cycles over the point's ("+strings.Join(ref, " ")+
			"); the aggregate averages it over workloads and topologies; area and power from Table IV of the ACE paper (docs/area-power.md)")
	}
	return n
}

// topologies is "1 topology", "2 topologies".
func topologies(n int) string {
	if n == 1 {
		return "1 topology"
	}
	return fmt.Sprintf("%d topologies", n)
}

func siliconCells(s *Silicon) []string {
	if s == nil {
		return []string{"-", "-"}
	}
	return []string{fmt.Sprintf("%.3f", s.AreaMM2), fmt.Sprintf("%.3f", s.PowerW)}
}

func f0(v float64) string { return fmt.Sprintf("%.0f", v) }
func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
func f3(v float64) string { return fmt.Sprintf("%.3f", v) }

func opt(ok bool, s string) string {
	if !ok {
		return "-"
	}
	return s
}

func optf(v *float64, f func(float64) string) string {
	if v == nil {
		return "-"
	}
	return f(*v)
}
