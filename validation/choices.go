package validation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/sweep"
)

// Choice is one of the model's choices where a paper is silent (a
// [choice] of docs/model-choices.md): its platform key and the other
// values it could take.
type Choice struct {
	Key string
	// Others are the values the sweep runs beside the default.
	Others []string
	// Doc is the docs/ page that says why the default.
	Doc string
}

// Choices are the model's choices the report sweeps, one at a time, each
// to its other values: how much each moves the report's rows.
var Choices = []Choice{
	{"ace.ports_per_bank", []string{"literal"}, "docs/ace-model.md"},
	{"ace.partition", []string{"paper"}, "docs/ace-model.md"},
	{"ace.notice", []string{"fsm"}, "docs/ace-model.md"},
	{"ace.prefetch", []string{"room"}, "docs/ace-model.md"},
	{"ace.fsm_split", []string{"even"}, "docs/ace-model.md"},
	{"links.tx_buffer", []string{"16", "64"}, "docs/topology.md"},
	{"links.rx_buffer", []string{"64", "256"}, "docs/topology.md"},
	{"afi.message", []string{"4KiB"}, "docs/model-choices.md (Table III's 4 KB against Table V's 8 KB)"},
	{"baseline.launch", []string{"0"}, "docs/baseline-model.md"},
	{"baseline.step", []string{"0"}, "docs/baseline-model.md"},
	{"training.memory_policy", []string{"partition"}, "docs/memory-system.md"},
	{"training.compute", []string{"roofline"}, "docs/workloads.md"},
	{"training.mem_bound_share", []string{"0", "1"}, "docs/astrasim-workloads.md"},
	{"links.nvlink.bandwidth", []string{"20GB/s"}, "docs/topology.md (NVLink 1.0, the P100 DGX-1's, against the V100's 25 GB/s)"},
	{"links.nvlink.latency", []string{"90"}, "docs/topology.md (an intra-package link's latency)"},
}

// NotSwept are the [choice] keys of docs/model-choices.md the choices'
// sweep leaves out, and why; a key ending in "*" stands for every key it
// begins.
var NotSwept = map[string]string{
	"links.tier*":           "switch fabrics' tiers: the BlueConnect figure sets its own (the paper's cluster's) and no other figure runs on a switch fabric",
	"training.micro":        "only a MICRO workload (a collective alone) runs by it; no figure of the report trains one",
	"training.issue_policy": "the MXNet-MPI paper's designs, which mxnet-policies sweeps; the ACE paper's figures issue eagerly",
	"training.key_order":    "refused under eager issue; mxnet-policies runs its designs in back-prop order",
	"training.copy":         "refused under eager issue; mxnet-policies sweeps it",
	"training.fusion":       "no figure of the ACE paper fuses; LIBRA's systems set their own",
	"npu.compute_speed":     "a knob for other NPUs than Table V's, which the report's figures fix",
}

// ChoiceRun is one choice set to one of its other values: the report's
// values and findings that moved, beside the default's.
type ChoiceRun struct {
	Key, Value string
	// Quick is whether its runs are the quick subset's.
	Quick bool `json:"quick,omitempty"`
	// Figures are the figures whose runs take the key (Figure.Takes): the
	// others would not change and did not run.
	Figures []string
	// Refused are the figures that take the key but whose sweep refused it
	// as changing nothing (sweep.ErrNoEffect): the systems, workloads or
	// links they run do not read it.
	Refused []string `json:",omitempty"`
	// NotRun are the figures whose runs refuse the value, with the
	// refusal (compare.ErrRefused): a system they run has no meaning
	// under it (LIBRA where no contention is left to plan).
	NotRun []FigureRefusal `json:",omitempty"`
	// Moved are the values that changed: the figure, the quantity, the
	// paper's, the default's and this one's.
	Moved []MovedValue
	// Flipped are the findings that hold under one and not the other.
	Flipped []FlippedFinding
}

// FigureRefusal is a figure a choice's runs refused, and why.
type FigureRefusal struct {
	Figure, Why string
}

// MovedValue is a value a choice moved: the default run's row and the
// choice's (its Acemu, or None where it has no value).
type MovedValue struct {
	Figure       string
	Value, Other Value
}

