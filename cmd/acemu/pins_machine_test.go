package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acemu/acemu/collectives"
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
// other output byte for byte but its count of simulator events
// (withoutEvents).

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

// dropEvents deletes every "events" key below v, and the SHA-256 of a
// stored sweep point (the hash of its record, events and all; the record
// itself stays).
func dropEvents(v any) {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "events")
		if _, ok := x["point"]; ok {
			delete(x, "sha256")
		}
		for _, e := range x {
			dropEvents(e)
		}
	case []any:
		for _, e := range x {
			dropEvents(e)
		}
	}
}

// withoutEvents is a table or CSV output without its count of simulator
// events, the engine's work and not a result, as canonicalJSON leaves
// JSON: a table's "simulation events" row keeps its label alone, and a
// CSV whose header has an "events" column has that column empty. Any
// other output is b itself.
func withoutEvents(b []byte) ([]byte, error) {
	const label = "simulation events"
	lines := bytes.Split(b, []byte("\n"))
	for i, l := range lines {
		if j := bytes.Index(l, []byte(label)); j >= 0 {
			lines[i] = l[:j+len(label)]
		}
	}
	b = bytes.Join(lines, []byte("\n"))
	header, _, _ := bytes.Cut(b, []byte("\n"))
	col := slices.Index(strings.Split(string(header), ","), "events")
	if col < 0 {
		return b, nil
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		if col < len(row) {
			row[col] = ""
		}
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	err = w.WriteAll(rows)
	return out.Bytes(), err
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
	plain, err := withoutEvents([]byte(out))
	require.NoError(t, err)
	shas := map[string]string{"stdout": sha256Hex(plain)}
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
			_, b, err = canonicalJSON(b)
		} else {
			b, err = withoutEvents(b)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
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
			"out/breakdown.svg":   "206cc8d15556f12e8c3fc4acfb68638fa1b83be77e651162c1921d311015e07c",
			"out/platform.yaml":   "33d9bfec0908a6309a04edede627a94c761e28288adcd45add72494c179c20b4",
			"out/result.csv":      "729e616bff667de73119914ec290f15e56a6c1c8838048f0bdc606d3ce52829e",
			"out/summary.csv":     "7d049e953ade636af1ce6f060fe2dca7f8d90cc20b47101002d82e45cfe961a8",
			"out/result.json":     "1cea76464291d11266b828333eab22bf31e9075ad2a5057be66f766eb8f57598",
			"out/result.txt":      "112dd301778b638be5725be4f67cc35faea8a7f7f0bb9e9926211ffb1cc3400c",
			"out/utilization.svg": "b7c02ed143aeb8e3411532db80593b57d5ee7911666d29d031abc5c6dce9200b",
			"stdout":              "1cea76464291d11266b828333eab22bf31e9075ad2a5057be66f766eb8f57598",
		}},
		{[]string{"--topo", "4x4x2", "--workload", "resnet50", "--compute", "roofline", "--format", "json", "--other-regime=false"}, []int64{20593342, 20079258, 19774368, 19456986, 19446498}, map[string]string{
			"stdout": "87b30b38767bf7654f2200d69437b53baed5fd905398effe7d5e7ae531913d57",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "gnmt", "--format", "json", "--iterations", "1"}, []int64{89333870, 85580263, 86686914, 85172196, 84952135}, map[string]string{
			"stdout": "6fce7a4f50e0a7662df8e9a2f1ff47b730308487049692b3eb968b8c067bf69b",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "dlrm", "--format", "json"}, []int64{360020, 278749, 323169, 155764, 136245}, map[string]string{
			"stdout": "9eef429846621a7fca430d07173053f08bc1f8676829b36ad73b6e6f330d27fd",
		}},
		{[]string{"--topo", "4x4x2", "--workload", "dlrm", "--format", "json"}, []int64{408612, 313801, 333911, 160465, 147896}, map[string]string{
			"stdout": "b3606f2ca162ef617238a3f50ad910d8602733d17b4d4f0c48e9ce9d2db6ce7d",
		}},
		{[]string{"--topo", "4x4x4", "--workload", "dlrm", "--format", "json"}, []int64{431396, 352879, 369319, 171016, 156364}, map[string]string{
			"stdout": "17f9635e139662c2e5d28d8a113480f69c89902c65e7692ff4923e539475ea23",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "dlrm", "--format", "json", "--memory-policy", "partition"}, []int64{351300, 369552, 360566, 159643, 136245}, map[string]string{
			"stdout": "a79e9b2762f928a26c7a12bdfc0c2c0639480db6234c7016321ae7da0c3474f9",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "dlrm", "--format", "json", "--priority", "fifo"}, []int64{360020, 278986, 341178, 155408, 135106}, map[string]string{
			"stdout": "22d690479e59dc2cf37394eed5c53dd92544bd4f9f287b5434a4ab2fc454c0da",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "../../testdata/astrasim/Resnet50_DataParallel.txt", "--format", "json", "--iterations", "1"}, []int64{2385294, 2188974, 3568444, 1608371, 1350985}, map[string]string{
			"stdout": "a6b7804b06819218dc49b03b0088cbad48c440fa23a9cbabd2ed5f48c602804a",
		}},
		{[]string{"--topo", "4x2x2", "--workload", "../../testdata/astrasim/DLRM_HybridParallel.txt", "--format", "json"}, []int64{360020, 278749, 323169, 155764, 136245}, map[string]string{
			"stdout": "7a1a7e1dcf6c58f8b9de8aa86e2e55aac92159ad7c8e2d8dbb40beab1cd1f3ab",
		}},
		{[]string{"--topo", "4x4x2", "--workload", "../../testdata/astrasim/DLRM_HybridParallel.txt", "--format", "json", "--memory-policy", "partition"}, []int64{400132, 409487, 373847, 164537, 147896}, map[string]string{
			"stdout": "f05520ca45171df4df417f81a1b9502d69dfb150ae8946d964ee03a48d9cf149",
		}},
		{[]string{"--topo", "4x8x4", "--workload", "../../testdata/astrasim/DLRM_HybridParallel.txt", "--format", "json", "--priority", "fifo"}, []int64{515644, 432535, 457721, 192874, 177693}, map[string]string{
			"stdout": "804624280ff8d2b44235875e005580f6c4388c08f4c1854ff645f73ca31d0962",
		}},
	})
}

