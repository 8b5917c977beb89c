package validation

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/acemu/acemu/rtl"
)

// Options are what `acemu reproduce NAME` takes beside the platform: the
// choices of one figure's runs, each from a flag of the same name. The
// zero value of a field is the figure's own (its paper's setup, or its
// quick subset's); a figure refuses none, the command refuses a flag the
// figure does not declare (Figure.Flags).
type Options struct {
	// Topos are the machines (--topos), Workloads the workloads
	// (--workloads), Systems the systems (--systems).
	Topos, Workloads, Systems []string
	// Size is the all-reduce's bytes per NPU (--size).
	Size int64
	// Mem are Fig. 5's memory bandwidths for communication, GB/s (--mem).
	Mem []int64
	// SMs are Fig. 6's communication SM counts (--sms), Fig6Mem the
	// memory bandwidth its baseline's communication gets, GB/s
	// (--fig6-mem).
	SMs     []int
	Fig6Mem int64
	// SRAM and FSMs are Fig. 9(a)'s grid (--sram, --fsms).
	SRAM []int64
	FSMs []int
}

// The option flags a figure may declare (Figure.Flags), as
// `acemu reproduce` names them.
const (
	FlagTopos     = "topos"
	FlagWorkloads = "workloads"
	FlagSystems   = "systems"
	FlagSize      = "size"
	FlagMem       = "mem"
	FlagSMs       = "sms"
	FlagFig6Mem   = "fig6-mem"
	FlagSRAM      = "sram"
	FlagFSMs      = "fsms"
)

// inReport is whether e runs a figure within a report (no Options), where
// figures share the runs they have in common, rather than by name
// (`acemu reproduce NAME`, Options set even if zero), where each runs its
// own.
func (e Env) inReport() bool { return e.Options == nil }

// opts is e's options, the zero Options when it has none (a report).
func (e Env) opts() Options {
	if e.inReport() {
		return Options{}
	}
	return *e.Options
}

// Table is what `acemu reproduce NAME` prints of a figure beside its part
// of the report: a table of the runs (Header and Rows), a second table
// (Summary), the table in full for CSV (Full, when Header and Rows are a
// narrower form of it), notes, and Doc, the runs' result as --format json
// prints it.
//
// The report holds the table, its summary and its notes (report.json's
// "table", and the figure's section under its values and findings); the
// rest is the command's.
type Table struct {
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
	// Keys is how many leading columns name a row (0: one).
	Keys    int      `json:"-"`
	Summary *Grid    `json:"summary,omitempty"`
	Full    *Grid    `json:"-"`
	Notes   []string `json:"notes,omitempty"`
	// Workloads, when set, are the workloads whose compute regime the
	// command says before the table.
	Workloads []string `json:"-"`
	Doc       any      `json:"-"`
}

// Grid is a table: a header and rows.
type Grid struct {
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
}

// f1 prints x to one decimal.
func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// x2 prints a ratio: 1.23×.
func x2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "×" }

// signed prints a difference with its sign and d decimals (+0.00 for
// what rounds to zero).
func signed(v float64, d int) string {
	s := strconv.FormatFloat(v, 'f', d, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// microsText is c cycles at the NPU clock in µs to one decimal, rounded
// once, exactly (rtl.Cycle.TimeIn): 450628 cycles are 361.9502 µs,
// "362.0". (Rounding to the nanosecond first and printing the float gave
// "361.9".)
func microsText(c int64) string {
	t := rtl.Cycle(c).TimeIn(10_000_000) // tenths of a µs
	return fmt.Sprintf("%d.%d", t/10, t%10)
}

// orList is a when it has elements, else b: an option given, else the
// figure's own.
func orList[S ~[]E, E any](a, b S) S {
	if len(a) > 0 {
		return a
	}
	return b
}
