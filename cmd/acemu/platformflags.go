package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/internal/limited"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// platformFlags are --config and --set: the platform configuration
// (docs/cli.md, "Platform configuration").
type platformFlags struct {
	config string
	sets   []string
}

func (pf *platformFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&pf.config, "config", "", "platform configuration file, YAML or JSON (acemu config dump writes one to start from)")
	fs.StringArrayVar(&pf.sets, "set", nil, "set one platform parameter, KEY=VALUE (e.g. --set ace.sram=8MiB; repeatable; acemu config dump lists the keys)")
}

// flagKeys maps the named flags to the platform parameters they set.
var flagKeys = map[string]string{
	"sram": "ace.sram", "fsms": "ace.fsms", "sram-port-bytes": "ace.port_bytes", "sram-ports": "ace.ports_per_bank",
	"partition": "ace.partition", "notice": "ace.notice", "prefetch": "ace.prefetch", "fsm-split": "ace.fsm_split",
	"ace-mem-bw": "ace.mem_bw", "iterations": "training.iterations", "priority": "training.priority",
	"memory-policy": "training.memory_policy", "chunk": "afi.chunk", "message": "afi.message",
	"compute": "training.compute", "batch": "training.batch",
	"policy": "training.issue_policy", "key-order": "training.key_order", "copy-bw": "training.copy", "fusion": "training.fusion",
}

// build is the platform of a run: the defaults, then the file, then each
// --set in order, then the named flags given on the command line.
func (pf platformFlags) build(fs *pflag.FlagSet) (platform.Platform, error) {
	return pf.buildWith(fs, flagKeys)
}

// buildWith is build with the named flags keys maps to parameters.
func (pf platformFlags) buildWith(fs *pflag.FlagSet, keys map[string]string) (platform.Platform, error) {
	p := platform.Default()
	if pf.config != "" {
		data, err := limited.ReadFile(pf.config, 1<<20, "a platform configuration is a few KB (acemu config dump writes one)")
		if err != nil {
			return p, fmt.Errorf("--config: %w", err)
		}
		if err := p.Load(pf.config, data); err != nil {
			return p, fmt.Errorf("--config %w", err)
		}
	}
	for _, s := range pf.sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return p, fmt.Errorf("--set %q: give KEY=VALUE, e.g. --set ace.sram=8MiB", s)
		}
		if err := p.Set(strings.TrimSpace(k), v); err != nil {
			return p, fmt.Errorf("--set: %w", err)
		}
	}
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if key, ok := keys[f.Name]; ok && err == nil {
			if e := p.Set(key, f.Value.String()); e != nil {
				err = fmt.Errorf("--%s: %w", f.Name, e)
			}
		}
	})
	if err != nil {
		return p, err
	}
	if err := p.Validate(); err != nil {
		return p, err
	}
	return p, nil
}

// given says where a platform parameter's value came from, in the order
// build applies them (the named flags keys maps, then the last --set of
// it, then --config), for messages about the value: "--batch 4",
// "--set training.batch=4", "training.batch: 4 in --config p.yaml".
func (pf platformFlags) given(fs *pflag.FlagSet, keys map[string]string) workload.Given {
	return func(key, value string) string {
		for name, k := range keys {
			if k == key && fs.Changed(name) {
				return "--" + name + " " + value
			}
		}
		for i := len(pf.sets) - 1; i >= 0; i-- {
			if k, _, ok := strings.Cut(pf.sets[i], "="); ok && strings.TrimSpace(k) == key {
				return "--set " + key + "=" + value
			}
		}
		if pf.config != "" {
			return key + ": " + value + " in --config " + pf.config
		}
		return key + "=" + value + " (the default)"
	}
}

// defaultOf is a parameter's default as the file writes it, for a flag's
// help.
func defaultOf(key string) string {
	q, _ := platform.Lookup(key)
	d := platform.Default()
	return q.Get(&d)
}

