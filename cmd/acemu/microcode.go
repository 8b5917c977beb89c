package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/collectives/microcode"
	"github.com/acemu/acemu/units"
)

// runMicrocode prints the microcode one NPU's FSMs run for a collective.
func runMicrocode(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("microcode", pflag.ContinueOnError)
	var o planOpts
	o.register(fs)
	npu := intFlag(fs, "npu", 0, "the NPU whose microcode to print")
	format := fs.String("format", "text", "output: text (the listing, which --microcode reads), "+formats+" (one row or object per op)")
	var wide bool
	registerWide(fs, &wide)
	var pf platformFlags
	pf.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: acemu microcode [flags]\n\nPrint the microcode NPU --npu's FSMs run for a collective (docs/microcode.md).\nThe listing can be edited and run with 'acemu collective --microcode FILE':\n\n  acemu microcode --topo 4x2x2 --size 1MiB > ar.uc\n  acemu collective --topo 4x2x2 --size 1MiB --microcode ar.uc --check-data\n\n--format table, csv or json gives one row (object) per op instead.\n\nFlags:\n%s", fs.FlagUsages())
	}
	if done, code := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	noteBareSize(stderr, "acemu microcode", fs)
	// The platform gives the chunk and message (afi.*); microcode uses
	// nothing else of it.
	p, err := pf.build(fs)
	if err == nil {
		err = checkFormat(*format, "text")
	}
	if err == nil {
		err = unusedAlgorithms(p, "acemu microcode")
	}
	if err == nil {
		err = unusedParams(p, "acemu microcode", "links.", "ace.", "training.", "baseline.", "npu.compute_speed")
	}
	if err != nil {
		fmt.Fprintf(stderr, "acemu microcode: %v\n", err)
		return 1
	}
	o.chunk, o.message = units.FormatSize(p.ChunkBytes), units.FormatSize(p.MessageBytes)
	plan, err := o.plan()
	if err != nil {
		fmt.Fprintf(stderr, "acemu microcode: %v\n", err)
		return 1
	}
	secs, err := microcode.Sections(plan, *npu)
	if err != nil {
		err = fmt.Errorf("--npu: %w", err)
	} else {
		if *format == "text" {
			err = microcode.Write(stdout, secs)
		} else {
			l := microcode.List(secs)
			err = result{header: microcode.Columns, rows: l.Rows(), doc: l, wide: wide}.write(stdout, *format)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "acemu microcode: %v\n", err)
		return 1
	}
	return 0
}

// loadMicrocode installs the programs of a microcode file into plan.
func loadMicrocode(plan *collectives.Plan, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--microcode: %w", err)
	}
	defer f.Close()
	secs, err := microcode.Parse(path, f)
	if err != nil {
		return err
	}
	return microcode.Install(plan, secs)
}
