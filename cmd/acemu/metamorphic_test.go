package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Metamorphic tests: relations between runs that must hold whatever the
// numbers are. Giving a collective more of a resource (link bandwidth,
// lower link latency, SRAM, FSMs, communication SMs, communication memory
// bandwidth) must not make it slower by more than metaSlack allows, and the
// same inputs listed in another order must give the same results.
// metaSlack says how much slower is allowed, and why.
//
// The sample is random from a fixed seed: ACEMU_METAMORPHIC sets how many
// cases (default metaDefaultCases, which keeps the test well under a
// minute on two cores), ACEMU_METAMORPHIC_SEED the seed (default
// metaDefaultSeed). A failure prints the seed, the case and both command
// lines, so `ACEMU_METAMORPHIC_SEED=S ACEMU_METAMORPHIC=N go test -run
// TestMetamorphicMoreIsNotSlower ./cmd/acemu` replays it, and either
// command line alone shows it.

// The sample CI runs.
const (
	// metaDefaultCases is how many cases: about 6 s on two cores (the
	// collectives fold to one NPU where they can).
	metaDefaultCases = 300
	// metaDefaultSeed is the seed they are drawn from.
	metaDefaultSeed = 1
)

// metaEnvInt reads a positive integer from the environment variable name,
// def when it is unset.
func metaEnvInt(t *testing.T, name string, def int64) int64 {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err, "%s=%q", name, s)
	require.Positive(t, n, "%s=%q", name, s)
	return n
}

// metaKnob is a resource a relation turns up: its values from worst to
// best, the flags that set one, and which systems have it.
type metaKnob struct {
	name string
	// systems lists the systems the knob applies to (nil: all).
	systems []string
	ladder  []float64
	flags   func(v float64) []string
}

// metaBaselines are the baseline systems of the sample.
var metaBaselines = []string{"baseline-commopt"}

// metaKnobs are the resources the relations turn up. Every run sets every
// knob that applies to its system, so a case's base is a random point of
// the grid and its improvement moves one knob to a better rung.
var metaKnobs = []metaKnob{
	{name: "intra bandwidth GB/s", ladder: []float64{50, 100, 200, 400},
		flags: func(v float64) []string { return []string{"--set", fmt.Sprintf("links.intra.bandwidth=%gGB/s", v)} }},
	{name: "inter bandwidth GB/s", ladder: []float64{12.5, 25, 50, 100},
		flags: func(v float64) []string { return []string{"--set", fmt.Sprintf("links.inter.bandwidth=%gGB/s", v)} }},
	{name: "intra latency cycles", ladder: []float64{180, 90, 45, 0},
		flags: func(v float64) []string { return []string{"--set", fmt.Sprintf("links.intra.latency=%g", v)} }},
	{name: "inter latency cycles", ladder: []float64{1000, 500, 250, 0},
		flags: func(v float64) []string { return []string{"--set", fmt.Sprintf("links.inter.latency=%g", v)} }},
	{name: "ACE SRAM MiB", systems: []string{"ace"}, ladder: []float64{1, 2, 4, 8},
		flags: func(v float64) []string { return []string{"--sram", fmt.Sprintf("%gMiB", v)} }},
	{name: "ACE FSMs", systems: []string{"ace"}, ladder: []float64{4, 8, 12, 16, 20},
		flags: func(v float64) []string { return []string{"--fsms", fmt.Sprint(v)} }},
	{name: "comm SMs", systems: metaBaselines, ladder: []float64{2, 4, 6, 8},
		flags: func(v float64) []string { return []string{"--comm-sms", fmt.Sprint(v)} }},
	{name: "comm memory GB/s", systems: append([]string{"ace"}, metaBaselines...), ladder: []float64{64, 128, 256, 450},
		flags: func(v float64) []string { return []string{"--comm-mem-bw", fmt.Sprintf("%gGB/s", v)} }},
}

// appliesTo says whether k is a resource of system.
func (k metaKnob) appliesTo(system string) bool {
	if k.systems == nil {
		return true
	}
	for _, s := range k.systems {
		if s == system {
			return true
		}
	}
	return false
}

// metaCase is one drawn case: a collective, its base values (rung per
// knob, -1 where the knob does not apply) and the knob turned up to a
// better rung.
type metaCase struct {
	topo, system string
	sizeKiB      int64
	rung         []int
	knob, better int
}

// metaDraw draws a case from r.
func metaDraw(r *rand.Rand) metaCase {
	topos := []string{"4x2x2", "4x4x1", "switch:4x2"}
	systems := []string{"ace", "baseline-commopt", "ideal"}
	sizes := []int64{64, 128, 256, 512, 1024}
	c := metaCase{topo: topos[r.Intn(len(topos))], system: systems[r.Intn(len(systems))], sizeKiB: sizes[r.Intn(len(sizes))]}
	var applicable []int
	for i, k := range metaKnobs {
		c.rung = append(c.rung, -1)
		if k.appliesTo(c.system) {
			c.rung[i] = r.Intn(len(k.ladder))
			applicable = append(applicable, i)
		}
	}
	c.knob = applicable[r.Intn(len(applicable))]
	n := len(metaKnobs[c.knob].ladder)
	c.rung[c.knob] = r.Intn(n - 1)
	c.better = c.rung[c.knob] + 1 + r.Intn(n-1-c.rung[c.knob])
	return c
}

