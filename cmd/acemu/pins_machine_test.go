package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Pins, not goldens: what every command that runs the torus prints and
// writes today, recorded before the machines refactor (the 3D torus
// becomes one machine among several, a run is assembled in one place, the
// FIFO/LIFO and collective-kind enums become one each), so that it can be
// shown to move no number. A commit that changes one says which and why.
// ACEMU_PRINT_PINS=1 prints each table's rows as they are now.
//
// Each pinned run is acemu in-process with its arguments; an argument
// "@/NAME" names NAME in a fresh directory, and the SHA-256 of every file
// the run leaves there is pinned beside that of its standard output (but
// PNG figures, whose SVG twins are pinned, and a sweep's empty lock file).
// JSON, printed or written, is hashed as canonicalJSON leaves it; every
// other output byte for byte.

// printPins says whether to print the pins as they are now.
var printPins = os.Getenv("ACEMU_PRINT_PINS") != ""

// canonicalJSON is a JSON document without "events" at any depth (the
// count of simulator events is the engine's work, not a result),
// re-encoded with sorted keys and every number as it was written.
func canonicalJSON(b []byte) (any, []byte, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return nil, nil, err
	}
	dropEvents(doc)
	out, err := json.Marshal(doc)
	return doc, out, err
}

// dropEvents deletes every "events" key below v.
func dropEvents(v any) {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "events")
		for _, e := range x {
			dropEvents(e)
		}
	case []any:
		for _, e := range x {
			dropEvents(e)
		}
	}
}

// sha256Hex is the SHA-256 of b in hex.
func sha256Hex(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b)) }

// reportSHA decodes a JSON report (an object) and returns it, in its
// canonical form (canonicalJSON), and the SHA-256 of that form.
func reportSHA(t testing.TB, out string) (map[string]any, string) {
	t.Helper()
	doc, b, err := canonicalJSON([]byte(out))
	require.NoError(t, err)
	m, ok := doc.(map[string]any)
	require.True(t, ok, "a report is a JSON object")
	return m, sha256Hex(b)
}

// headline is the cycles a report leads with: a collective's, or each
// system's total over the training run; nil for any other output.
func headline(t testing.TB, doc map[string]any) []int64 {
	num := func(v any) int64 {
		n, err := v.(json.Number).Int64()
		require.NoError(t, err)
		return n
	}
	if c, ok := doc["cycles"]; ok {
		return []int64{num(c)}
	}
	ss, _ := doc["systems"].([]any)
	var out []int64
	for _, s := range ss {
		if c, ok := s.(map[string]any)["total_cycles"]; ok {
			out = append(out, num(c))
		}
	}
	return out
}

// pinnedRun runs acemu with args ("@/NAME": NAME in a fresh directory)
// and returns the headline cycles of its output and the SHA-256 of its
// standard output ("stdout") and of every file it wrote, by name.
func pinnedRun(t *testing.T, args []string) ([]int64, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	args = slices.Clone(args)
	for i, a := range args {
		if rest, ok := strings.CutPrefix(a, "@/"); ok {
			args[i] = filepath.Join(dir, rest)
		}
	}
	code, out, errOut := runCLI(args...)
	require.Equal(t, 0, code, errOut)
	shas := map[string]string{"stdout": sha256Hex([]byte(out))}
	var cycles []int64
	if strings.HasPrefix(out, "{") {
		var doc map[string]any
		doc, shas["stdout"] = reportSHA(t, out)
		cycles = headline(t, doc)
	}
	require.NoError(t, filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(path) == ".png" || e.Name() == ".lock" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		name, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if filepath.Ext(path) == ".json" {
			if _, b, err = canonicalJSON(b); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		shas[filepath.ToSlash(name)] = sha256Hex(b)
		return nil
	}))
	return cycles, shas
}

// runPin is a pinned run of the general tables: acemu's arguments, the
// headline cycles and the SHA-256 of each output.
type runPin struct {
	args   []string
	cycles []int64
	sha    map[string]string
}

// checkRunPins runs each pin and requires what it pins.
func checkRunPins(t *testing.T, pins []runPin) {
	for _, p := range pins {
		t.Run(strings.Join(p.args, " "), func(t *testing.T) {
			cycles, sha := pinnedRun(t, p.args)
			if printPins { // the row as it is now, to pin a change that says why
				fmt.Print(formatRunPin(runPin{p.args, cycles, sha}))
			}
			require.Equal(t, p.cycles, cycles)
			require.Equal(t, p.sha, sha)
		})
	}
}

// formatRunPin is p as a row of a table of runPins (gofmt aligns it).
func formatRunPin(p runPin) string {
	cycles := "nil"
	if p.cycles != nil {
		cycles = fmt.Sprintf("%#v", p.cycles)
	}
	rows := fmt.Sprintf("{%#v, %s, map[string]string{\n", p.args, cycles)
	for _, n := range slices.Sorted(maps.Keys(p.sha)) {
		rows += fmt.Sprintf("\t%q: %q,\n", n, p.sha[n])
	}
	return rows + "}},\n"
}

