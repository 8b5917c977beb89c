package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// clashInput is an input flag of a command and what its file holds (a
// valid input, so that the command reaches the check).
type clashInput struct {
	flag, content string
}

// clashOutput is an output flag and the name of the file it writes: the
// path it is given for a file flag, a file it writes into the directory
// it is given for a directory flag (--out, --plot).
type clashOutput struct {
	flag, name string
	dir        bool
}

// No output overwrites an input, by any route: for every command, output
// flag and input flag, an output naming the input's file (the same path,
// a path through ../, a symlink to it, a hard link of it, or the input
// named through a symlink) is refused before the run (exit 1, a message
// naming both flags), and the input is left byte for byte as it was.
func TestNoOutputOverwritesAnInput(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "badinput", name))
		require.NoError(t, err)
		return string(b)
	}
	config := "{}\n" // the defaults, as JSON (--config reads JSON and YAML whatever the name)
	wl, topo := read("wl_ar3.txt"), read("topo_ring3.yaml")
	sweepFile := `{"set": {"links.inter.latency": [400, 500]}, "systems": ["ideal"]}` + "\n"
	microcode := "# a user's microcode\n"
	file := func(flag string) []clashOutput { return []clashOutput{{flag: flag, name: "in.json"}} }
	var fileOutputs []clashOutput
	for _, f := range []string{"--trace", "--pcap", "--links"} {
		fileOutputs = append(fileOutputs, file(f)...)
	}
	compareOuts := slices.Concat(fileOutputs, file("--timeseries"), file("--per-layer"))
	for _, tc := range []struct {
		command []string
		inputs  []clashInput
		outputs []clashOutput
		// outName names the file a directory flag writes over an input of
		// the flag in.
		outName func(out, in string) string
	}{
		{
			command: []string{"collective", "--size", "64KiB"},
			inputs:  []clashInput{{"--config", config}, {"--microcode", microcode}, {"--topo", topo}},
			outputs: append(slices.Clone(fileOutputs), clashOutput{flag: "--out", dir: true}),
			outName: func(_, in string) string {
				if in == "--config" {
					return "platform.yaml"
				}
				return "result.json"
			},
		},
		{
			command: []string{"--iterations", "1", "--systems", "ideal"},
			inputs:  []clashInput{{"--config", config}, {"--workload", wl}, {"--topo", topo}},
			outputs: append(slices.Clone(compareOuts), clashOutput{flag: "--out", dir: true}, clashOutput{flag: "--plot", dir: true}),
			outName: func(out, in string) string {
				if out == "--plot" {
					return "utilization.svg"
				}
				return map[string]string{"--config": "platform.yaml", "--workload": "result.txt", "--topo": "summary.csv"}[in]
			},
		},
		{
			command: []string{"reproduce", "fig5", "--topos", "4x2x1", "--mem", "32", "--size", "64KiB"},
			inputs:  []clashInput{{"--config", config}},
			outputs: []clashOutput{{flag: "--out", dir: true}, {flag: "--plot", dir: true}},
			outName: func(out, _ string) string {
				return map[string]string{"--out": "platform.yaml", "--plot": "fig5.svg"}[out]
			},
		},
		{
			command: []string{"reproduce", "fig9b"},
			inputs:  []clashInput{{"--workloads", wl}},
			outputs: []clashOutput{{flag: "--out", dir: true}},
			outName: func(_, _ string) string { return "sweep/sweep.json" },
		},
		{
			command: []string{"sweep", "--topo", "4x2x1", "--systems", "ideal", "--set", "training.iterations=1"},
			inputs:  []clashInput{{"--config", config}, {"--file", sweepFile}, {"--workload", wl}},
			outputs: []clashOutput{{flag: "--out", dir: true}},
			outName: func(_, in string) string {
				return map[string]string{"--config": "result.json", "--file": "sweep.json", "--workload": "aggregate.csv"}[in]
			},
		},
	} {
		for _, in := range tc.inputs {
			for _, out := range tc.outputs {
				name := out.name
				if out.dir {
					name = tc.outName(out.flag, in.flag)
				}
				for _, route := range []string{"same path", "../", "symlink", "hard link", "input by symlink"} {
					t.Run(strings.Join([]string{tc.command[0], in.flag, out.flag, route}, " "), func(t *testing.T) {
						dir := t.TempDir()
						real := filepath.Join(dir, "in", name)
						require.NoError(t, os.MkdirAll(filepath.Dir(real), 0o755))
						require.NoError(t, os.MkdirAll(filepath.Join(dir, "in", "sub"), 0o755))
						require.NoError(t, os.WriteFile(real, []byte(in.content), 0o644))
						inPath, outPath := real, real // the input as given; the output's file
						switch route {
						case "../":
							outPath = filepath.Join(dir, "in") + "/sub/../" + name
						case "symlink", "hard link", "input by symlink":
							other := filepath.Join(dir, "other", name)
							require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o755))
							link := os.Symlink
							if route == "hard link" {
								link = os.Link
							}
							require.NoError(t, link(real, other))
							if route == "input by symlink" {
								inPath = other
							} else {
								outPath = other
							}
						}
						given := outPath // a directory flag is given the directory
						if out.dir {
							given = strings.TrimSuffix(outPath, "/"+name)
						}
						args := slices.Concat(tc.command, []string{in.flag, inPath, out.flag, given})
						if !slices.Contains(args, "--topo") && tc.command[0] == "collective" {
							args = append(args, "--topo", "4x2x1")
						}
						code, _, errOut := runCLI(args...)
						require.Equal(t, 1, code, "acemu %v: %s", args, errOut)
						require.Contains(t, errOut, in.flag+" and "+out.flag, "acemu %v", args)
						require.Contains(t, errOut, "name the same file, "+inPath, "acemu %v", args)
						require.Contains(t, errOut, "acemu never writes over an input", "acemu %v", args)
						got, err := os.ReadFile(real)
						require.NoError(t, err)
						require.Equal(t, in.content, string(got), "acemu %v changed its input", args)
					})
				}
			}
		}
	}
}

