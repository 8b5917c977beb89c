package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/reproduce"
)

const reproduceUsage = `Usage: acemu reproduce fig5|fig6 [flags]

Rerun the sweeps behind the ACE paper's figures from the model:
  fig5  network bandwidth of a hierarchical all-reduce as the memory bandwidth
        given to communication grows: baseline (all 80 SMs) vs ACE vs ideal
  fig6  baseline network bandwidth as the communication SMs grow (all memory)

Each point is a full cycle-level run; the defaults (64 MiB on 4x2x2 and 4x4x4)
take tens of minutes on two cores, mostly ACE on 4x4x4. --size 16MiB gives
the shape in a few minutes.

Flags:
`

func runReproduce(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("reproduce", pflag.ContinueOnError)
	topos := fs.String("topos", "4x2x2,4x4x4", "torus shapes, comma-separated (16 and 64 NPUs in the paper)")
	size := fs.String("size", "64MiB", "all-reduce size per NPU")
	mem := fs.String("mem", "", "fig5: memory bandwidths for communication in GB/s, comma-separated (default 32,64,…,900)")
	sms := fs.String("sms", "", "fig6: communication SM counts, comma-separated (default 1,…,8,10,12,16)")
	fig6Mem := fs.Int64("fig6-mem", 900, "fig6: memory bandwidth given to the baseline's communication, GB/s")
	format := fs.String("format", "table", "output: table, csv or json")
	workers := fs.Int("workers", 0, "simulations run at once (default: GOMAXPROCS; results do not depend on it)")
	fs.Usage = func() { fmt.Fprintf(fs.Output(), "%s%s", reproduceUsage, fs.FlagUsages()) }
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			fs.SetOutput(stdout)
			fs.Usage()
			return 0
		}
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu reproduce: %v\n", err)
		return 1
	}
	if fs.NArg() != 1 || (fs.Arg(0) != "fig5" && fs.Arg(0) != "fig6") {
		fmt.Fprintf(stderr, "acemu reproduce: name one figure, fig5 or fig6\n\n%s%s", reproduceUsage, fs.FlagUsages())
		return 2
	}
	if *format != "table" && *format != "csv" && *format != "json" {
		return fail(fmt.Errorf("--format %q: use table, csv or json", *format))
	}
	n, err := parseSize(*size)
	if err != nil {
		return fail(fmt.Errorf("--size: %w", err))
	}
	tl := splitList(*topos)
	if len(tl) == 0 {
		return fail(fmt.Errorf("--topos is empty; give shapes like 4x2x2,4x4x4"))
	}
	var out any
	var header []string
	var rows [][]string
	var notes []string
	if fs.Arg(0) == "fig5" {
		o := reproduce.DefaultFig5()
		o.Topos, o.Size, o.Workers = tl, n, *workers
		if *mem != "" {
			if o.MemGBps, err = parseInts(*mem, "--mem"); err != nil {
				return fail(err)
			}
		}
		r, err := reproduce.Fig5(o)
		if err != nil {
			return fail(err)
		}
		out = r
		header = []string{"topology", "comm mem GB/s", "baseline GB/s", "baseline % ideal", "ACE GB/s", "ACE % ideal", "ideal GB/s"}
		for _, x := range r.Rows {
			rows = append(rows, []string{x.Topo, fmt.Sprint(x.MemGBps), f1(x.BaselineBW), f1(x.BaselinePct), f1(x.ACEBW), f1(x.ACEPct), f1(x.IdealBW)})
		}
		for _, t := range r.Thresholds {
			notes = append(notes, fmt.Sprintf("%s: 90 %% of ideal first reached at baseline %s, ACE %s%s (paper: ≈ 450 vs 128 GB/s, ≈ 3.5×)",
				t.Topo, gbOrNone(t.Baseline), gbOrNone(t.ACE), ratio(t.Ratio)))
		}
	} else {
		o := reproduce.DefaultFig6()
		o.Topos, o.Size, o.MemGBps, o.Workers = tl, n, *fig6Mem, *workers
		if *sms != "" {
			v, err := parseInts(*sms, "--sms")
			if err != nil {
				return fail(err)
			}
			o.SMs = o.SMs[:0]
			for _, x := range v {
				o.SMs = append(o.SMs, int(x))
			}
		}
		r, err := reproduce.Fig6(o)
		if err != nil {
			return fail(err)
		}
		out = r
		header = []string{"topology", "comm SMs", "baseline GB/s", "% ideal", "SM busy %", "memory read GB/s", "ideal GB/s"}
		for _, x := range r.Rows {
			rows = append(rows, []string{x.Topo, fmt.Sprint(x.SMs), f1(x.BaselineBW), f1(x.Pct), f1(100 * x.SMBusy), f1(x.MemReadBW), f1(x.IdealBW)})
		}
		for _, t := range r.Thresholds {
			s := "not reached"
			if t.Baseline > 0 {
				s = fmt.Sprintf("%d SMs", t.Baseline)
			}
			notes = append(notes, fmt.Sprintf("%s: 90 %% of ideal first reached with %s (paper: ≈ 6 SMs)", t.Topo, s))
		}
	}
	switch *format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return fail(err)
		}
	case "csv":
		w := csv.NewWriter(stdout)
		_ = w.Write(header)
		_ = w.WriteAll(rows)
		if err := w.Error(); err != nil {
			return fail(err)
		}
	default:
		t := newTable(stdout)
		t.Header(header)
		if err := t.Bulk(rows); err != nil {
			return fail(err)
		}
		if err := t.Render(); err != nil {
			return fail(err)
		}
		for _, s := range notes {
			fmt.Fprintln(stdout, s)
		}
	}
	return 0
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func gbOrNone(v int64) string {
	if v == 0 {
		return "not reached"
	}
	return fmt.Sprintf("%d GB/s", v)
}

func ratio(r float64) string {
	if r == 0 {
		return ""
	}
	return fmt.Sprintf(" (%.2f×)", r)
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func parseInts(s, flag string) ([]int64, error) {
	var out []int64
	for _, x := range splitList(s) {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("%s %q: %q is not a positive whole number; write e.g. 64,128,450", flag, s, x)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s is empty", flag)
	}
	return out, nil
}
