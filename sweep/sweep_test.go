package sweep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/platform"
)

// small is a sweep of 2 × 2 parameter combinations on one small workload
// and two small tori: 8 points, a second or so.
func small(t *testing.T) *Spec {
	t.Helper()
	s, err := New(Request{Base: platform.Default(), Sets: []string{"ace.fsms=8,16", "ace.sram=2MiB..4MiB:x2", "training.iterations=1"},
		Workloads: []string{"dlrm"}, Topologies: []string{"4x2x1", "2x2x2"}, Systems: []string{"ace", "ideal"}})
	require.NoError(t, err)
	return s
}

func TestAxesListsAndRanges(t *testing.T) {
	for _, c := range []struct {
		set  string
		want []string
	}{
		{"ace.fsms=4..20:4", []string{"4", "8", "12", "16", "20"}},
		{"ace.fsms=4..18:4", []string{"4", "8", "12", "16"}}, // stops at most at TO
		{"ace.sram=1MiB..8MiB:x2", []string{"1MiB", "2MiB", "4MiB", "8MiB"}},
		{"ace.sram=512KiB..1MiB:256KiB", []string{"512KiB", "768KiB", "1MiB"}},
		{"ace.sram=4096KiB,1MiB", []string{"4MiB", "1MiB"}}, // canonical form, order kept
		{"ace.mem_bw=64GB/s..128GB/s:32GB/s", []string{"64GB/s", "96GB/s", "128GB/s"}},
		{"npu.compute_speed=1..8:x2", []string{"1", "2", "4", "8"}},
		{"npu.compute_speed=0.5,3/2", []string{"0.5", "1.5"}},
		{"ace.partition=little,paper", []string{"little", "paper"}},
	} {
		t.Run(c.set, func(t *testing.T) {
			s, err := New(Request{Base: platform.Default(), Sets: []string{c.set}, Workloads: []string{"dlrm"},
				Topologies: []string{"4x2x1"}, Systems: []string{"ace"}, Reference: refFor(c.set, c.want)})
			require.NoError(t, err)
			require.Len(t, s.Axes, 1)
			require.Equal(t, c.want, s.Axes[0].Values)
		})
	}
}

// refFor names the axis's first value as the reference when the default
// is not on it.
func refFor(set string, vals []string) []string {
	key, _, _ := strings.Cut(set, "=")
	d := platform.Default()
	q, _ := platform.Lookup(key)
	if slices.Contains(vals, q.Get(&d)) {
		return nil
	}
	return []string{key + "=" + vals[0]}
}

