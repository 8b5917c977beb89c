package validation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/sweep"
)

// A Source is one of the papers acemu reproduces.
type Source struct {
	// Key is the source's short name in figure names: "ace", "ccube".
	Key string `json:"key"`
	// Title is the paper's title, as it is cited.
	Title string `json:"title"`
}

// The papers the report reproduces.
var (
	ACEPaper = Source{"ace", "Enabling Compute-Communication Overlap in Distributed Deep Learning Training Platforms"}
)

// Env is what a figure's runs take from the command: the platform every
// run starts from, whether to run the quick subset, how many runs go at
// once, where to keep the sweep's points and the plots, and whom to tell
// of progress.
type Env struct {
	// Platform is every run's platform (the defaults unless --config or
	// --set give others).
	Platform platform.Platform
	// Quick runs the figure's CI-sized subset: small tori, small sizes.
	Quick bool
	// Workers is how many runs go at once (0: GOMAXPROCS); results do not
	// depend on it.
	Workers int
	// Dir, if set, is the figure's own directory: its sweep keeps its
	// points there (run again, only the missing ones run) and its plots go
	// there.
	Dir string
	// Progress, if set, is told how many runs have finished.
	Progress func(done, total int)
	// Options, when set, are the choices `acemu reproduce NAME` gives the
	// figure's runs (only those its Flags declare); a report gives none,
	// and its figures share the training runs they have in common. Set,
	// even to the zero Options, a figure runs as by name: fig9b and fig11
	// then train in a sweep of their own (fig9b ACE alone) rather than in
	// the five systems' runs they share with fig10 in a report, as
	// `acemu reproduce fig9b` and `fig11` always have.
	Options *Options
	// PlotDir, if set, is where the plots go instead of Dir.
	PlotDir string
	// Shard, if more than one, runs only the shard's points of each of a
	// figure's sweeps into Dir (docs/sweeps.md, "On a cluster"): the
	// figure then gives no outcome (sweep.ErrSharded) until the shards'
	// directories are merged (sweep.MergeDirs) and it runs again there.
	Shard sweep.Shard
	// Ran, if set, is told of each simulation as it starts (its index
	// in its sweep): how many ran, where finished points were kept.
	Ran func(i int)
}

// Outcome is what a figure's runs gave: the paper's values beside
// acemu's, the paper's findings checked, notes, and the plots it drew
// (file names under Env.Dir).
type Outcome struct {
	Values   []Value   `json:"values,omitempty"`
	Findings []Finding `json:"findings,omitempty"`
	Notes    []string  `json:"notes,omitempty"`
	Plots    []string  `json:"plots,omitempty"`
	// Table is the figure's runs as `acemu reproduce NAME` prints them;
	// the report holds its rows, summary and notes (Table says which), under
	// "The runs behind these rows" (the report's runs: a figure run by name
	// may run more, as fig4 does).
	Table *Table `json:"table,omitempty"`
}

// Figure is one figure or experiment of a paper.
type Figure struct {
	// Name is what `acemu reproduce` calls it: "fig5", "ccube-fig12a".
	Name string `json:"name"`
	// Source is the paper, Where its place: "Section III, Fig. 5".
	Source Source `json:"source"`
	Where  string `json:"where"`
	// Title says what it shows, in a line.
	Title string `json:"title"`
	// Quick is whether the figure has a CI-sized subset (Env.Quick), and
	// Same whether that subset runs it as its paper set it up: its rows
	// are then the report's own, and the tests hold the committed report
	// to them (TestCommittedReportHasTheQuickRows).
	Quick bool `json:"quick,omitempty"`
	Same  bool `json:"same,omitempty"`
	// Ignores are the prefixes of the platform keys its runs do not take
	// (its runs set them themselves, or the paper's setup fixes them):
	// "links." and the like. A run given one of them would change nothing.
	Ignores []string `json:"-"`
	// Flags are the option flags `acemu reproduce NAME` takes for it
	// (FlagTopos and the like; Env.Options): it refuses the others.
	Flags []string `json:"-"`
	// Tabled is whether its outcome has a table of its runs
	// (Outcome.Table), which `acemu reproduce NAME` prints before its
	// part of the report.
	Tabled bool `json:"-"`
	// Draws is whether it draws plots (Outcome.Plots) where Env says.
	Draws bool `json:"-"`
	// Run runs it.
	Run func(Env) (*Outcome, error) `json:"-"`
}

// Takes is whether the figure's runs take platform key k.
func (f Figure) Takes(k string) bool {
	return !slices.ContainsFunc(f.Ignores, func(pre string) bool { return strings.HasPrefix(k, pre) })
}

// registry holds the figures in the order the report gives them, each
// declared in a file of its own.
var registry = []Figure{aceFig4, aceFig5, aceFig6, aceSec6A, aceFig9a, aceFig9b, aceFig10, aceFig11, ccubeFig12a, ccubeFig13, blueconnectFig3, mxnetPolicies, libraE3}

// Figures returns every registered figure, in the report's order.
func Figures() []Figure { return slices.Clone(registry) }

// Lookup returns the figure called name.
func Lookup(name string) (Figure, bool) {
	i := slices.IndexFunc(registry, func(f Figure) bool { return f.Name == name })
	if i < 0 {
		return Figure{}, false
	}
	return registry[i], true
}

// NoQuick is the refusal of --quick for a figure without a quick subset.
func (f Figure) NoQuick() error {
	return fmt.Errorf("%s has no quick subset (%s); run it without --quick", f.Name, f.Title)
}
