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
			"out/platform.yaml":   "6f8ed50efc82ac93861d8655692c1d95452ad0c7cab2f6882c6e4e7aa7fd7221",
			"out/result.csv":      "17c6f2cce89fd76a4fbe08305e5132bd64f11efc4afccf0b0b5bd43e2120ad97",
			"out/result.json":     "1856eb75a9e1ad1704d002ec9c4d75844a08f6ac1d8cc8ad2cdc1838d62f2861",
			"out/result.txt":      "df0205e3dbb7cd885cc4479e0cfbf18a756e84cccc179f98dd7ce46c4fde7594",
			"out/utilization.svg": "429d5c62804fa9ffaa332d07e7bcf9c623dea2483ef5021d34893e556638876b",
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
		{"blueconnect", "allreduce", "ideal", 4395, "1c0842384ae19976280a1bfa5e9e7471fc4c700c07837a465fd50cfc34a68a98"},
		{"blueconnect", "allreduce", "ace", 6808, "8c4a98d6227579efa6a65475b6d41e39385bebf33d8a6b29c3be48a9444fa403"},
		{"blueconnect", "allreduce", "baseline-commopt", 57423, "6a58ff32c5720ad18f55a8f6f95644ac416b855661dcf60255f880cbeaa8a28c"},
		{"blueconnect", "reduce-scatter", "ideal", 2560, "efa600a8ed00df95eb0c102ab145fbf0872d7649de6f0317b0ee472e1f3d5b88"},
		{"blueconnect", "reduce-scatter", "ace", 4334, "873fb2ab9bdca3901c46e85fedfe373e183142c5bcb077d58f035f9bfa22a9b5"},
		{"blueconnect", "reduce-scatter", "baseline-commopt", 34476, "0a437ea4f9dcd96eed441dc9d3719cfcbf2a15e697f6cbeb763520b66a89098c"},
		{"blueconnect", "all-gather", "ideal", 2418, "368fdd794c6e686f0f22bc68efe4da556ebc0d85df5686495db10915768e81c4"},
		{"blueconnect", "all-gather", "ace", 4979, "e588af2cf820c0370ed59e3e015c7ee08f49add57d297693152e7530de8be849"},
		{"blueconnect", "all-gather", "baseline-commopt", 34049, "8be2faa0ec598aa00cc558ebb1d348d6b40f14e33dd556a7809c6ae25f16aa14"},
		{"direct", "all-to-all", "ideal", 7960, "2e8008ad7d16778de257292fcaa498d0fd31ae88513511d0ee6eb45964b57273"},
		{"direct", "all-to-all", "ace", 9287, "6e899e01530b964a89f6dc2f0d1417055c9ec5fc3755b49b69073372d890844d"},
		{"direct", "all-to-all", "baseline-commopt", 22657, "2307833cf479db26353f1f8d3d4fc3d4337794b6f9bf5b5e41fc3e5af688e2d6"},
		{"double-tree", "allreduce", "ideal", 25075, "b6fad0dc64df6a761d51f95c93ea48a5d7eabf06322481448376a12866864269"},
		{"double-tree", "allreduce", "ace", 24613, "60ee0913971ee5bb8e762be29f6ca46d4cd7098870c6bd6bae270a6f0cffb58b"},
		{"double-tree", "allreduce", "baseline-commopt", 67767, "15fd69719cdf0a54e26962ee099e41cb5453996539febfbfb92081715f610016"},
		{"halving-doubling", "allreduce", "ideal", 15337, "e8dd7299c63471d3d1c9e95df117ea5103a6c68e1e9cb23ce820cff5c3929933"},
		{"halving-doubling", "allreduce", "ace", 16524, "9273519fb647bac72345a4dcdac9d50a7aefc85cc571c9f6c02ae2e6d12847a0"},
		{"halving-doubling", "allreduce", "baseline-commopt", 55394, "458da522973674a8521eebae3e00058340c8a04df644f240aba8db3a4ca564cf"},
		{"halving-doubling", "reduce-scatter", "ideal", 8739, "2b196050c59b91078efbb0ada6a624cf6aef19d490fdf49d4b01cca4bcfa75c3"},
		{"halving-doubling", "reduce-scatter", "ace", 8960, "ff0eb31c7b294847b6c5c1e139f68d5ec6ebd8fd74094ec0996ee6f04d75788b"},
		{"halving-doubling", "reduce-scatter", "baseline-commopt", 36215, "32eaeeeb23de5ecf4063ebe3110fdece16a157bb1ffa1171e42aa6997c24524d"},
		{"halving-doubling", "all-gather", "ideal", 7565, "9178245225cc761aaccaeebdce77b843a5a845e1bb70ef3ab1b5bfc89a194b7d"},
		{"halving-doubling", "all-gather", "ace", 8907, "bc05c0d8cce3302a370f11dd6e628767bbb0e827e961e3b65262f37c33eb40cf"},
		{"halving-doubling", "all-gather", "baseline-commopt", 30973, "e788168eae32e7802d46d6b52b81855bf60d80424cd4d4bf162dfaaeb17e98e3"},
		{"hierarchical", "allreduce", "ideal", 4843, "e0734b3e31fb75d4f5cbf4af10e383616d64c92cd1065d749dda0eac69defc27"},
		{"hierarchical", "allreduce", "ace", 6925, "ea96184c4ce31af8c6d7d969b235cbf562dacee67220acebe17d8fe543188e09"},
		{"hierarchical", "allreduce", "baseline-commopt", 57657, "b6c5acdc305f9db8f80e513c17ffb6573d349e75d037e469153f1aa517c06c03"},
		{"hierarchical", "reduce-scatter", "ideal", 2560, "3c7c3f9be625b5bf0bbccb974b6aed173451e11e2295405add56c40886dab145"},
		{"hierarchical", "reduce-scatter", "ace", 4334, "80ca0e037759581946dcdb6f4490b32644c3efc4d98f45a8fa7efff872160066"},
		{"hierarchical", "reduce-scatter", "baseline-commopt", 34476, "d49c1bdab6b44343ecce7d39ac1c03f36dbe76980131b7428f1f9e0524c66900"},
		{"hierarchical", "all-gather", "ideal", 2418, "85179f3eff35ff94ebbae5df5772353b09371873025ddcdb5cf56a165d277e62"},
		{"hierarchical", "all-gather", "ace", 4979, "583c1114bca250cd2680d4a46798d3a3d7cf6394554923a811142480dcfa873a"},
		{"hierarchical", "all-gather", "baseline-commopt", 34049, "7093beea0d5f0949f3beac560faf7404e8ce31877749eb0429d8f786059db67e"},
		{"ring", "allreduce", "ideal", 14128, "f41bb649c3e09d09b7b429e2947b1cb3e5be376952c7cee15b3848c9cb9edf76"},
		{"ring", "allreduce", "ace", 16556, "a2910c15ca38efb69fac56f18c4b6b63f5d82e94fd141dad0482fc16091de416"},
		{"ring", "allreduce", "baseline-commopt", 147888, "79a48d269e079b4bcac3b562c9c4201aac767bbb40fc053a45e954188eb2b837"},
		{"ring", "reduce-scatter", "ideal", 7618, "aeb0d57d5d234dab34ae106245079e8400b2d7c4ad1c77b81a5e5ffca85897a4"},
		{"ring", "reduce-scatter", "ace", 8898, "fae0dcb09b83f1fe033e27c055b6d9438cb900ecb6a2d15edb7aa3d9ead5a962"},
		{"ring", "reduce-scatter", "baseline-commopt", 79366, "7437ffbea1d4c240e1709c7bf9c03c3bf33c97527e3943fecfb80edbd278ce9d"},
		{"ring", "all-gather", "ideal", 7618, "195639b55c476493557aa608558eaa8f1c6dc689e91496da2683fe0b94f3533a"},
		{"ring", "all-gather", "ace", 9764, "c6d43d531df5ec838a7550f5ab69284648e9efb872c8cdc21cd677cd267cbbe5"},
		{"ring", "all-gather", "baseline-commopt", 79304, "622fc657f476ffedbeb07c97ecda7c9c47ae869346b74ccbba014995c375959b"},
		{"tree", "allreduce", "ideal", 45794, "d316a781868d29047cfc318bb5970dd564821c5ff1feb3b0bf7a867755541569"},
		{"tree", "allreduce", "ace", 45191, "d4931a80132fae0b4b3060defe2009144b380266eb1b1b08d0ecd2a3df731200"},
		{"tree", "allreduce", "baseline-commopt", 85358, "a52a0433d0539f11300e2e8bdef659bfeff287fe46767e3085b59929963ea569"},
		{"tree-overlapped", "allreduce", "ideal", 45794, "fa21749bcbfeb4831030da42a0e1773cb419e525ea1052c963a96c5faeb0c473"},
		{"tree-overlapped", "allreduce", "ace", 45191, "ecea9ad3585b65cb2ba915ed13a7a79255720668da9725e7914cf2541431e903"},
		{"tree-overlapped", "allreduce", "baseline-commopt", 85366, "50c9ae3d3db706d0e35f6a2d5a816c1f7c35d4900d8b4b3c428bee07ee62ad6a"},
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
			"stdout": "7f953d887f951bee50219f6d8049c39c32c84f2dc757b9cff3827b637d7f9eeb",
		}},
		{[]string{"collective", "--system", "baseline-commopt", "--topo", "4x4x4", "--op", "reduce-scatter", "--size", "4MiB", "--format", "json"}, []int64{74319}, map[string]string{
			"stdout": "1098ed2616eee6be48cc1fd9775acb2e8b2c546998bc088b74dee6abacbd6a88",
		}},
		{[]string{"collective", "--system", "baseline-compopt", "--topo", "4x4x4", "--op", "reduce-scatter", "--size", "4MiB", "--format", "json"}, []int64{134791}, map[string]string{
			"stdout": "b4b0b24a2031832bcf8a10d8443642912bab4f28f75df578dabd950e0c73c9af",
		}},
		{[]string{"collective", "--system", "ace", "--topo", "4x4x4", "--op", "reduce-scatter", "--size", "4MiB", "--format", "json"}, []int64{44427}, map[string]string{
			"stdout": "048d274d4f41b5cb947f9fc77108be99a1af4707613b7bda484347fdb17b7830",
		}},
		{[]string{"collective", "--system", "ideal", "--topo", "4x4x4", "--op", "reduce-scatter", "--size", "4MiB", "--format", "json"}, []int64{23853}, map[string]string{
			"stdout": "44d43d7244946d617c1e7d150d4d47f27cf987e94d74670c620c85efdf06a4a1",
		}},
		{[]string{"collective", "--system", "baseline-nooverlap", "--topo", "4x4x4", "--op", "all-gather", "--size", "4MiB", "--format", "json"}, []int64{69897}, map[string]string{
			"stdout": "d86633fada0a6b518b78d264d92fdb8b9b5972470f9a863f7d9d6e19d23f8c9f",
		}},
		{[]string{"collective", "--system", "baseline-commopt", "--topo", "4x4x4", "--op", "all-gather", "--size", "4MiB", "--format", "json"}, []int64{69897}, map[string]string{
			"stdout": "27097f3261e76210e648e65a22682e7852e238fad7821304dbc3c779f46122e0",
		}},
		{[]string{"collective", "--system", "baseline-compopt", "--topo", "4x4x4", "--op", "all-gather", "--size", "4MiB", "--format", "json"}, []int64{84079}, map[string]string{
			"stdout": "6850ff0adde68703f2d15f83bededab6c8a598a2e0caa3c82e20fe669475fbb2",
		}},
		{[]string{"collective", "--system", "ace", "--topo", "4x4x4", "--op", "all-gather", "--size", "4MiB", "--format", "json"}, []int64{45631}, map[string]string{
			"stdout": "a76a9f53bd55ce19d504002b74e2a342ba063b3c9876a823d8ea5c43be82dcae",
		}},
		{[]string{"collective", "--system", "ideal", "--topo", "4x4x4", "--op", "all-gather", "--size", "4MiB", "--format", "json"}, []int64{24704}, map[string]string{
			"stdout": "2bd752323f51d7ccf37492637ae151bb7a58b68116d158cabf3884180910152d",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--unidirectional", "--check-data", "--format", "json"}, []int64{22879}, map[string]string{
			"stdout": "32705545e2d799d68a0af97c841680c4c7f107ea1701e872aa9e568fa5554d67",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ideal", "--unidirectional", "--format", "json"}, []int64{19169}, map[string]string{
			"stdout": "dd7d43a7672fd7d40a857de66b7766a1d79c66322f95938f1868b5745107252d",
		}},
		{[]string{"collective", "--topo", "4x4x2", "--size", "1MiB", "--system", "baseline-compopt", "--unidirectional", "--op", "all-gather", "--format", "json"}, []int64{59976}, map[string]string{
			"stdout": "d17043c362cc3b94b8e40d17b55cca24a7fb14a2a12b6f226b7014dd3934a28c",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--phases", "rs:local:ring,ar:vertical:halving-doubling,ar:horizontal:ring,ag:local:ring", "--check-data", "--format", "json"}, []int64{22178}, map[string]string{
			"stdout": "80bb9d30962e2cd016da5969e841c8c17528461b5e5774960d924c044515334b",
		}},
		{[]string{"collective", "--topo", "4x4x2", "--size", "1MiB", "--system", "ideal", "--phases", "rs:local:ring,rs:vertical:halving-doubling,ar:horizontal:ring,ag:vertical:halving-doubling,ag:local:ring", "--format", "json"}, []int64{36970}, map[string]string{
			"stdout": "6ec35feded45ae4e6c2e1aa0ef0a49c80ef0968d226f31ef8f2a78aef7b98b0e",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "baseline", "--comm-sms", "4", "--comm-mem-bw", "300GB/s", "--format", "json"}, []int64{61881}, map[string]string{
			"stdout": "c58a23b99219d1c17a8adca66c560cbfc1411b5dc19a68cf67bf4193f360c05f",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "300KB", "--algorithm", "blueconnect", "--factors", "2x8", "--system", "ideal", "--check-data", "--format", "json"}, []int64{11521}, map[string]string{
			"stdout": "6ec1b835f0271a37eaad66c8e1192db083e04290997f6df31ca6edf7ca3bb0a8",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--chunk", "32KiB", "--message", "4KiB", "--sram", "1MiB", "--fsms", "8", "--format", "json"}, []int64{15403}, map[string]string{
			"stdout": "2cc41b210d9d54313106e839417e1dfa08dab81b8e3127b69cdbc57b11b7a2f4",
		}},
		{[]string{"collective", "--topo", "2x3x4", "--size", "300KB", "--format", "json", "--trace-hash"}, []int64{12054}, map[string]string{
			"stdout": "4fb2e9fde24b10d72ea995827d6b430e6afaef1b93130c292cdaccb15c182205",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--format", "json", "--trace-hash"}, []int64{14755}, map[string]string{
			"stdout": "8438b2e296e84ed9dbedad1b986d3b3c5c8802aa2d7253de55b57d45faca252d",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "baseline-commopt", "--op", "all-to-all", "--format", "json", "--trace-hash"}, []int64{43489}, map[string]string{
			"stdout": "dab41a1bc174af7fb26823a2b75536db0ccd667d840c47332e29afb4df8166c3",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "256KiB", "--system", "ideal", "--algorithm", "tree", "--format", "json", "--trace-hash"}, []int64{45794}, map[string]string{
			"stdout": "d1660edb730e62828e0801b2fc216cc121440d22d64d28e2c5198572f295d416",
		}},
		{[]string{"collective", "--topo", "4x1x1", "--size", "4096", "--microcode", "../../testdata/badinput/uc0.txt", "--check-data", "--format", "json"}, []int64{570}, map[string]string{
			"stdout": "4986b069315ba6963b823764fa7747797e6b3169534c1a3f15f2dd1dbb452845",
		}},
		{[]string{"collective", "--topo", "4x1x1", "--size", "4096", "--microcode", "../../testdata/badinput/uc0.txt", "--system", "ace", "--check-data", "--format", "json"}, []int64{707}, map[string]string{
			"stdout": "7d5654797558c4d843db9667458828a48231a7e72c83796a5219a9c53c063c8f",
		}},
		{[]string{"collective", "--topo", "4x1x1", "--size", "4096", "--microcode", "../../testdata/badinput/uc0.txt", "--system", "baseline-commopt", "--check-data", "--format", "json"}, []int64{36443}, map[string]string{
			"stdout": "da8278c9ed3d760d6cfff25f5bee49674ec27b19390c4e75a49bd6dfe0b374f6",
		}},
		{[]string{"collective", "--topo", "4x1x1", "--size", "4096", "--microcode", "../../testdata/badinput/uc_dep.txt", "--check-data", "--format", "json"}, []int64{855}, map[string]string{
			"stdout": "58c8f61898ab57fc31a86e0b76a5d74a0c868345f75cb5989c5fd2b715444ba8",
		}},
		{[]string{"collective", "--topo", "../../testdata/badinput/topo_torus.yaml", "--size", "64KiB", "--check-data", "--format", "json"}, []int64{4826}, map[string]string{
			"stdout": "d7e0a9232f847cfda6c01b22de36a5197f8c0ecc1403490b270fb87855d4ce49",
		}},
		{[]string{"collective", "--topo", "../../testdata/badinput/topo_torus.yaml", "--size", "64KiB", "--algorithm", "halving-doubling", "--check-data", "--format", "json"}, []int64{3992}, map[string]string{
			"stdout": "21f0730a7ed6ee846beaacdc848d24fe0f30eb295f07940d31c54c9693f458b5",
		}},
		{[]string{"collective", "--topo", "../../testdata/badinput/topo_ring3.yaml", "--size", "64KiB", "--algorithm", "tree", "--check-data", "--format", "json"}, []int64{2919}, map[string]string{
			"stdout": "e94b718df3bc6aa7cc5c7337410aa69757372d2de652039c7a0cfcd34f684d0c",
		}},
		{[]string{"collective", "--topo", "../../testdata/badinput/topo_ring3.yaml", "--size", "64KiB", "--op", "all-to-all", "--check-data", "--format", "json"}, []int64{919}, map[string]string{
			"stdout": "bbc1226c8e8c761be33e73f6743eda8ed7a65a5905e965d9096759d1c7476cde",
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
			"stdout": "6f8ed50efc82ac93861d8655692c1d95452ad0c7cab2f6882c6e4e7aa7fd7221",
		}},
		{[]string{"sweep", "--workload", "dlrm,../../testdata/astrasim/DLRM_HybridParallel.txt", "--topo", "4x2x2,4x4x2", "--set", "ace.sram=1MiB,4MiB", "--format", "csv"}, nil, map[string]string{
			"stdout": "895de1d420c840a5847b938b5a4bed9715783d11bc260cc8c1d9806520b0c5b9",
		}},
		{[]string{"sweep", "--workload", "dlrm", "--topo", "4x2x2", "--set", "ace.fsms=8,16", "--systems", "ace,ideal", "--format", "json", "--out", "@/sweep"}, nil, map[string]string{
			"stdout":                   "e9e1c5fb1aa1e569e625039f87d291247e180eabec3c409cf9bd186f6a9586af",
			"sweep/aggregate.csv":      "fd58f44ff3980bf194157eed5f1636cf87120ec82e852da33bf5f11b4f3c61b5",
			"sweep/points/000000.json": "28eb1c098f8a7fc7ac23325a3d75abaae4f1e2750edbee76f53ce13dcc98a0b2",
			"sweep/points/000001.json": "e666ad907a5f4f9a2998391dd7a2122dc702b2955a69605cfae2aa1f79787b96",
			"sweep/result.csv":         "41f5c56851a90ab85cd7415263373c310a90506df4c4928d64cfe255296ff62c",
			"sweep/result.json":        "e9e1c5fb1aa1e569e625039f87d291247e180eabec3c409cf9bd186f6a9586af",
			"sweep/result.txt":         "5746f002e702664e6b5b72d08d5eb41bdd3d5a70974a415ab959b168e8de3f65",
			"sweep/sweep.json":         "22db8541a4d9c8206329b9c161459a82a09d4d373ad5b7d9c02731552844e0bb",
		}},
		{[]string{"reproduce", "fig4", "--topos", "4x2x1", "--size", "8MB", "--format", "json"}, nil, map[string]string{
			"stdout": "e7478a9b37cd1adb4ad82d8b31170a45e111dd75a33bc0fcf8754aa2a22d03c2",
		}},
		{[]string{"reproduce", "fig4", "--topos", "4x2x1", "--size", "8MB", "--memory-policy", "partition", "--format", "json"}, nil, map[string]string{
			"stdout": "1652fe5835788c506eca7843f14a9af6ff079a5ea94f9046e0fb44585d1b0dc8",
		}},
		{[]string{"reproduce", "fig5", "--topos", "4x2x2,4x4x4", "--size", "1MiB", "--mem", "64,450,900", "--format", "json"}, nil, map[string]string{
			"stdout": "6876f9be4dfa1f71ec4a15c2694fbd10a2d2a4a4bc2128534c29b4b08f5c60de",
		}},
		{[]string{"reproduce", "fig6", "--topos", "4x2x2,4x4x4", "--size", "1MiB", "--sms", "1,4,16", "--format", "json"}, nil, map[string]string{
			"stdout": "156897530db3940e3a54b1cce0ae46c4d4c88802e7bea400d7ed582e6f0d365f",
		}},
		{[]string{"reproduce", "fig9a", "--topos", "4x2x2", "--workloads", "dlrm", "--sram", "1MiB,4MiB", "--fsms", "8,16", "--format", "json"}, nil, map[string]string{
			"stdout": "45a613a8ab736a5573348d9969d592dfcfe92bdea6b86f373c15592d0055411e",
		}},
		{[]string{"reproduce", "fig9b", "--topos", "4x2x2", "--workloads", "dlrm", "--format", "json"}, nil, map[string]string{
			"stdout": "a1574bbd3ed7c212f7f91be7aedf59f25b4f75009fd4a37a76520a9f18076d32",
		}},
		{[]string{"reproduce", "fig11", "--topos", "4x2x2,4x4x2", "--workloads", "dlrm", "--format", "json", "--out", "@/fig11"}, nil, map[string]string{
			"fig11/fig11.svg":                "dbf26a3866bc9500b5f8fd1ba6cd71615ec7ec7d87ad1a8080809fb9b5cdf92d",
			"fig11/platform.yaml":            "6f8ed50efc82ac93861d8655692c1d95452ad0c7cab2f6882c6e4e7aa7fd7221",
			"fig11/result.csv":               "cab94faa350490c08eaed0e86b3a45d253c677f5aca3a0969a8170d6a987cf5e",
			"fig11/result.json":              "58840f1917a6dab0a95d038f8b5bc9866dd1028c42933d013993cb2ca63859bc",
			"fig11/result.txt":               "b1795d1b1190744e9a4f5fe07c20699e93d6de4450435cd95237cbe1125f02a8",
			"fig11/summary.csv":              "779411f79900152c9004b69442ce60ad3da2ae43feef27c92989081a607ddcb5",
			"fig11/sweep/points/000000.json": "65c802120db456f36dbe7f3653f423a329271a107127a7f1eda2c38c7de5b6a0",
			"fig11/sweep/points/000001.json": "e25834b73c1f5bb81c4b1fefa3048aa5461f750844ba8ae62dd26e9504000975",
			"fig11/sweep/sweep.json":         "2e182dd92c4dd7f9cf79575f319a5d5d86b5c66172666d5415c8a7a6975e5ceb",
			"stdout":                         "58840f1917a6dab0a95d038f8b5bc9866dd1028c42933d013993cb2ca63859bc",
		}},
		{[]string{"--workload", "dlrm", "--topo", "4x2x2", "--systems", "ace,baseline-commopt", "--iterations", "1", "--timeseries", "@/util.csv", "--per-layer", "@/layers.json", "--trace", "@/trace.json", "--pcap", "@/run.pcap", "--format", "json"}, []int64{76112, 142164}, map[string]string{
			"layers.json":                 "b4f301a9cf8c2eebf5ca5d297088c3fa83102c9812dc8d67a3357cda29222e4d",
			"run.ace.pcap":                "4580c3c54b4dde86349a157808069b82278a730822779994e5966df51b62b2c1",
			"run.baseline-commopt.pcap":   "c4133ed537db70cbe05a9caaad4f5165c7f33c768a62d127079f739c2f2ae1ef",
			"stdout":                      "8e7a17a1d84f1f8c7e68cf22a7b6789f0023b8229ce8621480163f4428979448",
			"trace.ace.json":              "1e476f4f74e42b1e1ac91bb11c2c189104725fd3099cf205351221ea91778510",
			"trace.baseline-commopt.json": "ad20656c5fcf41399383b58b8614d6d7bf28151113313a530372b7e954f2f9ce",
			"util.csv":                    "8dbd67b79e0a55755b2213938583371883719bab58c40cd633d822c75a506daa",
		}},
		{[]string{"--workload", "dlrm", "--topo", "4x2x2", "--systems", "ace,ideal", "--iterations", "1", "--per-layer", "@/layers.csv", "--out", "@/out", "--format", "csv"}, nil, map[string]string{
			"layers.csv":          "c33d3eff1df67ec3ca83fa03b90a1f21fae05bbf6cd6011e7ba4998545711475",
			"out/breakdown.svg":   "c45e04763d10056e0f69736950834c00de8a240ca08380a16fcc2c2c0640f155",
			"out/platform.yaml":   "6d6a4584f44ae7d3b1c0e4124f5a785420a1e5332208db31685cf938159121ce",
			"out/result.csv":      "2d6310bd9e1e7fba4067d3cc11eb88ebea24bb319d2bb8994150b9ec900073bb",
			"out/result.json":     "e4df8db627a1e3135fc93e3a23c39f4bfc5623c2017ae95b7530b0d1cddb3413",
			"out/result.txt":      "25f559f98268fe57f1de73114146cf250459c4842fc5fad3326860ba573bbfad",
			"out/utilization.svg": "243ccbf8d7f7cb88d28cb8711d0aee9475d96ac6a8a92e29206fdb6fe634f6e8",
			"stdout":              "2d6310bd9e1e7fba4067d3cc11eb88ebea24bb319d2bb8994150b9ec900073bb",
		}},
		{[]string{"--workload", "dlrm", "--topo", "4x2x1", "--systems", "ace", "--iterations", "1", "--full", "--trace", "@/trace.json", "--trace-npus", "0,5", "--pcap", "@/run.pcap", "--pcap-filter", "npu=5"}, nil, map[string]string{
			"run.pcap":   "380dc4e9ab5008af77beb9a4a77b2285e1b0bcdc8fc36f0d12fba3f566f24a62",
			"stdout":     "9bfe4c4a6b5007d47f6e3662bfc1bc9c00a56e6f174a5ede8c437039d30a6ff1",
			"trace.json": "f947b2ac5a4f4430e77dd40f250b90eb9f50190ff6d59de2ab54019cf8f40568",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace", "--trace", "@/trace.json", "--pcap", "@/run.pcap", "--format", "csv"}, nil, map[string]string{
			"run.pcap":   "5563de845f543365869b884b53aebf2610d67be917f7ec1f5f1eb40453d4a1d1",
			"stdout":     "e4d74fcc44d932f6e38c2d99c0bac9cd11f7a0d973b443b8483afd24e851c04a",
			"trace.json": "0d6d6fb6eef295ad9f9261332629c199b2af8deb380465e4dfcbfa37f56283c5",
		}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "baseline-commopt", "--full", "--trace", "@/trace.json", "--trace-npus", "all", "--pcap", "@/run.pcap", "--out", "@/out"}, nil, map[string]string{
			"out/platform.yaml": "6f8ed50efc82ac93861d8655692c1d95452ad0c7cab2f6882c6e4e7aa7fd7221",
			"out/result.csv":    "90f38484a9ff5b86d8384e98e2dee8afcaafa06603065cd6b95cfcad2a4c7b10",
			"out/result.json":   "0b522c805801f7b48c462f4aa3861e22a7a60002a7256c6f76526633230c242b",
			"out/result.txt":    "378d022bcf55ebaddefa83a69f83dbe218c2a834c58e95072f18eb233a3338dc",
			"run.pcap":          "9fc108cabd1abd985a489d02d159cd37ed4530bab7b8afa2b81f042f7df2b82b",
			"stdout":            "378d022bcf55ebaddefa83a69f83dbe218c2a834c58e95072f18eb233a3338dc",
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