const configUsage = `Usage: acemu config dump [--config FILE] [--set KEY=VALUE ...]

Print the platform configuration: every parameter with its value, unit and
source (the ACE paper's table or section, or a [choice] and its docs/ page),
in the format --config reads (YAML; JSON is read too). With --config and
--set, the configuration they make. Edit a dump and pass it back with
--config FILE to any command that takes it.

Flags:
`

// runConfig is `acemu config dump`.
func runConfig(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("config", pflag.ContinueOnError)
	format := fs.String("format", "yaml", "output: yaml (the file --config reads), or "+formats+" (JSON is read by --config too)")
	var wide bool
	registerWide(fs, &wide)
	var pf platformFlags
	pf.register(fs)
	fs.Usage = func() { fmt.Fprintf(fs.Output(), "%s%s", configUsage, fs.FlagUsages()) }
	if done, code := parseDump(fs, args, "acemu config dump > platform.yaml", configUsage, stdout, stderr); done {
		return code
	}
	p, err := pf.build(fs)
	if err != nil {
		fmt.Fprintf(stderr, "acemu config: %v\n", err)
		return 1
	}
	if err := checkFormat(*format, "yaml"); err != nil {
		fmt.Fprintf(stderr, "acemu config: %v\n", err)
		return 1
	}
	if *format != "yaml" {
		res := configResult(p)
		res.wide = wide
		if err := res.write(stdout, *format); err != nil {
			fmt.Fprintf(stderr, "acemu config: %v\n", err)
			return 1
		}
		return 0
	}
	b, err := p.Dump()
	if err != nil {
		fmt.Fprintf(stderr, "acemu config: %v\n", err)
		return 1
	}
	_, _ = stdout.Write(b)
	return 0
}

// configResult is the platform as a table (key, value, unit, source) and
// as JSON, one object per section as in the YAML file, which --config
// reads too.
func configResult(p platform.Platform) result {
	res := result{header: []string{"key", "value", "unit", "source"}}
	doc := map[string]any{}
	for _, q := range platform.Params() {
		if q.Unset(&p) {
			continue
		}
		v := q.Get(&p)
		res.rows = append(res.rows, []string{q.Key, v, q.Unit, q.Source})
		parts := strings.Split(q.Key, ".")
		m := doc
		for _, part := range parts[:len(parts)-1] {
			sub, ok := m[part].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[part] = sub
			}
			m = sub
		}
		m[parts[len(parts)-1]] = v
	}
	res.doc = doc
	return res
}

// unusedParams fails when p sets any parameter under the given prefixes away
// from its default: the command does not use it, so it would be silently
// ignored.
func unusedParams(p platform.Platform, what string, prefixes ...string) error {
	d := platform.Default()
	for _, q := range platform.Params() {
		for _, pre := range prefixes {
			if strings.HasPrefix(q.Key, pre) && q.Get(&p) != q.Get(&d) {
				return fmt.Errorf("%s = %s: %s does not use it; drop it", q.Key, q.Get(&p), what)
			}
		}
	}
	return nil
}

// unusedAlgorithms refuses an algorithm set by collectives.KEY on a
// command (acemu collective, acemu microcode) that runs one collective
// with the algorithm --algorithm names: the key would change nothing.
func unusedAlgorithms(p platform.Platform, command string) error {
	d := platform.Default()
	for _, q := range platform.Params() {
		if v := q.Get(&p); strings.HasPrefix(q.Key, "collectives.") && v != q.Get(&d) {
			return fmt.Errorf("%s = %s: %s runs its collective with the algorithm --algorithm names (default: %s), not the platform's, so it would change nothing; give --algorithm %s instead",
				q.Key, v, command, q.Get(&d), v)
		}
	}
	return nil
}