// FlippedFinding is a finding a choice turned.
type FlippedFinding struct {
	Figure                         string
	Claim                          string
	Default, Other                 bool
	DefaultMeasured, OtherMeasured string
}

// RunChoices runs the report's figures that take a choice's key under e
// (its base; a figure none takes, such as BlueConnect's on its own
// fabric, would move under none and does not run) and then, for each
// choice and each of its other values, the figures that take its key
// with the key set, and says what moved. progress, if set, is told each
// run's key and value as it starts.
//
// With e.Dir, every run's sweep points are kept there, so the same
// command run again runs only what is missing: the base report's under
// DIR/NAME (a full report's --out, kept, is the base at no cost), each
// choice's under DIR/choices/KEY=VALUE/NAME (ChoiceDir). With a shard
// (e.Shard), it runs only that shard's points of every sweep and returns
// sweep.ErrSharded; the shards' directories merge (sweep.MergeDirs) into
// one that the unsharded command then reads.
//
// names, if given, limits the report to those figures.
func RunChoices(e Env, choices []Choice, progress func(key, value string), names ...string) (*Report, []ChoiceRun, error) {
	figs, err := selectFigures(e.Quick, names)
	if err != nil {
		return nil, nil, err
	}
	figs = slices.DeleteFunc(figs, func(f Figure) bool { return !takesAny(f, choices) })
	taking := make([]string, len(figs))
	for i, f := range figs {
		taking[i] = f.Name
	}
	if len(taking) == 0 {
		var keys []string
		for _, c := range choices {
			keys = append(keys, c.Key)
		}
		return nil, nil, fmt.Errorf("none of the figures takes %s: nothing to sweep", strings.Join(keys, ", "))
	}
	base, err := Run(e, taking...) // a figure no choice moves need not run
	if err != nil {
		return nil, nil, err
	}
	sharded := e.Shard.N > 1
	var out []ChoiceRun
	for _, c := range choices {
		for _, v := range c.Others {
			if progress != nil {
				progress(c.Key, v)
			}
			ce := e
			if err := ce.Platform.Set(c.Key, v); err != nil {
				return nil, nil, fmt.Errorf("choice %s=%s: %w", c.Key, v, err)
			}
			if err := ce.Platform.Validate(); err != nil {
				return nil, nil, fmt.Errorf("choice %s=%s: %w", c.Key, v, err)
			}
			cr := ChoiceRun{Key: c.Key, Value: v, Quick: e.Quick}
			for _, f := range figs {
				if !f.Takes(c.Key) {
					continue
				}
				ce.Dir = ""
				if e.Dir != "" {
					ce.Dir = filepath.Join(e.Dir, ChoiceDir(c.Key, v), f.Name)
					if err := os.MkdirAll(ce.Dir, 0o755); err != nil {
						return nil, nil, fmt.Errorf("choice %s=%s: %w", c.Key, v, err)
					}
				}
				o, err := f.Run(ce)
				if errors.Is(err, sweep.ErrNoEffect) {
					// Its sweep refuses the key: the systems, workloads or
					// links it runs do not read it. Ignores cannot say so
					// for every figure, as what it runs may be an option
					// (a figure's --topos may name a torus or the DGX-1).
					cr.Refused = append(cr.Refused, f.Name)
					continue
				}
				if errors.Is(err, compare.ErrRefused) {
					// A system it runs refuses the value (LIBRA with no
					// contention to plan). Said on the page, not run.
					cr.NotRun = append(cr.NotRun, FigureRefusal{Figure: f.Name, Why: err.Error()})
					continue
				}
				if sharded && errors.Is(err, sweep.ErrSharded) {
					continue // its shard's points are kept
				}
				if err != nil {
					return nil, nil, fmt.Errorf("choice %s=%s: %s: %w", c.Key, v, f.Name, err)
				}
				i := slices.IndexFunc(base.Results, func(r Result) bool { return r.Figure.Name == f.Name })
				if i < 0 {
					return nil, nil, fmt.Errorf("choice %s=%s: %s ran, but not in the base report", c.Key, v, f.Name)
				}
				cr.Figures = append(cr.Figures, f.Name)
				cr.compare(base.Results[i], o)
			}
			out = append(out, cr)
		}
	}
	if sharded {
		return nil, nil, sweep.ErrSharded
	}
	return base, out, nil
}