// Every registered algorithm for every collective it runs, on the ideal
// endpoint, ACE and the communication-tuned baseline, 256 KiB on 4x2x2
// with real values checked (--check-data: every NPU simulated).
func TestPinnedCollectiveAlgorithms(t *testing.T) {
	type pin struct {
		algorithm, op, system string
		cycles                int64
		sha                   string
	}
	pins := []pin{
		{"blueconnect", "allreduce", "ideal", 4395, "4ee02b921a97040b3cfbb347a8542dbf4c080aa872cf1b26659f82a02e24704d"},
		{"blueconnect", "allreduce", "ace", 6808, "ad2309656c2d3158074a532114dff1238c6730f7d2bd5afc4df599cd988d5119"},
		{"blueconnect", "allreduce", "baseline-commopt", 57423, "0cbf29f86cabfb91e4ab0722d7fa68f89ff1f25d210bc696cbd0896d5964e79f"},
		{"blueconnect", "reduce-scatter", "ideal", 2560, "1498a365ecf5de7a3e6ec2be1e9ed57cf9ddca262cf16ee426fc0633bf7d627b"},
		{"blueconnect", "reduce-scatter", "ace", 4334, "3e3ba149b6de19fd1aa37f01731b203443ba8a8482797fa4ad5d8e15036168e7"},
		{"blueconnect", "reduce-scatter", "baseline-commopt", 34476, "0beaa0283d381d0e3d87c359c770aade9615479b428fa51d54bc2a7d56b34b37"},
		{"blueconnect", "all-gather", "ideal", 2418, "a145152b45098eeda06885f60a2aba10ad1098da8bd97797a0dd5b957f18c799"},
		{"blueconnect", "all-gather", "ace", 4979, "776a8008bde65863ecb01345cb2f5b0e7b5729f4dbb38e2c2da241b2786671c7"},
		{"blueconnect", "all-gather", "baseline-commopt", 34049, "dd0eb4c433a59dd4fcdac3c72e5d25a8d30280e7776f29d1865efca9c1bb7e7a"},
		{"direct", "all-to-all", "ideal", 7960, "050d1f34c478220aba592112b0277267257d29472f8d015cdbd2a05dd0e6278d"},
		{"direct", "all-to-all", "ace", 9287, "ea00e47e7d10200f2643c9bdc1ec8a7409444c7341b07b203185ca7b559694f8"},
		{"direct", "all-to-all", "baseline-commopt", 22657, "c7dff42dca5f0c5241a6721362e30923fbf6990b288d1ba73062a3926830a538"},
		{"double-tree", "allreduce", "ideal", 25075, "d8cc8d3ecff315f48659f5ef4a70a6fb7df75c74920c6212fb9934dbd5c0d5c6"},
		{"double-tree", "allreduce", "ace", 24613, "8a33090231762d3d50e0f8d3bd7630df0dc75dceea53b4c00169d6fbbd899c4d"},
		{"double-tree", "allreduce", "baseline-commopt", 67767, "c9ef7c1e56b9e3b921442e50003b0346f8592ef5361e9752130aa35929760e62"},
		{"double-tree-overlapped", "allreduce", "ideal", 25075, "37157c1f808910a6739abc0b65b806c15d664ce81ef97474514720002e253b2f"},
		{"double-tree-overlapped", "allreduce", "ace", 24464, "ed62a40cacff01e0c2ba1f6ced59b2c459bb5135e3c3223a435c00b886637c94"},
		{"double-tree-overlapped", "allreduce", "baseline-commopt", 66312, "c9ffdd51f0c5d63359de5fc0d92c98808f50c50df657a1593d4f30380c869165"},
		{"halving-doubling", "allreduce", "ideal", 15337, "5b5616c579e273acdc16da9ad81f8520410c409dad04b811b5a036b89f9214f4"},
		{"halving-doubling", "allreduce", "ace", 16524, "5d83b9070e8a8419365984fe3c97d64f539f1841e1b5fa9f348832e4394388f2"},
		{"halving-doubling", "allreduce", "baseline-commopt", 55394, "a8b83bab1e5a083c13e4d65ef202e5832ffa110693f4f74d3adddbcdaac51de8"},
		{"halving-doubling", "reduce-scatter", "ideal", 8739, "98cd8fb018ddbd9462555eeb1cc62c1c2d5c27aad01a65991355c33c575f2af7"},
		{"halving-doubling", "reduce-scatter", "ace", 8960, "8a917ff76af549b712cf16d1f177a54de2dde8667c30ea68fbfbdd938c7e0531"},
		{"halving-doubling", "reduce-scatter", "baseline-commopt", 36215, "d7791dd783b6c8d22a732806b7ef14d695144bce6de5fefa23e3613a75e8121b"},
		{"halving-doubling", "all-gather", "ideal", 7565, "dc0e43cec8ec62390edac481581501b19ec0abd6c55438a0f2bac16512eb88c6"},
		{"halving-doubling", "all-gather", "ace", 8907, "d0c7fc47ced869e7f62097332c2851f1eb03000f6440b74990fd1f2ada63d256"},
		{"halving-doubling", "all-gather", "baseline-commopt", 30973, "aacc16af4e2d15f3d9274f6210c1320e495f2ba52059ff75524cee4be714f75a"},
		{"hierarchical", "allreduce", "ideal", 4843, "aac04d063f0302ed1bacbaf8daecaf2b4229749e4cc63d1ae628c3d94d75ac98"},
		{"hierarchical", "allreduce", "ace", 6925, "5837309f0f9f86ddcba6a5462caf03a3631b4d3c186b4ee9cbfdefc4da4a9ddc"},
		{"hierarchical", "allreduce", "baseline-commopt", 57657, "7ee9ce87ad1b909d3ac1056d3df9a91295c9aaef7faea1da7631926d461fffef"},
		{"hierarchical", "reduce-scatter", "ideal", 2560, "358d1ab4cb34309415785a88a0441192e571f012b176ae4e5920f46e4343b105"},
		{"hierarchical", "reduce-scatter", "ace", 4334, "c1cbd430f1fc9bfda4567e673f6a429e265ff8eef1a6b31481b0d99918e96cdf"},
		{"hierarchical", "reduce-scatter", "baseline-commopt", 34476, "b4d4301536a2f3b82e6782bbbf311ad6b5541601f20bbf6b0c548eac79adae21"},
		{"hierarchical", "all-gather", "ideal", 2418, "e33db4c7035db30d118b0d7ff652bd76800a06bfd4f557e4b13acdd0804983d8"},
		{"hierarchical", "all-gather", "ace", 4979, "9f7fa1c0e1fee5d87bdd0b0098d13d483a6b39ebef1d9ccf99f03be3a16afa3e"},
		{"hierarchical", "all-gather", "baseline-commopt", 34049, "2d87ee28f192c327c14b45ecfe1a1b816bcbf3fd2f9ff5d1b80091106e961dbb"},
		{"ring", "allreduce", "ideal", 14128, "ef972400d54f30f478d2a721f201247572cd8832f94043bc75ac680486bf7ee8"},
		{"ring", "allreduce", "ace", 16556, "3b2e977c7e91e03a3a582080b69f53e5c7ede9c901e298cd1be5fde5e3deff6b"},
		{"ring", "allreduce", "baseline-commopt", 147888, "3dfafcc2dd9f48e4cfa8611fd286d32cc931f9d9f8828c19d5c30e5372043d33"},
		{"ring", "reduce-scatter", "ideal", 7618, "0057be8a51beb939e15d17ebc01a2152a08f22ef752e4081586f94b7820998a8"},
		{"ring", "reduce-scatter", "ace", 8898, "1a810ae198c9c3a93b04994ebc61481eefa7135e2c1b9aac6ff6efd0a7b6159c"},
		{"ring", "reduce-scatter", "baseline-commopt", 79366, "860f520b921a1095716878854f90b32e54a3d961a162dbd464fbbd1b58422c14"},
		{"ring", "all-gather", "ideal", 7618, "b77ddaf617adb5ff99bd4265c93936e83184c8f963a7b751aabfa0035138141a"},
		{"ring", "all-gather", "ace", 9764, "29c7163473ebddd5079ae066ad969faf9f2c74c7372c01ff0fa88f93aff1eb9a"},
		{"ring", "all-gather", "baseline-commopt", 79304, "71f62f90ab9b2e8c6d58cba9070ab9c62146dc9808a4280595a89d1ec9fd7e1b"},
		{"tree", "allreduce", "ideal", 45794, "e3a43fc09c40a4e67b7afdc1a56fc03471c244a16013b28abd425b4182a8b532"},
		{"tree", "allreduce", "ace", 45191, "d4c43b959ed035da981a7faa15ad53caf897db0fbfb3c8be6cc90a0db1d6b200"},
		{"tree", "allreduce", "baseline-commopt", 85358, "63ba35e41ae0034adcd8460b811d42f4072eea5a43e3090b20217dbf02353569"},
		{"tree-overlapped", "allreduce", "ideal", 45794, "84182165ba630ec5d80a8642ebda16cb3cbb85e0f2267ba0dca3ae8b8c13a4a4"},
		{"tree-overlapped", "allreduce", "ace", 45191, "7f2c77e6afec41aeccd2c42be29227038713cceb520b79709019edf3be79aa19"},
		{"tree-overlapped", "allreduce", "baseline-commopt", 85366, "9a8f4527b120e9e6cd268ca60a650cc2bee04d869e49c02706e8a604081953f5"},
		{"two-level", "allreduce", "ideal", 25569, "dd5201a755aae233fa63bf4c7275d6bc40cb2515c19ad4d11d0a18b7699d3dad"},
		{"two-level", "allreduce", "ace", 25644, "615a6f876b5d4328ebb4125c8d6ec95f6001bec191da45043100ef5671d74e93"},
		{"two-level", "allreduce", "baseline-commopt", 99918, "12479535ae101d755449716c00d1db44f7631012d1f3b85d4976c44b87f1e117"},
	}
	for _, p := range pins {
		t.Run(p.algorithm+"/"+p.op+"/"+p.system, func(t *testing.T) {
			cycles, sha := pinnedRun(t, []string{"collective", "--topo", "4x2x2", "--size", "256KiB",
				"--algorithm", p.algorithm, "--op", p.op, "--system", p.system, "--check-data", "--format", "json"})
			if printPins {
				fmt.Printf("{%q, %q, %q, %d, %q},\n", p.algorithm, p.op, p.system, cycles[0], sha["stdout"])
			}
			require.Equal(t, []int64{p.cycles}, cycles)
			require.Equal(t, p.sha, sha["stdout"])
		})
	}
	// The table covers the registry.
	systems := []string{"ideal", "ace", "baseline-commopt"}
	var want, got []string
	for _, a := range collectives.Algorithms() {
		for _, op := range a.Ops {
			for _, s := range systems {
				want = append(want, a.Name+"/"+op.String()+"/"+s)
			}
		}
	}
	for _, p := range pins {
		got = append(got, p.algorithm+"/"+p.op+"/"+p.system)
	}
	require.ElementsMatch(t, want, got)
}

