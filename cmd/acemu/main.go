// Command acemu is the cycle-level emulator of ACE, the Accelerator
// Collectives Engine, on a 3D-torus fabric.
//
// Usage:
//
//	acemu                                  run the built-in default (--topo 4x8x4 --workload resnet50)
//	acemu --workload W [--topo T] [flags]  train W on Table VI's systems and compare them
//	acemu collective [flags]               simulate one collective
//	acemu microcode [flags]                print one NPU's microcode
//	acemu reproduce NAME|all [flags]       rerun a figure of the papers, or the validation report
//	acemu config dump [flags]              print the platform configuration
//	acemu topology dump --topo SPEC        print a topology as a file
//	acemu version (or --version)           print the version and commit
//	acemu help
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/spf13/pflag"
)

// gcPercent is the garbage collector's target when GOGC is not set: Go's
// default, the heap grows to twice what is live between collections. The
// rule (docs/performance.md, "The collector's target"): a larger target
// must save at least 10 % of CPU on both the folded main job and the
// --full target to be kept, since it multiplies peak memory. 400, chosen
// on older code (ResNet-50 on 2048 NPUs 13.6 → 11.5 s), saves none on the
// main job today (median 9.28 against 9.15 CPU-s, three runs each
// alternated, at 82 against 44 MB of RSS) and makes the --full runs hold
// five times their live heap (188 against 93–99 MB of RSS on 4x4x4).
const gcPercent = 100