// takesAny says whether f takes the key of any of choices.
func takesAny(f Figure, choices []Choice) bool {
	return slices.ContainsFunc(choices, func(c Choice) bool { return f.Takes(c.Key) })
}

// ChoicesOf is the choices whose keys are given (every choice when none
// are), in Choices' order; a key that is not a choice's is refused.
func ChoicesOf(keys []string) ([]Choice, error) {
	if len(keys) == 0 {
		return slices.Clone(Choices), nil
	}
	var all []string
	for _, c := range Choices {
		all = append(all, c.Key)
	}
	for _, k := range keys {
		if !slices.Contains(all, k) {
			if why := notSwept(k); why != "" {
				return nil, fmt.Errorf("%s is not swept: %s", k, why)
			}
			return nil, fmt.Errorf("%s is not one of the choices swept: %s", k, strings.Join(all, ", "))
		}
	}
	return slices.DeleteFunc(slices.Clone(Choices), func(c Choice) bool { return !slices.Contains(keys, c.Key) }), nil
}

// ReadChoiceRuns reads the runs WriteChoiceRuns wrote.
func ReadChoiceRuns(path string) ([]ChoiceRun, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var runs []ChoiceRun
	if err := dec.Decode(&runs); err != nil {
		return nil, fmt.Errorf("%s is not a choices' runs file (%w): give another, or remove it to start one", path, err)
	}
	return runs, nil
}

// WriteChoiceRuns writes the runs as JSON (`acemu reproduce choices
// --out DIR`'s DIR/choices.json).
func WriteChoiceRuns(path string, runs []ChoiceRun) error {
	js, err := json.MarshalIndent(runs, "", " ")
	if err != nil {
		return err
	}
	return outfile.Write(path, append(js, '\n'))
}