// args are the command line of c's base run (improved false) or of its
// improved one.
func (c metaCase) args(improved bool) []string {
	a := []string{"collective", "--topo", c.topo, "--system", c.system, "--size", fmt.Sprintf("%dKiB", c.sizeKiB), "--format", "json"}
	for i, k := range metaKnobs {
		if c.rung[i] < 0 {
			continue
		}
		r := c.rung[i]
		if improved && i == c.knob {
			r = c.better
		}
		a = append(a, k.flags(k.ladder[r])...)
	}
	return a
}

// value is c's base value of the knob named name (def where it does not
// apply: the system's own).
func (c metaCase) value(name string, def float64) float64 {
	for i, k := range metaKnobs {
		if k.name == name && c.rung[i] >= 0 {
			return k.ladder[c.rung[i]]
		}
	}
	return def
}

// metaSlack is how much slower than c's base run its improved run may be,
// in cycles, given solo, the cycles of the same collective of one chunk
// (64 KiB) on the base platform, and fsms, the most FSMs a phase of the
// improved run has on ACE (0 elsewhere).
//
// The first rule, written down before the sample was measured, was the
// bottleneck term alone:
//
// A collective is cut into chunks (64 KiB, or the whole payload when
// smaller) that flow through its phases in a pipeline, and every resource
// a chunk uses (a link, an FSM, the DMA, an SM, a library step) serves the
// chunks waiting for it in the order they reached it. Making one resource
// faster moves when chunks reach the next one, so two chunks may reach a
// shared resource in the other order: the one that used to go first now
// waits for the other. Such a reordering costs the run at most the time
// one chunk holds the slowest resource it passes through, after which the
// pipeline runs as before. The slowest resource of the base run (every
// resource of the improved run is at least as fast) is the smallest of:
// the slower link class's payload rate (raw bandwidth × 0.94 efficiency,
// per 1245 MHz cycle; every machine of the sample uses both classes), the
// memory bandwidth given to communication (ACE and the baseline), and the
// baseline's SMs (64 B per cycle each). A baseline chunk may also miss a
// library step it would have made, which waits one step (4233 cycles,
// docs/baseline-model.md) more:
//
//	bottleneck = chunk / slowest rate  (+ 4233 on the baseline)
//
// Measured over 3000 cases (seed 1), 10 broke it, by up to 7.4 times.
// Each was traced (docs/validation.md, "Timing anomalies"). One was a bug,
// fixed (a routed phase's layout read only its first link). In the others
// a chunk lost its turn not once but for the rest of a phase: ACE's ports
// serve FSMs round-robin, not oldest first, and an FSM takes its chunks
// in creation order, so a chunk left behind holds up every later chunk of
// its FSMs; the baseline's oldest-first ports push its youngest chunk
// behind the others, after which it runs its remaining steps alone.
//
// A second rule added one chunk's pass through the collective alone, after
// the others (solo: a one-chunk collective on the same platform). Seed 2's
// 3000 cases found the bug above; after the fix seed 1's broke it once,
// by 5 % (switch:4x2, SRAM 1 → 2 MiB: more room let more chunks share the
// spine links at once).
//
// The rule kept counts what can pass a chunk left behind on ACE: the
// chunks the other FSMs of its phase hold (fsms − 1 at most, fsms the most
// FSMs any phase of the improved run has, each holding one chunk) and the
// one its own FSM held before it: fsms chunks, each one chunk's time at
// the bottleneck. Then its own pass, alone. The baseline and the ideal
// endpoint serve the oldest chunk first, so a chunk of theirs is passed by
// at most one:
//
//	slack = solo + max(fsms, 1) × bottleneck
//
// It was checked on seeds 3 and 4 (3000 cases each), which it was not
// drawn from; docs/validation.md gives the results.
func metaSlack(c metaCase, solo float64, fsms int) float64 {
	const clockGHz, efficiency = 1.245, 0.94
	chunk := math.Min(64*1024, float64(c.sizeKiB*1024))
	rate := math.Min(c.value("intra bandwidth GB/s", 0), c.value("inter bandwidth GB/s", 0)) * efficiency / clockGHz
	if c.system != "ideal" {
		rate = math.Min(rate, c.value("comm memory GB/s", 0)/clockGHz)
	}
	slack := chunk / rate
	if strings.HasPrefix(c.system, "baseline") {
		slack = math.Max(slack, chunk/(64*c.value("comm SMs", 0))) + 4233
	}
	return solo + float64(max(fsms, 1))*slack
}

// soloArgs are the command line of c's base run for one chunk (64 KiB).
func (c metaCase) soloArgs() []string {
	a := c.args(false)
	for i := range a {
		if a[i] == "--size" {
			a[i+1] = "64KiB"
		}
	}
	return a
}

