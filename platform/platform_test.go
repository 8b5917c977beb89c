package platform

import (
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/torus"
	"github.com/acemu/acemu/train"
	"github.com/stretchr/testify/require"
)

// No default lives in two places: the platform's defaults are the
// components' own.
func TestDefaultsAreTheComponentsDefaults(t *testing.T) {
	p := Default()
	l, err := p.LinkSettings()
	require.NoError(t, err)
	d := torus.DefaultLinks()
	require.Equal(t, d.Intra, l.Intra)
	require.Equal(t, d.Inter, l.Inter)
	a := afi.DefaultConfig(torus.Shape{L: 1, V: 1, H: 1}.Machine())
	require.Equal(t, a.ChunkBytes, p.ChunkBytes)
	require.Equal(t, a.MessageBytes, p.MessageBytes)
	require.Equal(t, ace.Default(), p.ACE)
	require.Equal(t, train.DefaultIterations, p.Iterations)
	require.NoError(t, p.Validate())
}

// Dumping, loading the dump and dumping again gives the same bytes, from
// the defaults and from a platform with every kind of value changed.
func TestDumpRoundTrips(t *testing.T) {
	changed := Default()
	for k, v := range map[string]string{
		"links.inter.bandwidth": "50GB/s", "links.efficiency": "47/50", "afi.chunk": "128KiB",
		"ace.ports_per_bank": "3", "ace.partition": "paper", "ace.mem_bw": "256.5GB/s",
		"training.priority": "fifo", "training.memory_policy": "partition", "training.mem_bound_share": "0.25",
	} {
		require.NoError(t, changed.Set(k, v), k)
	}
	for _, p := range []Platform{Default(), changed} {
		b1, err := p.Dump()
		require.NoError(t, err)
		q := Default()
		require.NoError(t, q.Load("dump.yaml", b1))
		b2, err := q.Dump()
		require.NoError(t, err)
		require.Equal(t, string(b1), string(b2))
	}
	require.Equal(t, big.NewRat(513, 2), changed.ACE.CommMemGBps)
	require.Equal(t, afi.FIFO, changed.Order)
}

// Every key of the dump is a parameter of docs/model-choices.md's
// platform table, and every parameter is in the dump.
func TestEveryParameterIsDumped(t *testing.T) {
	b, err := Default().Dump()
	require.NoError(t, err)
	for _, q := range Params() {
		leaf := q.Key[strings.LastIndex(q.Key, ".")+1:]
		require.Contains(t, string(b), "  "+leaf+": ", q.Key)
		require.NotEmpty(t, q.Source, q.Key)
		require.NotEmpty(t, q.Unit, q.Key)
	}
}

// Bad files and values are refused with the file, the line, the key and
// what it takes.
func TestBadConfigurationsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name, text, msg string
	}{
		{"unknown key", "ace:\n  sram: 4MiB\n  fsm: 20\n", "cfg.yaml:3: unknown parameter \"ace.fsm\"; keys under ace: ace.sram"},
		{"unknown section", "acee:\n  fsms: 20\n", "the sections are links, afi, ace, training and npu"},
		{"wrong unit", "ace:\n  sram: 4 furlongs\n", "cfg.yaml:2: ace.sram = \"4 furlongs\": size"},
		{"out of range", "ace:\n  fsms: 2\n", "out of range: give 3 to 1024"},
		{"bandwidth", "links:\n  inter:\n    bandwidth: fast\n", "cfg.yaml:3: links.inter.bandwidth = \"fast\": bandwidth \"fast\": not a number of GB/s"},
		{"fixed", "npu:\n  sms: 100\n", "fixed at 80 in this version"},
		{"twice", "ace:\n  fsms: 20\n  fsms: 16\n", "given twice"},
		{"list", "ace:\n  fsms: [16, 20]\n", "give one value"},
		{"section as value", "ace: 4MiB\n", "unknown parameter \"ace\""},
		{"not a mapping", "- a\n- b\n", "must be a mapping of sections"},
		{"not yaml", "ace: [\n", "not YAML or JSON"},
		{"policy", "training:\n  memory_policy: fair\n", "use one of share, partition"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Default()
			err := p.Load("cfg.yaml", []byte(tc.text))
			require.ErrorContains(t, err, tc.msg)
		})
	}
	p := Default()
	require.NoError(t, p.Load("cfg.json", []byte(`{"ace": {"fsms": "20", "sram": "8MiB"}, "training": {"iterations": 1}}`)))
	require.Equal(t, 20, p.ACE.FSMs)
	require.Equal(t, int64(8<<20), p.ACE.SRAMBytes)
	require.Equal(t, 1, p.Iterations)
	require.NoError(t, p.Load("empty.yaml", nil))
}