// `acemu collective` beyond the algorithm table: reduce-scatter and
// all-gather on every system on 4x4x4 (folded, as the 4x4x4 all-reduce
// and all-to-all pins), one-way rings, per-phase algorithms, a baseline
// with its own split, the packet trace's hash, microcode files and
// topology files.
func TestPinnedCollectiveVariants(t *testing.T) {
	checkRunPins(t, []runPin{
		{[]string{"collective", "--system", "baseline-nooverlap", "--topo", "4x4x4", "--op", "reduce-scatter", "--size", "4MiB", "--format", "json"}, []int64{69950}, map[string]string{
			"stdout": "3723651a7102a11131f4b3decd2a14efaf8dddca5c0e9fd1d76ff7c5fe83015c",
		}},
		{[]string{"collective", "--system", "baseline-commopt", "--topo", "4x4x4", "--op", "reduce-scatter", "--size", "4MiB", "--format", "json"}, []int64{74319}, map[string]string{
			"stdout": "8e57c91cd9248d0901802b441e2db55814a5ebf8cd26846c9080e3c8c9d6a11a",
		}},
		{[]string{"collective", "--system", "baseline-compopt", "--topo", "4x4x4", "--op", "reduce-scatter", "--size", "4MiB", "--format", "json"}, []int64{134791}, map[string]string{
			"stdout": "1a83ab0957f470b27029988b6a2b4972bf79169e0d5e2f12d5ce0cfb72c855a5",
		}},
		{[]string{"collective", "--system", "ace", "--topo", "4x4x4", "--op", "reduce-scatter", "--size", "4MiB", "--format", "json"}, []int64{44427}, map[string]string{
			"stdout": "1fa167f9a1f6806a80a7ac83568530cc4d58bd1e309d30e8dce706ff9c8450f0",
		}},
		{[]string{"collective", "--system", "ideal", "--topo", "4x4x4", "--op", "reduce-scatter", "--size", "4MiB", "--format", "json"}, []int64{23853}, map[string]string{
			"stdout": "657d447ff5238056105002be33969aeffd0b80aaef3d7eebfe584d670e0f0c10",
		}},
		{[]string{"collective", "--system", "baseline-nooverlap", "--topo", "4x4x4", "--op", "all-gather", "--size", "4MiB", "--format", "json"}, []int64{69897}, map[string]string{
			"stdout": "a446f689ab7d650dd993f787cc8b0a58d79635604c084a17548f218e5df22158",
		}},
		{[]string{"collective", "--system", "baseline-commopt", "--topo", "4x4x4", "--op", "all-gather", "--size", "4MiB", "--format", "json"}, []int64{69897}, map[string]string{
			"stdout": "b0bc00477d7d85de41e834ad153591a6fe0991085d4f2b2907c4d0e2499ab032",
		}},
		{[]string{"collective", "--system", "baseline-compopt", "--topo", "4x4x4", "--op", "all-gather", "--size", "4MiB", "--format", "json"}, []int64{84079}, map[string]string{
			"stdout": "40c7a997524f93bd8d35155cdd32ab1d7370b5ca39c8c410f1660491fb311465",
		}},
		{[]string{"collective", "--system", "ace", "--topo", "4x4x4", "--op", "all-gather", "--size", "4MiB", "--format", "json"}, []int64{45631}, map[string]string{
			"stdout": "8458c17cebd6eee88a70d50b8a1f20e6e14f9a8753b4a362c82f3fa66de240d3",
		}},
		{[]string{"collective", "--system", "ideal", "--topo", "4x4x4", "--op", "all-gather", "--size", "4MiB", "--format", "json"}, []int64{24704}, map[string]string{
			"stdout": "11645829e8773bab59b86a961332a7916388743d05a7ca8910e90508556d5289",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--unidirectional", "--check-data", "--format", "json"}, []int64{22879}, map[string]string{
			"stdout": "e8ce81022f0e54dede6960eadd1be91a53326f6e791c14420fbc91643a2459b1",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ideal", "--unidirectional", "--format", "json"}, []int64{19169}, map[string]string{
			"stdout": "96d707b9f6f4d2db6d65fc3c0bd45e05b7eff3327146c0bc643ad73e94bed5cf",
		}},
		{[]string{"collective", "--topo", "4x4x2", "--size", "1MiB", "--system", "baseline-compopt", "--unidirectional", "--op", "all-gather", "--format", "json"}, []int64{59976}, map[string]string{
			"stdout": "5000cd1fb6f5395aab70477ab722bf96b9aa2d4c5a6ec3fad0d30b3467f2fcb4",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--phases", "rs:local:ring,ar:vertical:halving-doubling,ar:horizontal:ring,ag:local:ring", "--check-data", "--format", "json"}, []int64{22178}, map[string]string{
			"stdout": "82d7a1b0f5e1a7324a2a9b2f0a181539e8ad753b54f8889e5939cfb9a3465dbc",
		}},
		{[]string{"collective", "--topo", "4x4x2", "--size", "1MiB", "--system", "ideal", "--phases", "rs:local:ring,rs:vertical:halving-doubling,ar:horizontal:ring,ag:vertical:halving-doubling,ag:local:ring", "--format", "json"}, []int64{36970}, map[string]string{
			"stdout": "343200ac6d50b2afbc2f33eaaf797baecf807230619579cbc5aae4fb14bf15a5",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "baseline", "--comm-sms", "4", "--comm-mem-bw", "300GB/s", "--format", "json"}, []int64{61881}, map[string]string{
			"stdout": "0a62be41c8baef3d6b60de5aba6f433a49fd58cd50106e5b0b9d665b0def5fb9",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "300KB", "--algorithm", "blueconnect", "--factors", "2x8", "--system", "ideal", "--check-data", "--format", "json"}, []int64{11521}, map[string]string{
			"stdout": "29c20f7d7b1f8c594968f8fc909eae14ebfb75718b39fbf802cba2b66fe010d7",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--chunk", "32KiB", "--message", "4KiB", "--sram", "1MiB", "--fsms", "8", "--format", "json"}, []int64{15403}, map[string]string{
			"stdout": "c688c86349bcb06b374307a0bbfc533ef95a84252ad08d55af4ae98c3d678fff",
		}},
		{[]string{"collective", "--topo", "2x3x4", "--size", "300KB", "--format", "json", "--trace-hash"}, []int64{12054}, map[string]string{
			"stdout": "6c982fb4a35fa6b9b6e1547c1d58d2664f144bea5f8d659d778a986c472441f8",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--format", "json", "--trace-hash"}, []int64{14755}, map[string]string{
			"stdout": "ccaf746536c4ab8ada89bedc937194b9103452745eb05712b5da92b07f8fa82c",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "baseline-commopt", "--op", "all-to-all", "--format", "json", "--trace-hash"}, []int64{43489}, map[string]string{
			"stdout": "4cd10397eecc5414783147c53a4a1786203cf29beb75439725fb1679b1d4c3ea",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "256KiB", "--system", "ideal", "--algorithm", "tree", "--format", "json", "--trace-hash"}, []int64{45794}, map[string]string{
			"stdout": "0b7ac963405314cdd640390f3afc4ba15cedb0824b198f6bcae96f3910489d11",
		}},
		{[]string{"collective", "--topo", "4x1x1", "--size", "4096", "--microcode", "../../testdata/badinput/uc0.txt", "--check-data", "--format", "json"}, []int64{570}, map[string]string{
			"stdout": "7daa4f8b3c1068347059d828fb6e576388737637524569079627297df8dfcf94",
		}},
		{[]string{"collective", "--topo", "4x1x1", "--size", "4096", "--microcode", "../../testdata/badinput/uc0.txt", "--system", "ace", "--check-data", "--format", "json"}, []int64{707}, map[string]string{
			"stdout": "53eb8ec3a061e58a3419ec88177ba14752228f82423df7fa7a0d62b1585b971d",
		}},
		{[]string{"collective", "--topo", "4x1x1", "--size", "4096", "--microcode", "../../testdata/badinput/uc0.txt", "--system", "baseline-commopt", "--check-data", "--format", "json"}, []int64{36443}, map[string]string{
			"stdout": "5d23290896e255a9825e6cd96fe47373449189a42e4ea0f2aa1b8f4397a49fa8",
		}},
		{[]string{"collective", "--topo", "4x1x1", "--size", "4096", "--microcode", "../../testdata/badinput/uc_dep.txt", "--check-data", "--format", "json"}, []int64{855}, map[string]string{
			"stdout": "67d33767792856a43f2b209950e2e773cca7155813b8d09191ed2e305a7c7815",
		}},
		{[]string{"collective", "--topo", "../../testdata/badinput/topo_torus.yaml", "--size", "64KiB", "--check-data", "--format", "json"}, []int64{4826}, map[string]string{
			"stdout": "769fe97a840fa27833dfcf9c012512295500c92ecca0cc403eef9c29e713f4d7",
		}},
		{[]string{"collective", "--topo", "../../testdata/badinput/topo_torus.yaml", "--size", "64KiB", "--algorithm", "halving-doubling", "--check-data", "--format", "json"}, []int64{3992}, map[string]string{
			"stdout": "ec05fa50d455c77834bbeb3a3d4646af60f6f7643bc58491430c6cf43018b04b",
		}},
		{[]string{"collective", "--topo", "../../testdata/badinput/topo_ring3.yaml", "--size", "64KiB", "--algorithm", "tree", "--check-data", "--format", "json"}, []int64{2919}, map[string]string{
			"stdout": "bd6ba77b3c1c81a6a0f0f0d21f25e0b9a3d415b8a70bdcd169d80bf5b5db2743",
		}},
		{[]string{"collective", "--topo", "../../testdata/badinput/topo_ring3.yaml", "--size", "64KiB", "--op", "all-to-all", "--check-data", "--format", "json"}, []int64{919}, map[string]string{
			"stdout": "76f5df9748925488c0e84bb5d8f501ac96003d10bacf461965be922b47c7feae",
		}},
	})
}