// metaRecords runs acemu with args, which ask for CSV, and returns its
// header and records.
func metaRecords(t *testing.T, args []string) [][]string {
	t.Helper()
	code, out, errOut := runCLI(args...)
	require.Equal(t, 0, code, "acemu %s: %s", strings.Join(args, " "), errOut)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Greater(t, len(recs), 1, out)
	return recs
}

// metaRun runs a collective (args ask for JSON) and returns its cycles
// and, on ACE, the most FSMs any one phase has (0 elsewhere).
func metaRun(t *testing.T, args []string) (cycles float64, fsms int) {
	t.Helper()
	code, out, errOut := runCLI(args...)
	require.Equal(t, 0, code, "acemu %s: %s", strings.Join(args, " "), errOut)
	var r struct {
		Cycles float64 `json:"cycles"`
		ACE    *struct {
			FSMs []int `json:"fsms_per_phase"`
		} `json:"ace"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Positive(t, r.Cycles, out)
	if r.ACE != nil {
		require.NotEmpty(t, r.ACE.FSMs, out)
		fsms = slices.Max(r.ACE.FSMs)
	}
	return r.Cycles, fsms
}

func TestMetamorphicMoreIsNotSlower(t *testing.T) {
	n := metaEnvInt(t, "ACEMU_METAMORPHIC", metaDefaultCases)
	seed := metaEnvInt(t, "ACEMU_METAMORPHIC_SEED", metaDefaultSeed)
	r := rand.New(rand.NewSource(seed))
	worst := 0.0
	for i := int64(0); i < n; i++ {
		c := metaDraw(r)
		base, better := c.args(false), c.args(true)
		t.Run(fmt.Sprintf("case%d", i), func(t *testing.T) {
			b, _ := metaRun(t, base)
			m, fsms := metaRun(t, better)
			solo, _ := metaRun(t, c.soloArgs())
			slack := metaSlack(c, solo, fsms)
			worst = math.Max(worst, (m-b)/slack)
			assert.LessOrEqual(t, m, b+slack,
				"seed %d case %d: %s %g → %g made it %g cycles slower (%g → %g), more than the slack of %.0f\n  acemu %s\n  acemu %s\n(replay: ACEMU_METAMORPHIC_SEED=%d ACEMU_METAMORPHIC=%d)",
				seed, i, metaKnobs[c.knob].name, metaKnobs[c.knob].ladder[c.rung[c.knob]], metaKnobs[c.knob].ladder[c.better],
				m-b, b, m, slack, strings.Join(base, " "), strings.Join(better, " "), seed, i+1)
		})
	}
	t.Logf("seed %d, %d cases: the worst slowdown was %.3f of its slack", seed, n, worst)
}

// metaRows runs acemu with args (CSV) and returns its records keyed by the
// first keyCols columns, each with the header, so that two runs listing
// the same inputs in another order compare equal.
func metaRows(t *testing.T, keyCols int, args ...string) map[string][]string {
	t.Helper()
	recs := metaRecords(t, args)
	rows := map[string][]string{}
	for _, rec := range recs[1:] {
		key := strings.Join(rec[:keyCols], ",")
		require.NotContains(t, rows, key, "a key twice in %v", recs)
		rows[key] = append(append([]string{}, recs[0]...), rec...)
	}
	return rows
}

func TestMetamorphicOrderDoesNotMatter(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keyCols int
		a, b    []string
	}{
		{"collective --set order", 0,
			[]string{"collective", "--topo", "4x2x2", "--system", "ace", "--size", "256KiB", "--format", "csv",
				"--set", "links.intra.latency=45", "--set", "links.inter.bandwidth=50GB/s", "--set", "ace.fsms=8"},
			[]string{"collective", "--topo", "4x2x2", "--system", "ace", "--size", "256KiB", "--format", "csv",
				"--set", "ace.fsms=8", "--set", "links.inter.bandwidth=50GB/s", "--set", "links.intra.latency=45"}},
		{"fig5 --mem and --topos order", 2,
			[]string{"reproduce", "fig5", "--size", "256KiB", "--format", "csv", "--topos", "4x2x2,switch:4x2", "--mem", "64,256,200"},
			[]string{"reproduce", "fig5", "--size", "256KiB", "--format", "csv", "--topos", "switch:4x2,4x2x2", "--mem", "200,64,256"}},
		{"comparator --systems order", 1,
			[]string{"--topo", "4x2x2", "--workload", "resnet50", "--iterations", "1", "--format", "csv", "--systems", "ace,baseline-commopt,ideal"},
			[]string{"--topo", "4x2x2", "--workload", "resnet50", "--iterations", "1", "--format", "csv", "--systems", "ideal,baseline-commopt,ace"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := metaRows(t, tc.keyCols, tc.a...), metaRows(t, tc.keyCols, tc.b...)
			keys := make([]string, 0, len(a))
			for k := range a {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			require.NotEmpty(t, keys)
			require.Equal(t, a, b, "keys %v", keys)
		})
	}
}