// memoryLimit is the heap size, when GOMEMLIMIT is not set, past which the
// garbage collector works harder rather than let the heap grow to twice
// what is live (gcPercent): 1.5 GiB, so that a run whose live data
// stays inside the limits of docs/bad-input.md ("Limits") stays under
// 2 GB. Measured: --timeseries over 4 × 10^5 windows with five systems,
// 45 MB live, reached 284 MB of RSS at GOGC 400 alone and 107 MB with a
// limit of 80 MiB. A run that needs more live memory than the limit still
// runs (the limit is soft), more slowly.
const memoryLimit = 1536 << 20

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	stop, err := profile(os.Getenv("ACEMU_CPUPROFILE"), os.Getenv("ACEMU_MEMPROFILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "acemu:", err)
		os.Exit(1)
	}
	catchInterrupts(os.Stderr)
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, "acemu:", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// profile starts a CPU profile to file cpu and arranges a heap profile to
// file mem when the run ends (either "" for none): the environment
// variables ACEMU_CPUPROFILE and ACEMU_MEMPROFILE, for `go tool pprof`
// (docs/performance.md). stop ends them.
func profile(cpu, mem string) (stop func() error, err error) {
	var cf *os.File
	if cpu != "" {
		if cf, err = os.Create(cpu); err != nil {
			return nil, fmt.Errorf("ACEMU_CPUPROFILE: %w", err)
		}
		if err := pprof.StartCPUProfile(cf); err != nil {
			cf.Close()
			return nil, fmt.Errorf("ACEMU_CPUPROFILE: %w", err)
		}
	}
	return func() error {
		if cf != nil {
			pprof.StopCPUProfile()
			if err := cf.Close(); err != nil {
				return fmt.Errorf("ACEMU_CPUPROFILE: %w", err)
			}
		}
		if mem == "" {
			return nil
		}
		f, err := os.Create(mem)
		if err != nil {
			return fmt.Errorf("ACEMU_MEMPROFILE: %w", err)
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			f.Close()
			return fmt.Errorf("ACEMU_MEMPROFILE: %w", err)
		}
		return f.Close()
	}, nil
}

const usage = `acemu: a cycle-level emulator of ACE, the Accelerator Collectives Engine.

Usage:
  acemu                      run the built-in default: ResNet-50 on a 4x8x4 torus (128 NPUs),
                             the five systems of Table VI compared (acemu --topo 4x8x4 --workload resnet50)
  acemu [--workload W] [--topo MACHINE] [--systems …] [--iterations N] [--format json]
                             train workload W (default resnet50) on Table VI's systems and compare
                             them; MACHINE is a torus LxVxH (default 4x8x4), dgx1, switch:P0xP1… or a file
  acemu --workload PREFIX.0.et [--chakra-time us|ns] [--comm-groups FILE]
                             run a Chakra execution trace (a file per rank) on the systems (docs/chakra.md)
  acemu chakra gen [flags]   write a Chakra trace: Chakra's microbenchmarks, or an ASTRA-sim DATA file's
  acemu collective [flags]   simulate one collective on any machine
  acemu microcode [flags]    print the microcode one NPU's FSMs run for a collective
  acemu reproduce NAME       rerun one figure of the validation report: its table and its part of the
                             report (fig4, fig5, fig6, sec6a, fig9a, fig9b, fig10, fig11, ccube-fig12a,
                             ccube-fig13, blueconnect-fig3, mxnet-policies, libra-e3); all: the report
                             (acemu reproduce --help)
  acemu sweep [flags]        run the comparator over a grid of parameters, workloads and topologies
                             (acemu sweep --help; docs/sweeps.md)
  acemu config dump          print the platform configuration (every parameter, its unit and source),
                             in the format --config FILE reads
  acemu topology dump --topo MACHINE
                             print a machine as a file that --topo FILE reads (edit it to make your own)
  acemu version              print acemu's version and the commit it was built from (also --version)
  acemu help [command]       show help

Run 'acemu COMMAND --help' for a command's flags.
`

// defaultArgs are the built-in default: acemu's main job, the paper's
// 128-NPU ResNet-50 comparison (a few seconds: one NPU stands for all).
var defaultArgs = []string{"--topo", defaultTopo, "--workload", defaultWorkload}

// defaultTopo and defaultWorkload are the main job's machine and
// workload, and the comparator's defaults for --topo and --workload: one
// default whatever else is given.
const defaultTopo, defaultWorkload = "4x8x4", "resnet50"

// run is main without the process: it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runCompare(defaultArgs, stdout, stderr)
	}
	if args[0] == "--version" {
		return runVersion(args[1:], stdout, stderr)
	}
	if strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" {
		return runCompare(args, stdout, stderr)
	}
	if cmd, ok := commands[args[0]]; ok {
		return cmd(args[1:], stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "--help":
		if len(args) > 1 {
			if cmd, ok := commands[args[1]]; ok {
				return cmd([]string{"--help"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "acemu help: unknown command %q%s\n\n%s", args[1], didYouMean(args[1], commandNames(false)), usage)
			return 2
		}
		fmt.Fprint(stdout, usage)
		fmt.Fprintln(stdout, "The comparator's flags (acemu's own, without a command):")
		fmt.Fprintln(stdout)
		return runCompare([]string{"--help"}, stdout, stderr) // acemu's own flags: the comparator's
	default:
		fmt.Fprintf(stderr, "acemu: unknown command %q%s\n\n%s", args[0], didYouMean(args[0], commandNames(true)), usage)
		return 2
	}
}

// commands are acemu's subcommands by name.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"chakra":     runChakra,
	"collective": runCollective,
	"microcode":  runMicrocode,
	"reproduce":  runReproduce,
	"config":     runConfig,
	"topology":   runTopology,
	"sweep":      runSweep,
	"version":    runVersion,
}

// parseFlags parses args into fs, printing help on request. It returns
// done=true with the exit code when the command should stop.
func parseFlags(fs *pflag.FlagSet, args []string, stdout, stderr io.Writer) (done bool, code int) {
	return parseFlagsArgs(fs, args, 0, stdout, stderr)
}

// parseFlagsArgs is parseFlags for a command that takes up to positional
// arguments besides its flags.
func parseFlagsArgs(fs *pflag.FlagSet, args []string, positional int, stdout, stderr io.Writer) (done bool, code int) {
	fs.SetOutput(io.Discard) // pflag would print usage on every error
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		fs.SetOutput(stdout)
		fs.Usage()
		return true, 0
	}
	// The comparator's flag set is acemu's own ("acemu --help"); the
	// others are subcommands ("acemu collective --help").
	cmd := "acemu " + fs.Name()
	if fs.Name() == "acemu" {
		cmd = "acemu"
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for the flags.\n", cmd, err, cmd)
		return true, 2
	}
	if fs.NArg() > positional {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\nRun '%s --help' for the flags.\n", cmd, fs.Arg(positional), cmd)
		return true, 2
	}
	return false, 0
}
