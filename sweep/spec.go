// Package sweep runs the comparator over a grid of design points: any
// platform parameter as an axis (a list or a range), workloads and
// topologies, every point with the same systems (docs/sweeps.md). Points
// are numbered in a fixed order, so that a sweep can be cut into shards
// (Shard) that run anywhere, kept on disk point by point (Options.Dir), and
// merged (Merge) into exactly what one run gives.
package sweep

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/internal/limited"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/units"
	"github.com/acemu/acemu/workload"
)

// MaxPoints bounds a sweep's grid: a grid beyond it is almost surely a
// mistake (a range with a tiny step), and its point list alone would take
// memory before anything runs.
const MaxPoints = 100_000

// maxRange bounds the values one range gives, for the same reason.
const maxRange = 10_000

// Setting is one parameter's value, as the configuration file writes it.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Axis is a parameter and the values a sweep gives it, each written as the
// configuration file writes it.
type Axis struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// Spec is a whole sweep: the platform every point starts from, the
// parameter axes, and the workloads, topologies and systems. Two runs of
// the same Spec give the same points in the same order.
type Spec struct {
	// Base is every parameter's value before the axes apply (an
	// inheriting one only when set), in the configuration file's order.
	Base []Setting `json:"base"`
	Axes []Axis    `json:"axes"`
	// Workloads are built-in names or ASTRA-sim files; Topologies torus
	// shapes LxVxH; Systems Table VI's systems by name.
	Workloads []string `json:"workloads"`
	// WorkloadFiles is, per workload, the SHA-256 of its file's content
	// ("" for a built-in): a file edited between runs, or different on
	// two machines, is another sweep.
	WorkloadFiles []string `json:"workload_files"`
	Topologies    []string `json:"topologies"`
	Systems       []string `json:"systems"`
	// Reference is the point the aggregate is normalised to: one value per
	// axis, in the axes' order.
	Reference []string `json:"reference"`
	// loaded holds the workloads New read, by name, for Run (a Spec read
	// back from disk has none, and Run loads them).
	loaded map[string]*workload.Workload
}

// Request is what a user asks for, before it is checked: the platform
// (defaults, --config and the fixed --set values), then each --set in
// order (KEY=VALUE, KEY=V1,V2,... or a range), the lists, and the
// reference (KEY=VALUE each; unset axes take the base value).
type Request struct {
	Base       platform.Platform
	Sets       []string
	Workloads  []string
	Topologies []string
	Systems    []string
	Reference  []string
	// Names name the lists in errors (the flag or file they came from);
	// empty: --workload, --topo, --systems. SetsFrom names where each of
	// Sets came from ("--file NAME:LINE: set"); one missing or empty is
	// --set.
	Names struct {
		Workloads, Topologies, Systems string
		SetsFrom                       []string
	}
}

// New checks a request and returns its sweep: every value parsed and
// checked by its parameter and written in its canonical form, every point's
// platform valid, the grid within MaxPoints.
func New(r Request) (*Spec, error) {
	base := r.Base
	type axisIn struct {
		key  string
		expr string
		from string // where it came from: --set or the sweep file's line
	}
	var axes []axisIn
	seen := map[string]string{}
	for i, s := range r.Sets {
		from := "--set"
		if i < len(r.Names.SetsFrom) && r.Names.SetsFrom[i] != "" {
			from = r.Names.SetsFrom[i]
		}
		k, v, ok := strings.Cut(s, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s %q: give KEY=VALUE, KEY=V1,V2,... or KEY=FROM..TO:STEP (e.g. ace.fsms=4..20:4)", from, s)
		}
		if _, ok := platform.Lookup(k); !ok {
			return nil, fmt.Errorf("%s %s: %w", from, k, base.Set(k, v))
		}
		if first, ok := seen[k]; ok {
			return nil, fmt.Errorf("%s %s: given twice (%s and %s); give one list or range per parameter", from, k, first, from)
		}
		seen[k] = from
		if strings.Contains(v, ",") || strings.Contains(v, "..") {
			axes = append(axes, axisIn{k, v, from})
			continue
		}
		if err := base.Set(k, v); err != nil {
			return nil, fmt.Errorf("%s: %w", from, err)
		}
	}
	s := &Spec{}
	for _, q := range platform.Params() {
		if !q.Unset(&base) {
			s.Base = append(s.Base, Setting{q.Key, q.Get(&base)})
		}
	}
	for _, a := range axes {
		vals, err := axisValues(base, a.key, a.expr)
		if err != nil {
			return nil, fmt.Errorf("%s %s=%s: %w", a.from, a.key, a.expr, err)
		}
		s.Axes = append(s.Axes, Axis{a.key, vals})
	}
	var err error
	s.loaded = map[string]*workload.Workload{}
	hashes := map[string]string{}
	if s.Workloads, err = list(cmp.Or(r.Names.Workloads, "--workload"), r.Workloads, func(w string) (string, error) {
		wl, h, err := loadWorkload(w)
		if err != nil {
			return "", err
		}
		s.loaded[w], hashes[w] = wl, h
		return w, nil
	}); err != nil {
		return nil, err
	}
	for _, w := range s.Workloads {
		s.WorkloadFiles = append(s.WorkloadFiles, hashes[w])
	}
	if s.Topologies, err = list(cmp.Or(r.Names.Topologies, "--topo"), r.Topologies, func(t string) (string, error) {
		return machineName(t)
	}); err != nil {
		return nil, err
	}
	var ss []systems.System
	if s.Systems, err = list(cmp.Or(r.Names.Systems, "--systems"), r.Systems, func(n string) (string, error) {
		sys, err := compare.PlatformSystems([]string{n}, base)
		if err != nil {
			return "", err
		}
		ss = append(ss, sys[0])
		return n, nil
	}); err != nil {
		return nil, err
	}
	if err := s.unused(ss, cmp.Or(r.Names.Systems, "--systems")); err != nil {
		return nil, err
	}
	if err := s.setReference(r.Reference); err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}