// unusedByRun refuses a parameter p sets away from its default that the
// comparison u does not read (compare.Uses.Unused), naming it as given
// says it was given.
func unusedByRun(p platform.Platform, u compare.Uses, given workload.Given) error {
	d := platform.Default()
	for _, q := range platform.Params() {
		v := q.Get(&p)
		if v == q.Get(&d) {
			continue
		}
		if why := u.Unused(q.Key); why != "" {
			return fmt.Errorf("%s: %s, so it would change nothing; drop it", given(q.Key, v), why)
		}
	}
	return nil
}

// unusedMemBoundShare refuses training.mem_bound_share on a workload none
// of whose passes is timed: the share says how much of a timed pass's time
// is memory-bound, and a workload of FLOPs and bytes (the roofline) has no
// such time (docs/astrasim-workloads.md).
func unusedMemBoundShare(p platform.Platform, w *workload.Workload) error {
	if p.MemBoundShare == nil || w.Timed() {
		return nil
	}
	return fmt.Errorf("training.mem_bound_share = %s: workload %s gives no pass a time (its compute is FLOPs and bytes on the roofline), and the share applies to timed compute only, so it would change nothing; drop it", paramText(p, "training.mem_bound_share"), w.Name)
}

// unusedMicro refuses training.micro other than its default on a workload
// that is not MICRO, where it would change nothing (docs/parallelism.md).
func unusedMicro(p platform.Platform, w *workload.Workload) error {
	if p.Micro == platform.Default().Micro || w.Parallelism == workload.ParallelismMicro {
		return nil
	}
	return fmt.Errorf("training.micro = %s: workload %s is %s, not MICRO, and the mode says only how a MICRO workload issues its collectives, so it would change nothing; drop it", paramText(p, "training.micro"), w.Name, w.Parallelism)
}

// issueKeys are the parameters of how the training loop issues and fuses
// data parallelism's weight-gradient all-reduces (docs/training-loop.md,
// "Issue policies", "Tensor fusion").
var issueKeys = []string{"training.issue_policy", "training.key_order", "training.copy", "training.fusion"}

// changedIssueKeys returns the issue keys p sets otherwise than the
// defaults, as "key = value".
func changedIssueKeys(p platform.Platform) []string {
	d := platform.Default()
	var out []string
	for _, k := range issueKeys {
		if v := paramText(p, k); v != paramText(d, k) {
			out = append(out, k+" = "+v)
		}
	}
	return out
}