// What the other commands print and write: the microcode listing and its
// rows, topology and configuration dumps, a small sweep, each figure of
// acemu reproduce on small sizes, and the files of --timeseries,
// --per-layer, --trace, --pcap and --out.
func TestPinnedCommandOutputs(t *testing.T) {
	checkRunPins(t, []runPin{
		{[]string{"microcode", "--topo", "4x2x2", "--size", "1MiB", "--npu", "5"}, nil, map[string]string{
			"stdout": "bbcfbe1c9e4aefe97c0fc0138c5e5ed0475208a354512a91ce27c89f47736530",
		}},
		{[]string{"microcode", "--topo", "4x2x2", "--size", "1MiB", "--op", "all-to-all", "--format", "json"}, nil, map[string]string{
			"stdout": "a3e83a5c9ea1fd0ce886f2f93af28a4402c32cb9b7bccac28adfd0e169a3e70c",
		}},
		{[]string{"microcode", "--topo", "4x2x2", "--size", "256KiB", "--algorithm", "tree", "--npu", "3", "--format", "csv"}, nil, map[string]string{
			"stdout": "ff6a65396cc14b085f905fedc03fa477effc384e094d1e2c89e574c21abb3469",
		}},
		{[]string{"microcode", "--topo", "4x4x2", "--size", "1MiB", "--op", "reduce-scatter", "--unidirectional", "--npu", "9"}, nil, map[string]string{
			"stdout": "1f9b3f02b031ead94645a5a931f18694c3c7b2d9f5bdff44c3561b2eb56fc382",
		}},
		{[]string{"microcode", "--topo", "../../testdata/badinput/topo_ring3.yaml", "--size", "64KiB"}, nil, map[string]string{
			"stdout": "6b8631da60b0ec7e30d7923d382d921379a942bcaec08b6ce752820e77cf1281",
		}},
		{[]string{"topology", "dump", "--topo", "4x2x2"}, nil, map[string]string{
			"stdout": "a9c33e7f8d7299760f209101d8f5509e70449d014091ec12150783c270259365",
		}},
		{[]string{"topology", "dump", "--topo", "4x4x4", "--format", "json"}, nil, map[string]string{
			"stdout": "10eed49dd2d41db70fb64d9df7a173f183401a676adc5a1fa7d493a03bafae00",
		}},
		{[]string{"topology", "dump", "--topo", "4x8x4", "--format", "csv"}, nil, map[string]string{
			"stdout": "97d1258c491580d7cd512f10302841d4a14181591ddbb62e969a94b020531331",
		}},
		{[]string{"topology", "dump", "--topo", "../../testdata/badinput/topo_ring3.yaml", "--format", "table"}, nil, map[string]string{
			"stdout": "1875983e92d16ea29b70172298999d22f7f8cb27f0fb010f8556e8ff520d8b70",
		}},
		{[]string{"config", "dump"}, nil, map[string]string{
			"stdout": "4eb4a1c1603c93acb5ee7e37c1860c4eb216d81cb87d6b80ce3154db81de4cb7",
		}},
		{[]string{"sweep", "--workload", "dlrm,../../testdata/astrasim/DLRM_HybridParallel.txt", "--topo", "4x2x2,4x4x2", "--set", "ace.sram=1MiB,4MiB", "--format", "csv"}, nil, map[string]string{
			"stdout": "9615a4122404d713f3aa0bdeaa8fca2a6dfd693ccdab81d2e73c13596b957d4c",
		}},
		{[]string{"sweep", "--workload", "dlrm", "--topo", "4x2x2", "--set", "ace.fsms=8,16", "--systems", "ace,ideal", "--format", "json", "--out", "@/sweep"}, nil, map[string]string{
			"stdout":                   "d1abf08462e2f844b0d5941469a84042fc26c762b412cf858fb248e93119f0c6",
			"sweep/aggregate.csv":      "9e269c0a6ee5facb415b6d0b1f1f771e0d5319e6b35a6968be6b6f98ba9e13d2",
			"sweep/points/000000.json": "2cdb9db1f35ec221031abccf0845f0fd7a804b2b8e8b2ed04784c6d96cf3810c",
			"sweep/points/000001.json": "5d059381fdf0d6e9bf67717cdd6c6f220d2290c9afd4d929d4b73303953b2940",
			"sweep/result.csv":         "f99d73c51a19535fd85e91934487edb81d554dfabbec3c6fe1967adfc8367b44",
			"sweep/result.json":        "d1abf08462e2f844b0d5941469a84042fc26c762b412cf858fb248e93119f0c6",
			"sweep/result.txt":         "3d71f49aa252a687ca576a40d0a8a6db234dc77504b6051e6a366955237ef82d",
			"sweep/sweep.json":         "e436aa2c8e1af5fc013feb9b7d7b47761ded00a5fb1e3e3003b9a616ef55c4b0",
		}},
		{[]string{"reproduce", "fig4", "--topos", "4x2x1", "--size", "8MB", "--format", "json"}, nil, map[string]string{
			"stdout": "32ea5202384a3ad6f466a78182e198048152b286b7390c0e580a1ab6bb3a0c74",
		}},
		{[]string{"reproduce", "fig4", "--topos", "4x2x1", "--size", "8MB", "--memory-policy", "partition", "--format", "json"}, nil, map[string]string{
			"stdout": "d72e4f81d8e138fce5a8d7217dae7b09a5805373df0b776c243e76b763bca75c",
		}},
		{[]string{"reproduce", "fig5", "--topos", "4x2x2,4x4x4", "--size", "1MiB", "--mem", "64,450,900", "--format", "json"}, nil, map[string]string{
			"stdout": "eb93425c785e6ca2acdf0d6713a7239e98c29ed3204c4fa2a6db489d1f293056",
		}},
		{[]string{"reproduce", "fig6", "--topos", "4x2x2,4x4x4", "--size", "1MiB", "--sms", "1,4,16", "--format", "json"}, nil, map[string]string{
			"stdout": "a908baa916dde7a41efd6d88c11042005cf612f975e836f6bf4feb94715ea9d6",
		}},
		{[]string{"reproduce", "fig9a", "--topos", "4x2x2", "--workloads", "dlrm", "--sram", "1MiB,4MiB", "--fsms", "8,16", "--format", "json"}, nil, map[string]string{
			"stdout": "3953df7b4001eda33ef75e104ebc61c7acf74b41556120741c5ff5fdf23cc036",
		}},
		{[]string{"reproduce", "fig9b", "--topos", "4x2x2", "--workloads", "dlrm", "--format", "json"}, nil, map[string]string{
			"stdout": "2f98694b4d51084fbe1f18ddfcf5731fc99c59f0109f8f889761a5f300fdf375",
		}},
		{[]string{"reproduce", "fig11", "--topos", "4x2x2,4x4x2", "--workloads", "dlrm", "--format", "json", "--out", "@/fig11"}, nil, map[string]string{
			"fig11/fig11.svg":                "b0e420576ca1e89e16f5993520b66e04bb94dac755960a73daf44d919911785f",
			"fig11/platform.yaml":            "33d9bfec0908a6309a04edede627a94c761e28288adcd45add72494c179c20b4",
			"fig11/result.csv":               "1b61902285e4552f8f1147e4352f7a8aa46f4bae1de9d5ee2ea571e2f8fd63f3",
			"fig11/result.json":              "1bd2847039fa8e2610f58ddd89a3b7eae119d3b4a4ec27da4405a02cd7426f3a",
			"fig11/result.txt":               "faf197b1fcb7886e2876604e89fff6851601d80bb8c052a9fb25f0d3e3a302ab",
			"fig11/summary.csv":              "b7d6b4a0cd1b3d425f1a0f5022b7589dc9366578a0e58dbdc4fbe73494eb1a21",
			"fig11/sweep/points/000000.json": "5eb4c0d81b8287673e67cced81f7e7ffe46f56f74439ec35d250ac4420c88e59",
			"fig11/sweep/points/000001.json": "2710a2457b01831bde8785a570db09d5826f524e1030c82b5dcbcea20b293d04",
			"fig11/sweep/sweep.json":         "4583f26b1c61bba80f87bcbaeb5473e2e0c623ac90f6fd7f41c09696c08b30c6",
			"stdout":                         "1bd2847039fa8e2610f58ddd89a3b7eae119d3b4a4ec27da4405a02cd7426f3a",
		}},
		{[]string{"--workload", "dlrm", "--topo", "4x2x2", "--systems", "ace,baseline-commopt", "--iterations", "1", "--timeseries", "@/util.csv", "--per-layer", "@/layers.json", "--trace", "@/trace.json", "--pcap", "@/run.pcap", "--format", "json"}, []int64{76112, 142164}, map[string]string{
			"layers.json":                 "b4f301a9cf8c2eebf5ca5d297088c3fa83102c9812dc8d67a3357cda29222e4d",
			"run.ace.pcap":                "4580c3c54b4dde86349a157808069b82278a730822779994e5966df51b62b2c1",
			"run.baseline-commopt.pcap":   "c4133ed537db70cbe05a9caaad4f5165c7f33c768a62d127079f739c2f2ae1ef",
			"stdout":                      "9538e804941edd214eb2fe60d6c749b52f257f5247bdbce4ff92d62b7d5504ca",
			"trace.ace.json":              "1e476f4f74e42b1e1ac91bb11c2c189104725fd3099cf205351221ea91778510",
			"trace.baseline-commopt.json": "ad20656c5fcf41399383b58b8614d6d7bf28151113313a530372b7e954f2f9ce",
			"util.csv":                    "1498e3ae53adc2cbb23caab35fc1bc96e1eedcc86bdea92ee26f811ce48b824a",
		}},
		{[]string{"--workload", "dlrm", "--topo", "4x2x2", "--systems", "ace,ideal", "--iterations", "1", "--per-layer", "@/layers.csv", "--out", "@/out", "--format", "csv"}, nil, map[string]string{
			"layers.csv":          "c33d3eff1df67ec3ca83fa03b90a1f21fae05bbf6cd6011e7ba4998545711475",
			"out/breakdown.svg":   "a5872dba1bdc482a0598f16675532ea03ec72c6b10f8e4144034dec7d94d80be",
			"out/platform.yaml":   "efcffa4a4c05c14f2c75ddbefdf006d63a338b79d9e29479aec87057266c9aee",
			"out/result.csv":      "993ec444dc5c7e35b991ad73a1dc8fa2dd80d930313364d3b5d060d3e1b8c84a",
			"out/result.json":     "7a576a89a37cc5db14c7745a632dfc5b5e6435b6d6489bda29e8c84e797888d6",
			"out/result.txt":      "9190007e967be8c9778c5cfb19fc7b35fd5913db25acf953457458105895f73c",
			"out/utilization.svg": "5ca7899b8e1fc199321ebbc08941506957d89014c6b24559871d9d694112e4f2",
			"stdout":              "993ec444dc5c7e35b991ad73a1dc8fa2dd80d930313364d3b5d060d3e1b8c84a",
		}},
		{[]string{"--workload", "dlrm", "--topo", "4x2x1", "--systems", "ace", "--iterations", "1", "--full", "--trace", "@/trace.json", "--trace-npus", "0,5", "--pcap", "@/run.pcap", "--pcap-filter", "npu=5"}, nil, map[string]string{
			"run.pcap":   "380dc4e9ab5008af77beb9a4a77b2285e1b0bcdc8fc36f0d12fba3f566f24a62",
			"stdout":     "79ee61262e899ac07da2461956b8bd6469813cb75af2066bb35648a3e43843b6",
			"trace.json": "f947b2ac5a4f4430e77dd40f250b90eb9f50190ff6d59de2ab54019cf8f40568",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--trace", "@/trace.json", "--pcap", "@/run.pcap", "--format", "csv"}, nil, map[string]string{
			"run.pcap":   "5563de845f543365869b884b53aebf2610d67be917f7ec1f5f1eb40453d4a1d1",
			"stdout":     "013b1405fac04896ddc5ebe1a57a5ab4d513f061b174f2f3f24db76d267d5376",
			"trace.json": "0d6d6fb6eef295ad9f9261332629c199b2af8deb380465e4dfcbfa37f56283c5",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "baseline-commopt", "--full", "--trace", "@/trace.json", "--trace-npus", "all", "--pcap", "@/run.pcap", "--out", "@/out"}, nil, map[string]string{
			"out/platform.yaml": "33d9bfec0908a6309a04edede627a94c761e28288adcd45add72494c179c20b4",
			"out/result.csv":    "4f73230f2b69b7350b404a9be076c97a685332f51b0e138a443c2d5ad3305943",
			"out/result.json":   "44e4ecb62ee996b6cd3fedcaf45dbd60efb74a0aca557bb30fc0368e03348780",
			"out/result.txt":    "32a6b629471cd000427429eab54c904bc7255b4e98eb7567d0735223e56bcdfb",
			"run.pcap":          "9fc108cabd1abd985a489d02d159cd37ed4530bab7b8afa2b81f042f7df2b82b",
			"stdout":            "32a6b629471cd000427429eab54c904bc7255b4e98eb7567d0735223e56bcdfb",
			"trace.json":        "fbc1972f0817a13b3f7d631abba220f79687296df8fa8c4c7b01f2fd5ef0805d",
		}},
	})
}