// Every output flag creates its file's directory (and its parents), as
// --out and --plot create theirs.
func TestOutputsMakeTheirDirectory(t *testing.T) {
	compare := []string{"--workload", "dlrm", "--topo", "4x1x1", "--iterations", "1", "--systems", "ideal"}
	collective := []string{"collective", "--topo", "4x1x1", "--size", "64KiB"}
	for _, tc := range []struct {
		args       []string
		flag, file string
	}{
		{collective, "--trace", "x.json"},
		{collective, "--pcap", "x.pcap"},
		{collective, "--links", "x.csv"},
		{collective, "--out", "result.json"},
		{compare, "--trace", "x.json"},
		{compare, "--pcap", "x.pcap"},
		{compare, "--links", "x.csv"},
		{compare, "--timeseries", "x.csv"},
		{compare, "--per-layer", "x.csv"},
		{compare, "--out", "result.json"},
		{compare, "--plot", "utilization.svg"},
		{[]string{"reproduce", "fig5", "--topos", "4x1x1", "--mem", "32", "--size", "64KiB"}, "--plot", "fig5.svg"},
		{[]string{"sweep", "--topo", "4x1x1", "--systems", "ideal", "--workload", "dlrm", "--set", "training.iterations=1"}, "--out", "result.json"},
	} {
		t.Run(tc.args[0]+" "+tc.flag, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "not", "there")
			given := filepath.Join(dir, tc.file)
			if tc.flag == "--out" || tc.flag == "--plot" {
				given = dir
			}
			code, _, errOut := runCLI(slices.Concat(tc.args, []string{tc.flag, given})...)
			require.Equal(t, 0, code, errOut)
			require.FileExists(t, filepath.Join(dir, tc.file))
		})
	}
}

// Outputs that are not inputs may sit beside them: --out in the
// directory of the run's --config and --workload writes its files and
// leaves the inputs alone; two systems' files whose base name is an
// input's are named per system, apart from it.
func TestOutputsBesideInputs(t *testing.T) {
	dir := t.TempDir()
	cfg, wl := filepath.Join(dir, "my.yaml"), filepath.Join(dir, "w.txt")
	b, err := os.ReadFile("../../testdata/badinput/wl_ar3.txt")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, []byte("# mine\n"), 0o644))
	require.NoError(t, os.WriteFile(wl, b, 0o644))
	code, _, errOut := runCLI("--workload", wl, "--config", cfg, "--topo", "4x2x1", "--iterations", "1", "--systems", "ideal,ace", "--out", dir, "--trace", wl)
	require.Equal(t, 0, code, errOut)
	for _, f := range []string{"result.txt", "platform.yaml", "w.ideal.txt", "w.ace.txt"} {
		require.FileExists(t, filepath.Join(dir, f))
	}
	got, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.Equal(t, "# mine\n", string(got))
	got, err = os.ReadFile(wl)
	require.NoError(t, err)
	require.Equal(t, b, got)
}