func TestBadSweepsAreRefused(t *testing.T) {
	ok := Request{Base: platform.Default(), Workloads: []string{"dlrm"}, Topologies: []string{"4x2x1"}, Systems: []string{"ace"}}
	for _, c := range []struct {
		name string
		edit func(r *Request)
		want string
	}{
		{"unknown parameter", func(r *Request) { r.Sets = []string{"ace.sramm=1MiB,2MiB"} }, `unknown parameter "ace.sramm"`},
		{"bad unit", func(r *Request) { r.Sets = []string{"ace.sram=1MiB,2XB"} }, `"2XB"`},
		{"empty axis value", func(r *Request) { r.Sets = []string{"ace.sram=1MiB,,4MiB"} }, "an empty value"},
		{"empty axis", func(r *Request) { r.Sets = []string{"ace.fsms=,"} }, "an empty value"},
		{"no =", func(r *Request) { r.Sets = []string{"ace.fsms"} }, "give KEY=VALUE"},
		{"given twice", func(r *Request) { r.Sets = []string{"ace.fsms=4,8", "ace.fsms=16"} }, "given twice"},
		{"repeated value", func(r *Request) { r.Sets = []string{"ace.sram=4MiB,4096KiB"} }, "given twice"},
		// A setting from a sweep file is named by its line, not as --set.
		{"file setting out of range", func(r *Request) {
			r.Sets, r.Names.SetsFrom = []string{"ace.fsms=0"}, []string{"--file s.yaml:2: set"}
		}, `--file s.yaml:2: set: ace.fsms = "0": out of range`},
		{"file axis out of range", func(r *Request) {
			r.Sets, r.Names.SetsFrom = []string{"ace.fsms=4,0"}, []string{"--file s.yaml:2: set"}
		}, `--file s.yaml:2: set ace.fsms=4,0: ace.fsms = "0": out of range`},
		{"file key unknown", func(r *Request) {
			r.Sets, r.Names.SetsFrom = []string{"ace.fsmz=4"}, []string{"--file s.yaml:3: set"}
		}, `--file s.yaml:3: set ace.fsmz: unknown parameter`},
		{"in the file and on the command line", func(r *Request) {
			r.Sets, r.Names.SetsFrom = []string{"ace.fsms=4", "ace.fsms=8"}, []string{"--file s.yaml:2: set"}
		}, "--set ace.fsms: given twice (--file s.yaml:2: set and --set)"},
		{"out of range", func(r *Request) { r.Sets = []string{"ace.fsms=2,16"} }, "out of range"},
		{"fixed parameter", func(r *Request) { r.Sets = []string{"npu.sms=40,80"} }, "fixed at 80"},
		{"range backwards", func(r *Request) { r.Sets = []string{"ace.fsms=20..4:4"} }, "starts above its end"},
		{"range zero step", func(r *Request) { r.Sets = []string{"ace.fsms=4..20:0"} }, "positive step"},
		{"range factor 1", func(r *Request) { r.Sets = []string{"ace.sram=1MiB..8MiB:x1"} }, "above 1"},
		{"range no step", func(r *Request) { r.Sets = []string{"ace.fsms=4..20"} }, "FROM..TO:STEP"},
		{"range of names", func(r *Request) { r.Sets = []string{"ace.partition=a..b:1"} }, "takes names"},
		{"range too long", func(r *Request) { r.Sets = []string{"ace.sram=64KiB..1GiB:1B"} }, "more than 10000 values"},
		{"range of growing fractions", func(r *Request) { r.Sets = []string{"npu.compute_speed=0.01..1000:x1.0001"} }, "no longer a short exact number"},
		{"range of fractions for a count", func(r *Request) { r.Sets = []string{"ace.fsms=4..6:0.5"} }, "not a whole number"},
		{"grid too large", func(r *Request) {
			r.Sets = []string{"ace.fsms=3..1000:1", "links.tx_buffer=1..1000:1"}
		}, "more than 100000 points"},
		{"reference off the axis", func(r *Request) { r.Sets = []string{"ace.fsms=4,8"} }, "not on the axis"},
		{"reference not an axis", func(r *Request) { r.Sets = []string{"ace.fsms=4,16"}; r.Reference = []string{"ace.sram=4MiB"} }, "not an axis"},
		{"empty workload list", func(r *Request) { r.Workloads = nil }, "--workload: empty"},
		{"empty workload entry", func(r *Request) { r.Workloads = []string{"dlrm", ""} }, "an empty entry"},
		{"unknown workload", func(r *Request) { r.Workloads = []string{"bert"} }, `"bert"`},
		{"bad topology", func(r *Request) { r.Topologies = []string{"4x2"} }, "--topo"},
		{"repeated topology", func(r *Request) { r.Topologies = []string{"4x2x1", "4x2x1"} }, "given twice"},
		{"unknown system", func(r *Request) { r.Systems = []string{"tpu"} }, `unknown system "tpu"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := ok
			c.edit(&r)
			_, err := New(r)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

func TestParseShard(t *testing.T) {
	sh, err := ParseShard("2/4")
	require.NoError(t, err)
	require.Equal(t, Shard{2, 4}, sh)
	for _, bad := range []string{"3/2", "2/2", "-1/2", "1/0", "1", "a/b", "1/2/3", ""} {
		_, err := ParseShard(bad)
		require.Error(t, err, bad)
	}
}

// Points are numbered with the last axis fastest: parameters in order,
// then workloads, then topologies.
func TestPointOrder(t *testing.T) {
	s := small(t)
	require.Equal(t, 8, s.Len())
	want := [][3]string{{"8", "2MiB", "4x2x1"}, {"8", "2MiB", "2x2x2"}, {"8", "4MiB", "4x2x1"}, {"8", "4MiB", "2x2x2"},
		{"16", "2MiB", "4x2x1"}, {"16", "2MiB", "2x2x2"}, {"16", "4MiB", "4x2x1"}, {"16", "4MiB", "2x2x2"}}
	for i, w := range want {
		p := s.Point(i)
		require.Equal(t, [3]string{p.Values[0], p.Values[1], p.Topology}, w, "point %d", i)
	}
}

// The shards of a sweep, run into their own directories and merged, give
// exactly the points one run gives; the report, and so every output, is
// built from them.
func TestMergedShardsAreTheWholeSweep(t *testing.T) {
	s := small(t)
	whole, err := Run(context.Background(), s, Options{Workers: 2})
	require.NoError(t, err)
	dir := t.TempDir()
	var dirs []string
	for i := 0; i < 3; i++ {
		d := filepath.Join(dir, "shard", string(rune('0'+i)))
		oc, err := Run(context.Background(), s, Options{Shard: Shard{i, 3}, Dir: d, Workers: 1})
		require.NoError(t, err)
		require.Equal(t, (8-i+2)/3, oc.Ran)
		dirs = append(dirs, d)
	}
	m, err := Merge(dirs)
	require.NoError(t, err)
	require.Equal(t, s.encode(), m.Spec.encode())
	require.Equal(t, whole.Points, m.Points)
	_, err = Merge(dirs[:2])
	require.ErrorContains(t, err, "2 of 8 points are missing (2, 5)") // shard 2/3's
	_, err = Merge([]string{dirs[0], dirs[0]})
	require.ErrorContains(t, err, "both hold shard 0/3")

	// Another sweep in the same directory is refused; so is another shard.
	other, err := New(Request{Base: platform.Default(), Sets: []string{"ace.fsms=8,16"}, Workloads: []string{"dlrm"},
		Topologies: []string{"4x2x1"}, Systems: []string{"ace"}})
	require.NoError(t, err)
	_, err = Run(context.Background(), other, Options{Dir: dirs[0]})
	require.ErrorContains(t, err, "holds another sweep")
	_, err = Run(context.Background(), s, Options{Dir: dirs[0], Shard: Shard{1, 3}})
	require.ErrorContains(t, err, "holds shard 0/3")
}

// A sweep stopped after some points (here by cancelling it) and started
// again runs only the points it had not finished; a temporary file a
// stopped write left behind is not taken for a point.
func TestARestartedSweepRunsOnlyTheMissingPoints(t *testing.T) {
	s := small(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	first := map[int]bool{}
	oc, err := Run(ctx, s, Options{Dir: dir, Workers: 1, Ran: func(i int) {
		mu.Lock()
		defer mu.Unlock()
		first[i] = true
		if len(first) == 3 {
			cancel() // no point after the third starts
		}
	}})
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, oc.Points, 3)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "points", "000007.json.tmp"), []byte("{trunc"), 0o644))

	var again []int
	oc, err = Run(context.Background(), s, Options{Dir: dir, Workers: 1, Ran: func(i int) { again = append(again, i) }})
	require.NoError(t, err)
	require.Equal(t, []int{3, 4, 5, 6, 7}, again)
	require.Equal(t, 5, oc.Ran)
	require.Equal(t, 3, oc.Kept)
	whole, err := Run(context.Background(), s, Options{Workers: 2})
	require.NoError(t, err)
	require.Equal(t, whole.Points, oc.Points)
	_, err = os.Stat(filepath.Join(dir, "points", "000007.json.tmp"))
	require.True(t, os.IsNotExist(err))

	// A point file of no record version (as acemu wrote before points
	// had a SHA-256) is refused, naming it.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "points", "000001.json"), []byte(`{"index":1,"values":["8","8MiB"]}`), 0o644))
	_, err = Run(context.Background(), s, Options{Dir: dir})
	require.ErrorContains(t, err, "000001.json: written by an older acemu")
}

// The aggregate: Perf is the reference's cycles over the point's,
// averaged over workloads and topologies; at the reference it is 1, and
// so are ACE's area and power ratios.
func TestReportNormalisesToTheReference(t *testing.T) {
	s := small(t)
	oc, err := Run(context.Background(), s, Options{})
	require.NoError(t, err)
	r, err := NewReport(s, oc.Points)
	require.NoError(t, err)
	require.Len(t, r.Points, 16)
	require.Len(t, r.Aggregate, 8)
	// Reference: ace.fsms=16, ace.sram=4MiB, the defaults: combination 3.
	require.Equal(t, []string{"16", "4MiB"}, s.Reference)
	for _, a := range r.Aggregate {
		c := s.combination(a.Values)
		k := 0
		if a.System == "ideal" {
			k = 1
		}
		want := 0.0
		for j := 0; j < 2; j++ { // the two topologies
			want += float64(oc.Points[3*2+j].Systems[k].TotalCycles) / float64(oc.Points[c*2+j].Systems[k].TotalCycles) / 2
		}
		require.InDelta(t, want, a.Perf, 1e-12, "%v %s", a.Values, a.System)
		if a.System == "ace" {
			require.NotNil(t, a.Silicon)
			if c == 3 {
				require.Equal(t, 1.0, a.Perf)
				require.InDelta(t, 1.0, *a.PerfPerArea, 1e-12)
				require.InDelta(t, 1.0, *a.PerfPerWatt, 1e-12)
				require.InDelta(t, 5.339031, a.Silicon.AreaMM2, 1e-9) // Table IV's total, 5 339 031 µm²
			}
		} else {
			require.Nil(t, a.Silicon)
		}
	}
}

func TestReadFile(t *testing.T) {
	f, err := ReadFile("s.yaml", []byte(`
set:
  ace.sram: [1MiB, 4MiB]
  ace.fsms: 4..16:4
  training.iterations: 1
  links.tx_buffer: [32]
workloads: [dlrm]
topologies: 4x2x1
systems: [ace]
reference: {ace.sram: 4MiB}
`))
	require.NoError(t, err)
	require.Equal(t, []string{"ace.sram=1MiB,4MiB", "ace.fsms=4..16:4", "training.iterations=1", "links.tx_buffer=32"}, f.Sets)
	require.Equal(t, []string{"dlrm"}, f.Workloads)
	require.Equal(t, []string{"4x2x1"}, f.Topologies)
	require.Equal(t, []string{"ace.sram=4MiB"}, f.Reference)
	for _, c := range []struct{ body, want string }{
		{"set: [a]", "mapping of parameter keys"},
		{"sets: {}", `s.yaml:1: unknown key "sets"`},
		{"set: {ace.sram: {a: 1}}", "s.yaml:1: ace.sram: give a value"},
		{"workloads: []", "empty list"},
		{"set: {ace.sram: 1MiB, 2MiB}", "s.yaml:1: 2MiB: give a value"},
		{"set: {ace.sram: '1MiB, 2MiB'}", "write a list as [a, b, c]"},
		{"- a", "must be a mapping"},
		{"set: {a: 1}\nset: {b: 2}", "set given twice"},
		{"{", "not YAML or JSON"},
	} {
		_, err := ReadFile("s.yaml", []byte(c.body))
		require.ErrorContains(t, err, c.want, c.body)
	}
}

// A point belongs to one sweep: with sweep.json removed, a sweep with
// another fixed setting does not take the old points for its own; a
// workload file edited between runs makes another sweep.
func TestPointsBelongToTheirSweep(t *testing.T) {
	dir := t.TempDir()
	one := func(iters string) *Spec {
		s, err := New(Request{Base: platform.Default(), Sets: []string{"ace.fsms=8,16", "training.iterations=" + iters},
			Workloads: []string{"dlrm"}, Topologies: []string{"4x2x1"}, Systems: []string{"ace"}})
		require.NoError(t, err)
		return s
	}
	_, err := Run(context.Background(), one("1"), Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, "sweep.json")))
	_, err = Run(context.Background(), one("2"), Options{Dir: dir})
	require.ErrorContains(t, err, "not the sweep's point 0")

	wl := filepath.Join(t.TempDir(), "w.txt")
	b, err := os.ReadFile("../testdata/astrasim/DLRM_HybridParallel.txt")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(wl, b, 0o644))
	spec := func() *Spec {
		s, err := New(Request{Base: platform.Default(), Sets: []string{"ace.fsms=8,16"}, Workloads: []string{wl},
			Topologies: []string{"4x2x1"}, Systems: []string{"ace"}})
		require.NoError(t, err)
		return s
	}
	a := spec()
	require.NoError(t, os.WriteFile(wl, bytes.Replace(b, []byte("300"), []byte("30000"), 1), 0o644))
	require.NotEqual(t, a.encode(), spec().encode(), "an edited workload file is another sweep")
}

// Two runs cannot share a directory (its lock); merge reads shards that
// are still being written without touching their temporary files; a
// corrupt sweep.json is an error, not a panic.
func TestDirectoriesAreSharedSafely(t *testing.T) {
	s := small(t)
	dir := t.TempDir()
	unlock, err := lockDir(dir)
	require.NoError(t, err)
	_, err = Run(context.Background(), s, Options{Dir: dir})
	require.ErrorContains(t, err, "another acemu sweep is running in it")
	unlock()
	_, err = Run(context.Background(), s, Options{Dir: dir, Workers: 2})
	require.NoError(t, err)
	tmp := filepath.Join(dir, "points", ".000003.json.41.tmp") // outfile's temporary name for 000003.json
	require.NoError(t, os.WriteFile(tmp, []byte("{half"), 0o644))
	_, err = Merge([]string{dir})
	require.NoError(t, err)
	require.FileExists(t, tmp, "merge leaves a point being written alone")

	for _, bad := range []string{`{"shard":"all","sweep":{}}`, `{"shard":"all","sweep":{"workloads":["dlrm"],"workload_files":[""],"topologies":["4x2x1"],"systems":["ace"],"axes":[{"key":"ace.fsms","values":["8"]}],"reference":["16"]}}`} {
		d := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(d, "points"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "sweep.json"), []byte(bad), 0o644))
		_, err := Merge([]string{d})
		require.ErrorContains(t, err, "sweep.json", bad)
	}
}

// A sweep runs on any built-in machine, named canonically (DGX1 is dgx1,
// 4X2X1 is 4x2x1), each point the comparator's on it; a topology file is
// refused, since a sweep's description names its machines and a file's
// content could change between its shards.
func TestSweepOverMachines(t *testing.T) {
	s, err := New(Request{Base: platform.Default(), Sets: []string{"ace.fsms=8,16", "training.iterations=1"},
		Workloads: []string{"dlrm"}, Topologies: []string{"DGX1", "switch:4x2", "4X2X1"}, Systems: []string{"ace", "ideal"}})
	require.NoError(t, err)
	require.Equal(t, []string{"dgx1", "switch:4x2", "4x2x1"}, s.Topologies)
	oc, err := Run(context.Background(), s, Options{Workers: 2})
	require.NoError(t, err)
	require.Len(t, oc.Points, 6)
	for _, p := range oc.Points {
		require.Len(t, p.Systems, 2, p.Topology)
		require.Positive(t, p.Systems[0].TotalCycles, p.Topology)
		require.Equal(t, p.Topology == "4x2x1", p.Folded, "only the torus folds")
	}
	_, err = New(Request{Base: platform.Default(), Workloads: []string{"dlrm"}, Topologies: []string{"net.yaml"}, Systems: []string{"ace"}})
	require.ErrorContains(t, err, "a file, where a torus LxVxH is wanted")
}

// A key, fixed or an axis, that no point of the sweep reads is refused
// before anything runs; the same key where some point reads it is taken.
func TestKeysThatChangeNothingAreRefused(t *testing.T) {
	file := "../testdata/astrasim/Resnet50_DataParallel.txt"
	for _, c := range []struct {
		name      string
		sets      []string
		workloads []string
		systems   []string
		want      string // "": accepted
	}{
		{"batch with only a file", []string{"training.batch=2"}, []string{file}, []string{"ideal"},
			"training.batch is set, but it is for the built-in workloads (resnet50, gnmt, dlrm), and the workloads (Resnet50_DataParallel) are files"},
		{"batch axis with only a file", []string{"training.batch=paper,2"}, []string{file}, []string{"ideal"}, "training.batch is an axis of the sweep, but it is for the built-in"},
		{"compute axis with only a file", []string{"training.compute=auto,roofline"}, []string{file}, []string{"ideal"}, "training.compute is an axis of the sweep"},
		{"batch with a file and a built-in", []string{"training.batch=paper,2"}, []string{file, "resnet50"}, []string{"ideal"}, ""},
		{"batch on the paper's compute", []string{"training.compute=paper", "training.batch=4"}, []string{"resnet50"}, []string{"ideal"}, "training.compute is paper, whose times are of one batch"},
		{"batch with compute an axis", []string{"training.compute=auto,roofline", "training.batch=4"}, []string{"resnet50"}, []string{"ideal"}, ""},
		{"baseline library without a baseline", []string{"baseline.launch=0,10458"}, []string{"resnet50"}, []string{"ace", "ideal"},
			"baseline.launch is an axis of the sweep, but it is the SM-driven baseline's library (docs/baseline-model.md), and the systems (ace,ideal) include no baseline"},
		{"baseline library with a baseline", []string{"baseline.step=0"}, []string{"resnet50"}, []string{"ideal", "baseline-commopt"}, ""},
		// ResNet-50 issues all-reduces only; DLRM all-to-alls too.
		{"algorithm of a collective not issued", []string{"collectives.all_gather=ring"}, []string{"resnet50"}, []string{"ideal"}, "no workload (resnet50) issues an all-gather"},
		{"algorithm of a collective issued", []string{"collectives.allreduce=ring,hierarchical"}, []string{"dlrm"}, []string{"ideal"}, ""},
		// 4x2x1 has intra- and inter-package links; no nvlink (dgx1's).
		{"a link class no topology has", []string{"links.nvlink.latency=10,500"}, []string{"resnet50"}, []string{"ideal"},
			"links.nvlink.latency is an axis of the sweep, but no link of the topologies (4x2x1) is of class nvlink"},
		{"a link class the topology has", []string{"links.inter.latency=10,500"}, []string{"resnet50"}, []string{"ideal"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(Request{Base: platform.Default(), Sets: c.sets, Workloads: c.workloads, Topologies: []string{"4x2x1"}, Systems: c.systems})
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.want)
		})
	}
	// A ring of one package (4x1x1) has no inter-package link: an axis of
	// its bandwidth is refused unless another topology has one.
	r := Request{Base: platform.Default(), Sets: []string{"links.inter.bandwidth=25GB/s,50GB/s"}, Workloads: []string{"resnet50"}, Systems: []string{"ideal"}}
	r.Topologies = []string{"4x1x1", "8x1x1"}
	_, err := New(r)
	require.ErrorContains(t, err, "no link of the topologies (4x1x1,8x1x1) is of class inter")
	r.Topologies = []string{"4x1x1", "4x2x1"}
	_, err = New(r)
	require.NoError(t, err)
}

// A key the sweep's runs would not read is refused as ErrNoEffect (what
// the validation report's choices' sweep skips); other refusals are not.
func TestNoEffectIsTyped(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sets     []string
		systems  []string
		noEffect bool
	}{
		{"an ACE key without ACE", []string{"ace.fsms=8,16"}, []string{"baseline-commopt"}, true},
		{"the baseline's library without a baseline", []string{"baseline.launch=0"}, []string{"ace"}, true},
		{"a key given twice", []string{"ace.fsms=8", "ace.fsms=16"}, []string{"ace"}, false},
		{"a value the key refuses", []string{"ace.fsms=0"}, []string{"ace"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(Request{Base: platform.Default(), Sets: tc.sets, Workloads: []string{"dlrm"}, Topologies: []string{"4x2x2"}, Systems: tc.systems})
			require.Error(t, err)
			require.Equal(t, tc.noEffect, errors.Is(err, ErrNoEffect), "%v", err)
		})
	}
}