// One NPU standing for all gives, through the commands, exactly what
// every NPU simulated gives: the report is the same but for the event
// count and the folded flag.
func TestFoldedEqualsFullOnTheCommandLine(t *testing.T) {
	for _, args := range [][]string{
		{"--workload", "../../testdata/astrasim/DLRM_HybridParallel.txt", "--topo", "4x2x1", "--memory-policy", "partition", "--priority", "fifo"},
		{"--workload", "dlrm", "--topo", "4x2x1", "--other-regime=false"},
		{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--op", "allreduce"},
		{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--op", "all-to-all"},
		{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--op", "reduce-scatter"},
		{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--op", "all-gather"},
		{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "baseline-commopt", "--op", "allreduce"},
		{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "baseline-commopt", "--op", "all-to-all"},
		{"collective", "--topo", "4x4x2", "--size", "1MiB", "--system", "ideal", "--op", "allreduce"},
		{"collective", "--topo", "4x4x2", "--size", "1MiB", "--system", "ideal", "--op", "all-to-all"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			// report is the run's JSON report, canonical and without
			// "folded", and what "folded" said.
			report := func(full bool) (string, any) {
				a := append(slices.Clone(args), "--format", "json")
				if full {
					a = append(a, "--full")
				}
				code, out, errOut := runCLI(a...)
				require.Equal(t, 0, code, errOut)
				doc, _ := reportSHA(t, out)
				folded := doc["folded"]
				delete(doc, "folded")
				b, err := json.Marshal(doc)
				require.NoError(t, err)
				return string(b), folded
			}
			folded, isFolded := report(false)
			full, isFull := report(true)
			require.Equal(t, true, isFolded, "one NPU stands for all")
			require.Equal(t, false, isFull)
			require.Equal(t, full, folded)
		})
	}
}