// unused refuses a parameter, fixed or an axis, that no run of the sweep
// reads, so that no sweep varies what cannot change its results: ACE's
// (ace.*) when the systems (named by what) include no ACE, the
// memory-bound share of timed compute when no workload has a timed pass,
// and what compare.Uses.Unused names (the baseline's library without a
// baseline, an algorithm of a collective no workload issues, the compute
// regime and batch of built-in workloads with none among the workloads);
// a batch with the paper's compute, which has none, too.
func (s *Spec) unused(ss []systems.System, what string) error {
	withACE := slices.ContainsFunc(ss, func(sys systems.System) bool { return sys.Kind == systems.ACE })
	// A built-in workload's compute follows training.compute: timed when
	// it takes the paper's times. With that an axis, count it as timed.
	regimeAxis := slices.ContainsFunc(s.Axes, func(a Axis) bool { return a.Key == "training.compute" || a.Key == "training.batch" })
	timed, micro := false, false
	uses := compare.Uses{Systems: ss}
	for _, name := range s.Workloads {
		w := s.loaded[name]
		uses.Workloads = append(uses.Workloads, w)
		if slices.Contains(workload.BuiltinNames(), name) {
			uses.Builtin = true
			// Every regime it may run in issues its collectives.
			for _, c := range workload.ComputeSources() {
				if rw, err := workload.Resolve(name, c, 0); err == nil {
					uses.Workloads = append(uses.Workloads, rw)
				}
			}
			if regimeAxis {
				timed = true
				continue
			}
			if bw, err := compare.PlatformWorkload(s.basePlatform(), name); err == nil {
				w = bw
			}
		}
		timed = timed || w.Timed()
		micro = micro || w.Parallelism == workload.ParallelismMicro
	}
	keys := []string{}
	d := platform.Default()
	for _, b := range s.Base {
		if q, ok := platform.Lookup(b.Key); ok && b.Value != q.Get(&d) {
			keys = append(keys, b.Key)
		}
	}
	for _, a := range s.Axes {
		keys = append(keys, a.Key)
	}
	for _, k := range keys {
		role := "is set"
		if slices.ContainsFunc(s.Axes, func(a Axis) bool { return a.Key == k }) {
			role = "is an axis of the sweep"
		}
		switch {
		case strings.HasPrefix(k, "ace.") && !withACE:
			return noEffect("%s %s, but the systems (%s: %s) include no ACE, so it would change nothing; add ace to the systems or drop it", k, role, what, strings.Join(s.Systems, ","))
		case k == "training.mem_bound_share" && !timed:
			return noEffect("%s %s, but no workload of the sweep (%s) gives a pass a time, and the share applies to timed compute only, so it would change nothing; drop it", k, role, strings.Join(s.Workloads, ","))
		case k == "training.micro" && !micro:
			return noEffect("%s %s, but no workload of the sweep (%s) is MICRO, and the mode says only how a MICRO workload issues its collectives, so it would change nothing; drop it", k, role, strings.Join(s.Workloads, ","))
		}
		if why := uses.Unused(k); why != "" {
			return noEffect("%s %s, but %s, so it would change nothing; drop it", k, role, why)
		}
		if compare.IsClassLinkKey(k) && !s.readsLinkKey(k) {
			class := strings.Split(k, ".")[1]
			if s.hasLinkClass(class) {
				return noEffect("%s %s, but the links of the topologies (%s) of class %s have that value without it, so it would change nothing; drop it", k, role, strings.Join(s.Topologies, ","), class)
			}
			return noEffect("%s %s, but no link of the topologies (%s) is of class %s, so it would change nothing; drop it", k, role, strings.Join(s.Topologies, ","), class)
		}
		if k == "training.batch" && s.paperCompute() {
			return fmt.Errorf("%s %s, but training.compute is paper, whose times are of one batch (docs/workloads.md, \"Compute regimes\"), so every point would fail; drop it, or set training.compute=roofline", k, role)
		}
	}
	return nil
}