// The comparator, `acemu --workload W --topo T --format json`: the main
// job on 4x8x4 with every artifact of --out (the table, CSV, JSON, the
// platform and the figures), each built-in in the default compute regime
// (beside it, in the JSON, the other regime's run), ASTRA-sim's files,
// both memory policies and FIFO. GNMT trains one iteration, on 4x2x2: it
// takes 5 s, two iterations three times as long.
func TestPinnedComparator(t *testing.T) {
	if testing.Short() {
		t.Skip("training comparisons, the main job among them")
	}
	checkRunPins(t, []runPin{
		{[]string{"--topo", "4x8x4", "--workload", "resnet50", "--format", "json", "--out", "@/out"}, []int64{5356944, 4647786, 7347868, 3432318, 3107874}, map[string]string{
			"out/breakdown.svg":   "9faf8e9cf95921dd6710ce539eb7fd4b37a826758f5650677af9191b7219eb34",
			"out/platform.yaml":   "cc035b447208d5cda3c885f5f6f4c451629e2ebad2bdcaedd71da956a0596da8",
			"out/result.csv":      "17c6f2cce89fd76a4fbe08305e5132bd64f11efc4afccf0b0b5bd43e2120ad97",
			"out/result.json":     "1856eb75a9e1ad1704d002ec9c4d75844a08f6ac1d8cc8ad2cdc1838d62f2861",
			"out/result.txt":      "3d345e1a9ff47dfed5eaa7f448c2d16a917336a6cc1451771b86a4fec0381a50",
			"out/utilization.svg": "57145421a8c60288def54c4e6b9ba365bd8376d8076ca8229ca2286d0721dd7e",
			"stdout":              "1856eb75a9e1ad1704d002ec9c4d75844a08f6ac1d8cc8ad2cdc1838d62f2861",
		}},
		{[]string{"--topo", "4x4x2", "--workload", "resnet50", "--compute", "roofline", "--format", "json", "--other-regime=false"}, []int64{20593342, 20079258, 19774368, 19456986, 19446498}, map[string]string{
			"stdout": "da520e65051090bbd7007e12a423ad1ab1c013d3b07736ca1af8098f5675a800",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "gnmt", "--format", "json", "--iterations", "1"}, []int64{89333870, 85580263, 86686914, 85172196, 84952135}, map[string]string{
			"stdout": "45d07e2db449924a136301ffe4d8958a58be8b4124f445a7bbdb24db69fd22d9",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "dlrm", "--format", "json"}, []int64{360020, 278749, 323169, 155764, 136245}, map[string]string{
			"stdout": "323c11f2cffba7b0344fa93bbbb2a967309ad718c0613122871c4aa01e4482f7",
		}},
		{[]string{"--topo", "4x4x2", "--workload", "dlrm", "--format", "json"}, []int64{408612, 313801, 333911, 160465, 147896}, map[string]string{
			"stdout": "9e62861230c7071477506afea91f13d27396c4439c1521e6af4f3afcd05c69e1",
		}},
		{[]string{"--topo", "4x4x4", "--workload", "dlrm", "--format", "json"}, []int64{431396, 352879, 369319, 171016, 156364}, map[string]string{
			"stdout": "68570437f2ff6eeefca7684ceaed4f5a9586780ce6e6323cd1e796a32c7261a4",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "dlrm", "--format", "json", "--memory-policy", "partition"}, []int64{351300, 369552, 360566, 159643, 136245}, map[string]string{
			"stdout": "eba0306124bf62de0a2384a0b76fc487a5510b5800511902e021314fffbc3a61",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "dlrm", "--format", "json", "--priority", "fifo"}, []int64{360020, 278986, 341178, 155408, 135106}, map[string]string{
			"stdout": "939a6d8c547b1e6d712dc71ffc45ea1895a67566276470c3f36bf671e5bc2812",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "../../testdata/astrasim/Resnet50_DataParallel.txt", "--format", "json", "--iterations", "1"}, []int64{2385294, 2188974, 3568444, 1608371, 1350985}, map[string]string{
			"stdout": "7d1b9cdbc55d0a17b285fb1e04c313299c05fa44ece5853b2b3843588e3d396e",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "../../testdata/astrasim/DLRM_HybridParallel.txt", "--format", "json"}, []int64{360020, 278749, 323169, 155764, 136245}, map[string]string{
			"stdout": "5241a1f674d789c46fadf078936c93d1adc68a3813a5516d3999a40d8a0193d1",
		}},
		{[]string{"--topo", "4x4x2", "--workload", "../../testdata/astrasim/DLRM_HybridParallel.txt", "--format", "json", "--memory-policy", "partition"}, []int64{400132, 409487, 373847, 164537, 147896}, map[string]string{
			"stdout": "4d13f662b0c27a32102b64d136f5857b790ccd00331cb8ab51f8a9f4aeaae1dd",
		}},
		{[]string{"--topo", "4x8x4", "--workload", "../../testdata/astrasim/DLRM_HybridParallel.txt", "--format", "json", "--priority", "fifo"}, []int64{515644, 432535, 457721, 192874, 177693}, map[string]string{
			"stdout": "6c46fe41317f322ed41a9a5a8e9ba10f0a2328b5bbab9924d57108a7867b2340",
		}},
	})
}