// MergeChoiceRuns puts the runs of later in place of earlier's of the
// same key and value, the rest of earlier kept, in Choices' order: the
// choices' sweep run in parts (by --keys), each part merged into one
// file. It refuses quick runs beside full-size ones, and a row that moved
// in a later run and in an earlier one it keeps with another default
// (its value at the defaults, or its finding's measure): the parts were
// then run by builds that simulate differently. Rows only one part moved
// are not compared, so parts that agree on these may still differ
// elsewhere.
func MergeChoiceRuns(earlier, later []ChoiceRun) ([]ChoiceRun, error) {
	for _, r := range append(slices.Clone(earlier), later...) {
		if len(later) > 0 && r.Quick != later[0].Quick {
			return nil, fmt.Errorf("it holds quick runs and full-size ones (%s=%s is %s): merge each size into its own file", r.Key, r.Value, sizeName(r.Quick))
		}
	}
	replaced := func(r ChoiceRun) bool {
		return slices.ContainsFunc(later, func(l ChoiceRun) bool { return l.Key == r.Key && l.Value == r.Value })
	}
	kept := slices.DeleteFunc(slices.Clone(earlier), replaced)
	type row struct{ figure, what string }
	defaults := map[row]string{}
	check := func(runs []ChoiceRun) error {
		for _, r := range runs {
			for _, m := range r.Moved {
				if m.Value.None == "not in the default run" {
					continue
				}
				d := fmt.Sprint(m.Value.Acemu)
				if m.Value.None != "" {
					d = "none (" + m.Value.None + ")"
				}
				k := row{m.Figure, m.Value.What}
				if had, ok := defaults[k]; ok && had != d {
					return fmt.Errorf("%s's %q is %s by default in one run and %s in another: the runs are not of one build's simulation; start a new file (remove it, or --into another) and run every key", m.Figure, m.Value.What, had, d)
				}
				defaults[k] = d
			}
			for _, f := range r.Flipped {
				k := row{f.Figure, "finding: " + f.Claim}
				if had, ok := defaults[k]; ok && had != f.DefaultMeasured {
					return fmt.Errorf("%s's finding %q measures %s by default in one run and %s in another: the runs are not of one build's simulation; start a new file (remove it, or --into another) and run every key", f.Figure, f.Claim, had, f.DefaultMeasured)
				}
				defaults[k] = f.DefaultMeasured
			}
		}
		return nil
	}
	if err := check(later); err != nil {
		return nil, err
	}
	if err := check(kept); err != nil {
		return nil, err
	}
	find := func(runs []ChoiceRun, key, value string) (ChoiceRun, bool) {
		i := slices.IndexFunc(runs, func(r ChoiceRun) bool { return r.Key == key && r.Value == value })
		if i < 0 {
			return ChoiceRun{}, false
		}
		return runs[i], true
	}
	var out []ChoiceRun
	for _, c := range Choices {
		for _, v := range c.Others {
			if r, ok := find(later, c.Key, v); ok {
				out = append(out, r)
			} else if r, ok := find(earlier, c.Key, v); ok {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// sizeName says which runs quick names.
func sizeName(quick bool) string {
	if quick {
		return "the quick subset's"
	}
	return "full-size"
}

// ChoiceDir is where, under the choices' sweep's directory, the runs of
// key set to value are kept: choices/KEY=VALUE, the pair path-escaped
// ("links.nvlink.bandwidth=20GB%2Fs").
func ChoiceDir(key, value string) string {
	return filepath.Join("choices", url.PathEscape(key+"="+value))
}

// compare records what moved between a figure's default outcome and the
// choice's, values matched by what they are and findings by their claim;
// a row only one of the two has counts as moved (its other side None,
// "not in this run").
func (cr *ChoiceRun) compare(def Result, o *Outcome) {
	others := map[string]Value{}
	for _, v := range o.Values {
		others[v.What] = v
	}
	for _, v := range def.Values {
		w, ok := others[v.What]
		if !ok {
			w = Value{What: v.What, None: "not in this run"}
		}
		if w.Acemu != v.Acemu || w.None != v.None {
			cr.Moved = append(cr.Moved, MovedValue{Figure: def.Figure.Name, Value: v, Other: w})
		}
		delete(others, v.What)
	}
	for _, v := range o.Values { // rows only the choice's run has, in its order
		if _, ok := others[v.What]; ok {
			cr.Moved = append(cr.Moved, MovedValue{Figure: def.Figure.Name, Value: Value{What: v.What, Unit: v.Unit, Paper: v.Paper, None: "not in the default run"}, Other: v})
		}
	}
	holds := map[string]Finding{}
	for _, f := range o.Findings {
		holds[f.Claim] = f
	}
	for _, f := range def.Findings {
		if g, ok := holds[f.Claim]; ok && g.Holds != f.Holds {
			cr.Flipped = append(cr.Flipped, FlippedFinding{Figure: def.Figure.Name, Claim: f.Claim, Default: f.Holds, Other: g.Holds, DefaultMeasured: f.Measured, OtherMeasured: g.Measured})
		}
	}
}

// WriteChoices writes what each choice does to the report's rows, as
// Markdown: per choice and value, its figures, the values it moved (with
// the paper's beside them) and the findings it turned. quick is whether
// the runs are the quick subset's, which the page says.
func WriteChoices(w io.Writer, choices []Choice, runs []ChoiceRun, quick bool) error {
	var b strings.Builder
	b.WriteString("# The model's choices against the report")
	if quick {
		b.WriteString(", on the quick subset\n")
	} else {
		b.WriteString("\n")
	}
	b.WriteString("\nEach [choice] where a paper is silent (docs/model-choices.md), set to another value, one at a time, with every figure whose runs take it run again: the rows it moves and the findings it turns.")
	if quick {
		fmt.Fprintf(&b, " These are the quick subset's runs (`acemu reproduce choices --quick`: small tori, docs/validation.md, \"The quick subset\"), so their rows are the quick report's, not the report's, and the paper's column is the paper's value for its own setup; %s is the same at the report's size.\n", ChoicesFullFile)
	} else {
		b.WriteString(" These are the report's runs at the papers' sizes (`acemu reproduce choices`), so the default's rows are docs/validation.md's.\n")
	}
	doc := map[string]string{}
	for _, c := range choices {
		doc[c.Key] = c.Doc
	}
	for _, r := range runs {
		figs := strings.Join(r.Figures, ", ")
		if figs == "" {
			figs = "none (no figure's runs take the key)"
		}
		if len(r.Refused) > 0 {
			figs += "; not run, as their systems, workloads or links do not read the key: " + strings.Join(r.Refused, ", ")
		}
		for _, u := range r.NotRun {
			figs += "; not run, as a system it runs refuses this value: " + u.Figure + " (" + u.Why + ")"
		}
		fmt.Fprintf(&b, "\n## %s = %s\n\n(The default: %s; why, %s; `--set %s=%s`.) Figures run: %s.\n", r.Key, r.Value, defaultOf(r.Key), doc[r.Key], r.Key, r.Value, figs)
		if len(r.Moved) == 0 && len(r.Flipped) == 0 {
			b.WriteString("\nNo row moved.\n")
			continue
		}
		if len(r.Moved) > 0 {
			b.WriteString("\n| figure | quantity | paper | default | this | this / default |\n|---|---|---|---|---|---|\n")
			for _, m := range r.Moved {
				ratio := "–"
				if m.Value.None == "" && m.Other.None == "" && m.Other.Acemu >= 0 && m.Value.Acemu > 0 && !printsZero(m.Value) {
					// A ratio with a negative value, or over a default
					// that prints as zero, says nothing.
					ratio = strconv.FormatFloat(m.Other.Acemu/m.Value.Acemu, 'f', 3, 64)
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", m.Figure, m.Value.What, withUnit(m.Value.Paper.Text, m.Value.Unit),
					acemuCell(m.Value), acemuCell(m.Other), ratio)
			}
		}
		if len(r.Flipped) > 0 {
			b.WriteString("\n| figure | finding | holds by default | holds with this |\n|---|---|---|---|\n")
			for _, f := range r.Flipped {
				fmt.Fprintf(&b, "| %s | %s | %s (%s) | %s (%s) |\n", f.Figure, f.Claim, yesNo(f.Default), f.DefaultMeasured, yesNo(f.Other), f.OtherMeasured)
			}
		}
	}
	var missing, missingKeys []string
	for _, c := range choices {
		for _, v := range c.Others {
			if !slices.ContainsFunc(runs, func(r ChoiceRun) bool { return r.Key == c.Key && r.Value == v }) {
				missing = append(missing, "`"+c.Key+"="+v+"`")
				if !slices.Contains(missingKeys, c.Key) {
					missingKeys = append(missingKeys, c.Key)
				}
			}
		}
	}
	if len(missing) > 0 {
		flag, file := "", ChoicesFullRuns
		if quick {
			flag, file = " --quick", ChoicesRuns
		}
		fmt.Fprintf(&b, "\n## Not run yet\n\nThe sweep is run in parts (`--keys`), each merged into the runs this page is written from; not yet run: %s. `acemu reproduce choices%s --keys %s --out DIR --into docs/validation/%s` runs them and merges them in (it refuses a part whose defaults differ where both parts moved a row: another build's simulation), and `go test ./validation -run TestCommittedChoices -update` writes the page again.\n",
			strings.Join(missing, ", "), flag, strings.Join(missingKeys, ","), file)
	}
	b.WriteString("\n## Not swept\n\n| key | why |\n|---|---|\n")
	keys := make([]string, 0, len(NotSwept))
	for k := range NotSwept {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "| `%s` | %s |\n", k, NotSwept[k])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// printsZero is whether acemu's value prints as zero in the report.
func printsZero(v Value) bool {
	x, err := strconv.ParseFloat(acemuDigits(v), 64)
	return err == nil && x == 0
}

// defaultOf is key's value on the default platform, as a platform file
// writes it.
func defaultOf(key string) string {
	q, ok := platform.Lookup(key)
	if !ok {
		return "(not a platform key)"
	}
	p := platform.Default()
	if q.Unset(&p) {
		return "unset, so " + q.Inherits + "'s `" + q.Effective(&p) + "`"
	}
	return "`" + q.Get(&p) + "`"
}

// notSwept is why key is left out of the choices' sweep ("" if it is not).
func notSwept(key string) string {
	for k, why := range NotSwept {
		if k == key || (strings.HasSuffix(k, "*") && strings.HasPrefix(key, strings.TrimSuffix(k, "*"))) {
			return why
		}
	}
	return ""
}