// readsLinkKey reports whether a link of some topology of the sweep takes
// the link class key (compare.ReadsLinkKey): with its fixed value, or with
// the first two values of its axis (distinct values, so that one of them
// differs from what the links take without it).
// hasLinkClass reports whether a link of the sweep's topologies, built
// with its base platform, is of class.
func (s *Spec) hasLinkClass(class string) bool {
	for _, t := range s.Topologies {
		if spec, err := topology.Parse(t); err == nil && compare.HasLinkClass(s.basePlatform(), spec, class) {
			return true
		}
	}
	return false
}

func (s *Spec) readsLinkKey(key string) bool {
	var ps []platform.Platform
	base := s.basePlatform()
	for _, a := range s.Axes {
		if a.Key != key {
			continue
		}
		for _, v := range a.Values[:min(2, len(a.Values))] {
			p := base
			if err := p.Set(key, v); err != nil {
				return true // check reports it
			}
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		ps = append(ps, base)
	}
	for _, t := range s.Topologies {
		spec, err := topology.Parse(t)
		if err != nil {
			return true
		}
		for _, p := range ps {
			if compare.ReadsLinkKey(p, spec, key) {
				return true
			}
		}
	}
	return false
}

// paperCompute reports whether every point takes the paper's compute
// (training.compute = paper, not an axis), which has no batch.
func (s *Spec) paperCompute() bool {
	return s.basePlatform().Compute == workload.ComputePaper && !slices.ContainsFunc(s.Axes, func(a Axis) bool { return a.Key == "training.compute" })
}

// loadWorkload loads workload w (workload.Load) and returns the SHA-256
// of its file's content ("" for a built-in workload), hashing and parsing
// the same bytes, read once.
func loadWorkload(w string) (*workload.Workload, string, error) {
	if _, err := os.Stat(w); err != nil || slices.Contains(workload.BuiltinNames(), w) {
		wl, err := workload.Load(w) // a built-in, or Load's error for what is neither
		return wl, "", err
	}
	b, err := limited.ReadFile(w, maxWorkloadFile, "a workload file of 10000 layers is far smaller")
	if err != nil {
		return nil, "", err
	}
	wl, err := workload.ParseAstraSim(bytes.NewReader(b), w)
	if err != nil {
		return nil, "", err
	}
	return wl, fmt.Sprintf("%x", sha256.Sum256(b)), nil
}

// maxWorkloadFile bounds a workload file read.
const maxWorkloadFile = 64 << 20

// check checks a spec, built (New) or read from disk (sweep.json): every
// list and axis filled, the reference on the axes, the grid within
// MaxPoints, the base values readable, every combination's platform
// valid.
func (s *Spec) check() error {
	if len(s.Workloads) == 0 || len(s.Topologies) == 0 || len(s.Systems) == 0 {
		return fmt.Errorf("no workloads, topologies or systems")
	}
	if len(s.WorkloadFiles) != len(s.Workloads) {
		return fmt.Errorf("%d workload file hashes for %d workloads", len(s.WorkloadFiles), len(s.Workloads))
	}
	if len(s.Reference) != len(s.Axes) {
		return fmt.Errorf("%d reference values for %d axes", len(s.Reference), len(s.Axes))
	}
	n := int64(len(s.Workloads) * len(s.Topologies))
	for i, a := range s.Axes {
		if len(a.Values) == 0 || !slices.Contains(a.Values, s.Reference[i]) {
			return fmt.Errorf("axis %s: no values, or the reference %s is not among them", a.Key, s.Reference[i])
		}
		if n *= int64(len(a.Values)); n > MaxPoints {
			return fmt.Errorf("the grid has more than %d points; sweep fewer values (or cut it into several sweeps)", MaxPoints)
		}
	}
	if _, err := s.base(); err != nil {
		return err
	}
	return s.checkPlatforms()
}

// list checks and canonicalises a comma-separated list flag: no empty
// entry, no repeat, at least one entry.
func list(flag string, in []string, canon func(string) (string, error)) ([]string, error) {
	var out []string
	for _, e := range in {
		e = strings.TrimSpace(e)
		if e == "" {
			return nil, fmt.Errorf("%s: an empty entry; separate entries by single commas", flag)
		}
		c, err := canon(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		if slices.Contains(out, c) {
			return nil, fmt.Errorf("%s: %s given twice", flag, e)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: empty; give at least one", flag)
	}
	return out, nil
}

// axisValues reads an axis: a list (V1,V2,...) or a range (FROM..TO:STEP
// or FROM..TO:xF), each value checked by the parameter and written in its
// canonical form.
func axisValues(base platform.Platform, key, expr string) ([]string, error) {
	var raw []string
	if strings.Contains(expr, "..") {
		r, err := rangeValues(key, expr)
		if err != nil {
			return nil, err
		}
		raw = r
	} else {
		raw = strings.Split(expr, ",")
	}
	var out []string
	for _, v := range raw {
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, fmt.Errorf("an empty value; separate values by single commas")
		}
		p := base
		if err := p.Set(key, v); err != nil {
			return nil, err
		}
		q, _ := platform.Lookup(key)
		c := q.Get(&p)
		if slices.Contains(out, c) {
			return nil, fmt.Errorf("%s given twice (as %s)", v, c)
		}
		out = append(out, c)
	}
	if len(out) < 1 {
		return nil, fmt.Errorf("no values")
	}
	return out, nil
}

// numeric reads and writes a parameter's numbers for a range: sizes in
// bytes, bandwidths in GB/s, other numbers as they are.
type numeric struct {
	parse  func(string) (*big.Rat, error)
	format func(*big.Rat) (string, error)
}

func numericOf(key string) (numeric, error) {
	q, _ := platform.Lookup(key)
	switch q.Unit {
	case "bytes":
		return numeric{func(s string) (*big.Rat, error) {
			n, err := units.ParseSize(s)
			if err != nil {
				return nil, err
			}
			return big.NewRat(n, 1), nil
		}, func(r *big.Rat) (string, error) {
			if !r.IsInt() {
				return "", fmt.Errorf("%s bytes is not a whole number of bytes", r.RatString())
			}
			return units.FormatSize(r.Num().Int64()), nil
		}}, nil
	case "GB/s":
		return numeric{units.ParseBandwidth, func(r *big.Rat) (string, error) { return units.FormatBandwidth(r), nil }}, nil
	case "rule", "policy":
		return numeric{}, fmt.Errorf("%s takes names, not numbers: list them (e.g. %s=%s)", key, key, q.Default)
	}
	return numeric{decimalRat, func(r *big.Rat) (string, error) {
		if r.IsInt() {
			return r.Num().String(), nil
		}
		return r.RatString(), nil
	}}, nil
}

// decimalFraction is a number with a decimal point, as a range of a
// parameter that is not a size or a bandwidth may be written (0.5).
var decimalFraction = regexp.MustCompile(`^-?(0|[1-9][0-9]*)\.[0-9]+$`)

// decimalRat reads a range's number as written: a whole number
// (units.ParseInt: no base prefix, underscore or leading zero) or one with
// a decimal point, exactly.
func decimalRat(s string) (*big.Rat, error) {
	t := strings.TrimSpace(s)
	n, err := units.ParseInt(t)
	if err == nil {
		return big.NewRat(n, 1), nil
	}
	if !decimalFraction.MatchString(t) {
		return nil, err
	}
	r, ok := new(big.Rat).SetString(t)
	if !ok {
		return nil, fmt.Errorf("%q is not a number", s)
	}
	return r, nil
}

// rangeValues expands FROM..TO:STEP (adding STEP) or FROM..TO:xF
// (multiplying by F) while the value is at most TO.
func rangeValues(key, expr string) ([]string, error) {
	from, rest, _ := strings.Cut(expr, "..")
	to, step, ok := strings.Cut(rest, ":")
	if !ok || strings.Contains(rest, "..") {
		return nil, fmt.Errorf("a range is FROM..TO:STEP or FROM..TO:xFACTOR (e.g. 4..20:4, 1MiB..8MiB:x2)")
	}
	num, err := numericOf(key)
	if err != nil {
		return nil, err
	}
	lo, err := num.parse(from)
	if err != nil {
		return nil, fmt.Errorf("range start: %w", err)
	}
	hi, err := num.parse(to)
	if err != nil {
		return nil, fmt.Errorf("range end: %w", err)
	}
	if lo.Cmp(hi) > 0 {
		return nil, fmt.Errorf("the range starts above its end; give FROM ≤ TO")
	}
	step = strings.TrimSpace(step)
	var next func(*big.Rat) *big.Rat
	if f, ok := strings.CutPrefix(step, "x"); ok {
		k, err := decimalRat(f)
		if err == nil && k.Cmp(big.NewRat(1, 1)) <= 0 {
			err = fmt.Errorf("not above 1")
		}
		if err != nil {
			return nil, fmt.Errorf("factor %q: give a number above 1 (e.g. x2): %w", f, err)
		}
		if lo.Sign() <= 0 {
			return nil, fmt.Errorf("a geometric range needs a positive start")
		}
		next = func(r *big.Rat) *big.Rat { return new(big.Rat).Mul(r, k) }
	} else {
		d, err := num.parse(step)
		if err != nil {
			return nil, fmt.Errorf("range step: %w", err)
		}
		if d.Sign() <= 0 {
			return nil, fmt.Errorf("range step %q: give a positive step", step)
		}
		next = func(r *big.Rat) *big.Rat { return new(big.Rat).Add(r, d) }
	}
	var out []string
	for v := lo; v.Cmp(hi) <= 0; v = next(v) {
		if len(out) == maxRange {
			return nil, fmt.Errorf("more than %d values; use a larger step", maxRange)
		}
		// Exact steps of a fraction can grow the numbers without end
		// (x1.0001 to the 10000th power has 40000 digits).
		if v.Denom().BitLen() > 64 || v.Num().BitLen() > 128 {
			return nil, fmt.Errorf("value %d of the range is no longer a short exact number; use a step or factor whose powers stay short (e.g. x2, x1.5)", len(out)+1)
		}
		s, err := num.format(v)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// setReference fixes the reference point: each axis at the value the
// request names, or else at the base value; it must be on the axis.
func (s *Spec) setReference(ref []string) error {
	want := map[string]string{}
	for _, r := range ref {
		k, v, ok := strings.Cut(r, "=")
		k = strings.TrimSpace(k)
		if !ok {
			return fmt.Errorf("--reference %q: give KEY=VALUE, e.g. --reference ace.sram=4MiB", r)
		}
		if !slices.ContainsFunc(s.Axes, func(a Axis) bool { return a.Key == k }) {
			return fmt.Errorf("--reference %s: not an axis of the sweep (the axes are %s)", k, s.axisKeys())
		}
		if _, ok := want[k]; ok {
			return fmt.Errorf("--reference %s: given twice; give one value per axis", k)
		}
		want[k] = strings.TrimSpace(v)
	}
	s.Reference = nil
	for _, a := range s.Axes {
		p := s.basePlatform()
		q, _ := platform.Lookup(a.Key)
		v := q.Effective(&p)
		if w, ok := want[a.Key]; ok {
			if err := p.Set(a.Key, w); err != nil {
				return fmt.Errorf("--reference: %w", err)
			}
			v = q.Get(&p)
		}
		if !slices.Contains(a.Values, v) {
			return fmt.Errorf("the reference point has %s = %s, which is not on the axis (%s); add it to the axis or name another with --reference %s=VALUE",
				a.Key, v, strings.Join(a.Values, ","), a.Key)
		}
		s.Reference = append(s.Reference, v)
	}
	return nil
}

func (s *Spec) axisKeys() string {
	if len(s.Axes) == 0 {
		return "none"
	}
	var ks []string
	for _, a := range s.Axes {
		ks = append(ks, a.Key)
	}
	return strings.Join(ks, ", ")
}

// base returns the platform of Base, or the first setting it refuses.
func (s *Spec) base() (platform.Platform, error) {
	p := platform.Default()
	for _, b := range s.Base {
		if err := p.Set(b.Key, b.Value); err != nil {
			return p, err
		}
	}
	return p, nil
}

// basePlatform is the platform of Base, which check has checked.
func (s *Spec) basePlatform() platform.Platform {
	p, err := s.base()
	if err != nil {
		panic("sweep: " + err.Error()) // New or check checked it
	}
	return p
}

// fingerprint identifies the sweep in each point's file: the SHA-256 of
// its canonical JSON.
func (s *Spec) fingerprint() string { return fmt.Sprintf("%x", sha256.Sum256(s.encode())) }

// Platform is the platform of the parameter combination vals (one value
// per axis).
// BasePlatform is the platform every point starts from, before the axes.
func (s *Spec) BasePlatform() platform.Platform { return s.basePlatform() }

func (s *Spec) Platform(vals []string) (platform.Platform, error) {
	p := s.basePlatform()
	for i, a := range s.Axes {
		if err := p.Set(a.Key, vals[i]); err != nil {
			return p, err
		}
	}
	return p, p.Validate()
}

// Combinations is the number of parameter combinations (1 with no axes).
func (s *Spec) Combinations() int {
	n := 1
	for _, a := range s.Axes {
		n *= len(a.Values)
	}
	return n
}

// Len is the number of points.
func (s *Spec) Len() int { return s.Combinations() * len(s.Workloads) * len(s.Topologies) }

// Point is one point of the grid.
type Point struct {
	Index    int
	Values   []string // one per axis
	Workload string
	Topology string
}

// Point returns point i: axes in order, then workloads, then topologies,
// the last varying fastest.
func (s *Spec) Point(i int) Point {
	pt := Point{Index: i, Values: make([]string, len(s.Axes))}
	nt, nw := len(s.Topologies), len(s.Workloads)
	pt.Topology = s.Topologies[i%nt]
	i /= nt
	pt.Workload = s.Workloads[i%nw]
	i /= nw
	for a := len(s.Axes) - 1; a >= 0; a-- {
		n := len(s.Axes[a].Values)
		pt.Values[a] = s.Axes[a].Values[i%n]
		i /= n
	}
	return pt
}

// checkPlatforms checks every parameter combination's platform.
func (s *Spec) checkPlatforms() error {
	nwt := len(s.Workloads) * len(s.Topologies)
	for c := 0; c < s.Combinations(); c++ {
		pt := s.Point(c * nwt)
		if _, err := s.Platform(pt.Values); err != nil {
			return fmt.Errorf("the point %s: %w", describe(s.Axes, pt.Values), err)
		}
	}
	return nil
}

// describe writes a parameter combination as KEY=VALUE pairs.
func describe(axes []Axis, vals []string) string {
	if len(axes) == 0 {
		return "(no axes)"
	}
	var parts []string
	for i, a := range axes {
		parts = append(parts, a.Key+"="+vals[i])
	}
	return strings.Join(parts, " ")
}

// encode is the spec's canonical JSON, which identifies the sweep.
func (s *Spec) encode() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		panic("sweep: encoding a spec: " + err.Error())
	}
	return b.Bytes()
}

// machineName is the canonical name of the machine a --topo entry names:
// a torus's shape, or a built-in machine's (dgx1, switch:P0xP1…). A
// topology file is refused: a sweep's description names its machines, and
// a file's content could change between its shards.
func machineName(t string) (string, error) {
	if err := topology.RefuseFile(t); err != nil {
		return "", err
	}
	m, err := topology.Parse(t)
	if err != nil {
		return "", err
	}
	return m.Machine.Name, nil
}

// ErrNoEffect is what a sweep's check returns (errors.Is) when a key it
// is given would change nothing in its runs: the systems, workloads or
// links it runs do not read it.
var ErrNoEffect = errors.New("the setting would change nothing")

// noEffectError is a refusal of a key that would change nothing; its
// message says why and what to do.
type noEffectError struct{ msg string }

func (e noEffectError) Error() string { return e.msg }

// Is makes a noEffectError ErrNoEffect.
func (e noEffectError) Is(target error) bool { return target == ErrNoEffect }

// noEffect is a refusal of a key that would change nothing, formatted.
func noEffect(format string, args ...any) error {
	return noEffectError{fmt.Sprintf(format, args...)}
}