// unusedIssue refuses an issue policy, key order, copy rate or fusion that
// would change nothing beyond what compare.Uses.Unused finds (no
// overlapping system, no data-parallel weight-gradient all-reduce; run
// before it): LIBRA's systems alone, fusion that fuses nothing, a one-shot
// schedule (which fuses them all), and what train.IssuePolicy.Check
// refuses (a key order or copies without a keyed policy).
func unusedIssue(p platform.Platform, ss []systems.System, w *workload.Workload, sched train.Schedule) error {
	set := changedIssueKeys(p)
	if len(set) == 0 {
		return nil
	}
	what := strings.Join(set, ", ")
	switch {
	case slices.ContainsFunc(ss, func(s systems.System) bool { return s.Libra != systems.LibraNone }) &&
		!slices.ContainsFunc(ss, func(s systems.System) bool { return s.Overlap && s.Libra == systems.LibraNone }) &&
		(len(set) > 1 || !p.Fusion.On() || !slices.ContainsFunc(ss, func(s systems.System) bool { return s.Libra == systems.LibraAllocate })):
		return fmt.Errorf("%s: LIBRA's systems issue their all-reduces by their own plan (chained in their groups; baseline-libra takes only the fusion, as its fixed plan: docs/libra.md), and no other system in --systems overlaps communication with compute; add one or drop it", what)
	case p.Fusion.On() && fusesNothing(w, p.Fusion):
		return fmt.Errorf("training.fusion = %s: every bucket holds one layer's all-reduce, as without fusion, so it would change nothing; give a bucket size above the smallest layer's weight gradients, or drop it", paramText(p, "training.fusion"))
	case sched.OneShot():
		return fmt.Errorf("%s: --schedule %s already fuses every weight-gradient all-reduce into one, issued at the end of back-prop; drop it or use --schedule %s", what, sched, train.ScheduleLayerwise)
	}
	if err := p.Issue.Check(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// fusesNothing reports whether fusion f leaves every weight-gradient
// all-reduce of w in a bucket of its own.
func fusesNothing(w *workload.Workload, f train.Fusion) bool {
	buckets, err := train.WtGradBuckets(w, f)
	return err == nil && !slices.ContainsFunc(buckets, func(b train.Bucket) bool { return len(b.Layers) > 1 })
}

// unusedLinkKeys refuses a link key the platform sets (links.CLASS.bandwidth
// or .latency) that no link of a topology file reads: its links give their
// own bandwidth and latency, or are of other classes (docs/topology.md,
// "Switches, link classes and lanes").
func unusedLinkKeys(p platform.Platform, spec *topology.Spec, topo string) error {
	if spec.ReadsLinkKey == nil {
		return unusedMachineLinkKeys(p, spec, topo)
	}
	d := platform.Default()
	byKey := map[string]platform.Param{}
	for _, q := range platform.Params() {
		byKey[q.Key] = q
	}
	follows := func(key string) bool {
		q, ok := byKey[key]
		return ok && q.Unset(&p)
	}
	for _, q := range platform.Params() {
		if !strings.HasPrefix(q.Key, "links.") || q.Unset(&p) || q.Get(&p) == q.Get(&d) {
			continue
		}
		if !spec.ReadsLinkKey(q.Key, follows) {
			return fmt.Errorf("%s = %s: no link of the topology file %s takes it (its links give their own bandwidth and latency, or are of other classes), so it would change nothing; drop it, or give the links that should follow it class %s and no value of their own",
				q.Key, q.Get(&p), topo, strings.Split(q.Key, ".")[1])
		}
	}
	return nil
}

// unusedMachineLinkKeys refuses a link key of a class (links.CLASS.bandwidth
// or .latency) that p sets and that no link of a built-in machine takes
// (compare.ReadsLinkKey).
func unusedMachineLinkKeys(p platform.Platform, spec *topology.Spec, topo string) error {
	d := platform.Default()
	for _, q := range platform.Params() {
		if !compare.IsClassLinkKey(q.Key) || q.Unset(&p) || q.Inherits == "" && q.Get(&p) == q.Get(&d) {
			continue
		}
		if !compare.ReadsLinkKey(p, spec, q.Key) {
			class := strings.Split(q.Key, ".")[1]
			if compare.HasLinkClass(p, spec, class) {
				return fmt.Errorf("%s = %s: the links of %s of class %s have that value without it, so it would change nothing; drop it",
					q.Key, q.Get(&p), topo, class)
			}
			return fmt.Errorf("%s = %s: no link of %s is of class %s, so it would change nothing; drop it",
				q.Key, q.Get(&p), topo, class)
		}
	}
	return nil
}

// paramText is the value of key in p as acemu config dump writes it.
func paramText(p platform.Platform, key string) string {
	for _, q := range platform.Params() {
		if q.Key == key {
			return q.Get(&p)
		}
	}
	return ""
}

// parseDump parses the flags of a command whose one verb is dump (config,
// topology), naming an example when the verb is missing.
func parseDump(fs *pflag.FlagSet, args []string, example, usage string, stdout, stderr io.Writer) (done bool, code int) {
	if len(args) > 0 && args[0] == "dump" {
		args = args[1:]
	} else if len(args) == 0 || (args[0] != "-h" && args[0] != "--help") {
		fmt.Fprintf(stderr, "acemu %s: say dump, e.g. %s\n\n%s%s", fs.Name(), example, usage, fs.FlagUsages())
		return true, 2
	}
	return parseFlags(fs, args, stdout, stderr)
}