// docs/model-choices.md carries the parameter table as the code has it,
// so that no default is written twice and out of step.
func TestModelChoicesListsEveryParameter(t *testing.T) {
	doc, err := os.ReadFile("../docs/model-choices.md")
	require.NoError(t, err)
	require.Contains(t, string(doc), Table(), "regenerate the table in docs/model-choices.md from platform.Table()")
}

// Shares: a link's efficiency is in (0, 1], the memory-bound share of
// ASTRA-sim times in [0, 1] (0: all SM-bound).
func TestFractionRanges(t *testing.T) {
	p := Default()
	require.NoError(t, p.Set("training.mem_bound_share", "0"))
	require.Zero(t, p.MemBoundShare.Sign())
	require.ErrorContains(t, p.Set("training.mem_bound_share", "1.5"), "give a fraction in [0, 1]")
	require.ErrorContains(t, p.Set("links.efficiency", "0"), "give a fraction in (0, 1]")
	require.NoError(t, p.Set("links.efficiency", "94%"))
	require.Zero(t, p.Efficiency.Cmp(big.NewRat(47, 50)))
}

// The default platform's links are topology.DefaultLinkSettings, which
// tests that build machines without a platform use.
func TestDefaultLinkSettings(t *testing.T) {
	got, err := Default().LinkSettings()
	require.NoError(t, err)
	require.Equal(t, topology.DefaultLinkSettings(), got)
}

// A link class's keys inherit the intra- or inter-package link's until
// set: unset, they are left out of the dump and the class takes its base
// link (no entry in LinkSettings.Classes); set, the class has its own link
// (links.nvlink.bandwidth 50GB/s at 94 %: 47 GB/s of payload, 47e9/1245e6
// = 47000/1245 B/cycle; the latency stays the inter link's 500 cycles),
// the dump writes the key and reading it back gives the same platform.
func TestLinkClassKeysInherit(t *testing.T) {
	require.Len(t, topology.Classes(), len(Platform{}.Classes), "one ClassLink per class")
	d := Default()
	q, ok := Lookup("links.nvlink.bandwidth")
	require.True(t, ok)
	require.True(t, q.Unset(&d))
	require.Equal(t, "25GB/s", q.Effective(&d), "the inter-package link's")
	b, err := d.Dump()
	require.NoError(t, err)
	require.NotContains(t, string(b), "nvlink")
	p := Default()
	require.NoError(t, p.Set("links.nvlink.bandwidth", "50GB/s"))
	require.NoError(t, p.Set("links.tier1.latency", "40"))
	require.ErrorContains(t, p.Set("links.tier2.bandwidth", "0GB/s"), "must be positive")
	l, err := p.LinkSettings()
	require.NoError(t, err)
	nv := l.Classes["nvlink"]
	require.Zero(t, big.NewRat(47000, 1245).Cmp(nv.Rate.Rat()))
	require.Equal(t, rtl.Cycle(500), nv.Latency)
	require.Equal(t, "nvlink", nv.Name)
	require.Equal(t, l.Inter.Rate, l.Classes["tier1"].Rate)
	require.Equal(t, rtl.Cycle(40), l.Classes["tier1"].Latency)
	require.NotContains(t, l.Classes, "tier0", "unset: its base link")
	b, err = p.Dump()
	require.NoError(t, err)
	require.Contains(t, string(b), "nvlink:")
	back := Default()
	require.NoError(t, back.Load("p.yaml", b))
	again, err := back.Dump()
	require.NoError(t, err)
	require.Equal(t, string(b), string(again))
}

// Changed lists what differs from the defaults, in the file's order, and
// nothing for the defaults.
func TestChanged(t *testing.T) {
	require.Empty(t, Changed(Default()))
	p := Default()
	require.NoError(t, p.Set("ace.fsms", "8"))
	require.NoError(t, p.Set("ace.sram", "8MiB"))
	require.NoError(t, p.Set("training.iterations", "1"))
	got := Changed(p)
	require.ElementsMatch(t, []Setting{{"ace.fsms", "8"}, {"ace.sram", "8MiB"}, {"training.iterations", "1"}}, got)
	var keys []string
	for _, q := range Params() {
		for _, s := range got {
			if s.Key == q.Key {
				keys = append(keys, q.Key)
			}
		}
	}
	require.Equal(t, keys, []string{got[0].Key, got[1].Key, got[2].Key}, "in the file's order")
	// Set back to the default, a key is not changed.
	require.NoError(t, p.Set("ace.fsms", "16")) // Table VI's 16 FSMs, the default
	require.Len(t, Changed(p), 2)
}
