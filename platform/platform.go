// Package platform holds every parameter of the modelled platform in one
// typed, documented set: its value, unit, default and source (the ACE
// paper's table or section, or a [choice] with its docs/ page). A
// configuration file (YAML or JSON, `--config FILE`) and `--set KEY=VALUE`
// flags override the defaults; `acemu config dump` prints the set in the
// file's format, so that a user can start from it and edit it.
package platform

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/contend"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/units"
)

// ClassLink is a link class's own bandwidth and latency; nil: the intra-
// or inter-package link's.
type ClassLink struct {
	GBps    *big.Rat
	Latency *int64
}

// Platform is one configuration of the platform.
type Platform struct {
	// IntraGBps and InterGBps are the raw bandwidths of intra- and
	// inter-package links per direction, IntraLatency and InterLatency
	// their latencies in cycles; Efficiency is the share of a link's raw
	// bandwidth that carries payload.
	IntraGBps, InterGBps       *big.Rat
	IntraLatency, InterLatency int64
	// Classes are the links of the classes beyond those two
	// (topology.Classes: nvlink, tier0…tier5), in that order; a class
	// whose bandwidth or latency is nil takes the intra- or inter-package
	// link's (links.CLASS.*).
	Classes    [7]ClassLink
	Efficiency *big.Rat
	// TxBuffer and RxBuffer are a link's output and input buffers in
	// packets (the input buffer is its credit count).
	TxBuffer, RxBuffer int
	// ChunkBytes and MessageBytes are the AFI's initial chunk and largest
	// message.
	ChunkBytes, MessageBytes int64
	// ACE is ACE's design point (its memory share is CommMemGBps).
	ACE ace.Config
	// Algorithms are the algorithm each collective runs with, by
	// collectives.CollectiveOp (collectives.KEY).
	Algorithms [4]string
	// Library is what the SM-driven baseline's communication library pays
	// beyond bandwidth (baseline.launch, baseline.step).
	Library npu.Library
	// Iterations, Order, Memory and MemBoundShare say how training runs;
	// MemBoundShare nil derives each timed pass's share from its shape.
	Iterations    int
	Order         afi.Order
	Memory        contend.Policy
	MemBoundShare *big.Rat
	// Compute and Batch choose a built-in workload's compute regime
	// (workload.Resolve; docs/workloads.md): a workload.ComputeSources
	// value, and samples per NPU (0: the paper's).
	Compute string
	Batch   int64
	// Micro is how a MICRO workload issues its collectives
	// (train.Micro's names: back-to-back or concurrent).
	Micro string
	// ComputeSpeed is how many times faster than Table V's NPU compute
	// runs (docs/sweeps.md, "Compute speed").
	ComputeSpeed *big.Rat
	// Issue is how data parallelism's weight-gradient all-reduces are
	// issued (training.issue_policy, training.key_order, training.copy)
	// and Fusion how they are fused (training.fusion; docs/training-loop.md,
	// "Issue policies", "Tensor fusion").
	Issue  train.IssuePolicy
	Fusion train.Fusion
}

// Default is the platform of the ACE paper (Tables III–VI) with acemu's
// documented choices: every parameter at the default its entry in Params
// gives (the one place a default is written; a test checks that they are
// the components' own).
func Default() Platform {
	var p Platform
	for _, q := range params {
		if q.Default == "" {
			continue // fixed
		}
		if err := q.set(&p, q.Default); err != nil {
			panic("platform: the default of " + q.Key + ": " + err.Error())
		}
	}
	return p
}

// AlgorithmMap is Algorithms by collective, as afi.Config takes them.
func (p Platform) AlgorithmMap() map[collectives.CollectiveOp]string {
	m := map[collectives.CollectiveOp]string{}
	for op, name := range p.Algorithms {
		if name != "" {
			m[collectives.CollectiveOp(op)] = name
		}
	}
	return m
}

// LinkSettings are the platform's links as every machine is built with
// them: the intra- and inter-package link classes (links.intra.*,
// links.inter.*; credits return in one link latency), the payload
// efficiency and the buffers.
func (p Platform) LinkSettings() (topology.LinkSettings, error) {
	l := topology.LinkSettings{Efficiency: p.Efficiency, TxBuffer: p.TxBuffer, RxBuffer: p.RxBuffer}
	link := func(name string, gbps *big.Rat, lat int64) (fabric.LinkParams, error) {
		r, err := rtl.RateGBps(gbps, p.Efficiency)
		if err != nil {
			return fabric.LinkParams{}, fmt.Errorf("links.%s.bandwidth: %w", name, err)
		}
		return fabric.LinkParams{Name: name, Rate: r, Latency: rtl.Cycle(lat), TxBuffer: p.TxBuffer, RxBuffer: p.RxBuffer, CreditLatency: rtl.Cycle(lat)}, nil
	}
	var err error
	if l.Intra, err = link("intra", p.IntraGBps, p.IntraLatency); err != nil {
		return l, err
	}
	if l.Inter, err = link("inter", p.InterGBps, p.InterLatency); err != nil {
		return l, err
	}
	for i, c := range topology.Classes() {
		own := p.Classes[i]
		if own.GBps == nil && own.Latency == nil {
			continue
		}
		gbps, lat := p.IntraGBps, p.IntraLatency
		if c.Inter {
			gbps, lat = p.InterGBps, p.InterLatency
		}
		if own.GBps != nil {
			gbps = own.GBps
		}
		if own.Latency != nil {
			lat = *own.Latency
		}
		if l.Classes == nil {
			l.Classes = map[string]fabric.LinkParams{}
		}
		if l.Classes[c.Name], err = link(c.Name, gbps, lat); err != nil {
			return l, err
		}
	}
	return l, nil
}

// Param is one parameter: its key in the file and in --set, its unit, its
// source and what it is.
type Param struct {
	Key     string
	Default string // as the file writes it; "" for a fixed value
	Unit    string
	Source  string
	Doc     string
	// Inherits, when set, is the key whose value the parameter takes
	// while it is not set; an unset one reads "" and is left out of
	// dumps, the configuration table and a sweep's base.
	Inherits string
	get      func(*Platform) string
	set      func(*Platform, string) error
}

// Unset reports whether q is an inheriting parameter p does not set.
func (q Param) Unset(p *Platform) bool { return q.Inherits != "" && q.get(p) == "" }

// Effective is q's value in p as it takes effect: an unset inheriting
// parameter's is the value of the key it inherits.
func (q Param) Effective(p *Platform) string {
	if q.Unset(p) {
		b, _ := Lookup(q.Inherits)
		return b.Get(p)
	}
	return q.get(p)
}

// Params lists every parameter, in the file's order.
func Params() []Param { return params }

// Lookup finds a parameter by key.
func Lookup(key string) (Param, bool) {
	for _, p := range params {
		if p.Key == key {
			return p, true
		}
	}
	return Param{}, false
}

// Get returns the parameter's value in p, as the file writes it.
func (q Param) Get(p *Platform) string { return q.get(p) }

// Set sets key to the value text in p, or says what is wrong and what
// the key takes.
func (p *Platform) Set(key, value string) error {
	q, ok := Lookup(key)
	if !ok {
		return fmt.Errorf("unknown parameter %q; %s", key, near(key))
	}
	if err := q.set(p, strings.TrimSpace(value)); err != nil {
		return fmt.Errorf("%s = %q: %w", key, value, err)
	}
	return nil
}

// Validate checks the whole platform (what one parameter cannot check
// alone).
func (p Platform) Validate() error {
	if _, err := p.LinkSettings(); err != nil {
		return err
	}
	if err := p.ACE.Validate(); err != nil {
		return fmt.Errorf("ace: %w", err)
	}
	return nil
}

// near lists the keys that share the unknown key's first part, or all
// sections.
func near(key string) string {
	sec, _, _ := strings.Cut(key, ".")
	var keys []string
	for _, p := range params {
		if strings.HasPrefix(p.Key, sec+".") {
			keys = append(keys, p.Key)
		}
	}
	if len(keys) == 0 {
		return "the sections are links, afi, ace, training and npu (acemu config dump lists every key)"
	}
	return "keys under " + sec + ": " + strings.Join(keys, ", ")
}

// value is how a parameter is read from a platform and written into one.
type value struct {
	get func(*Platform) string
	set func(*Platform, string) error
}

// Values by kind.

func bandwidth(min, max int64, f func(*Platform) **big.Rat) value {
	return value{func(p *Platform) string { return units.FormatBandwidth(*f(p)) },
		func(p *Platform, s string) error {
			r, err := units.ParseBandwidth(s)
			if err != nil {
				return err
			}
			if r.Cmp(big.NewRat(min, 1)) < 0 || r.Cmp(big.NewRat(max, 1)) > 0 {
				return fmt.Errorf("out of range: give %d to %d GB/s", min, max)
			}
			*f(p) = r
			return nil
		}}
}

func size(min, max int64, f func(*Platform) *int64) value {
	return value{func(p *Platform) string { return units.FormatSize(*f(p)) },
		func(p *Platform, s string) error {
			n, err := units.ParseSize(s)
			if err != nil {
				return err
			}
			if n < min || n > max {
				return fmt.Errorf("out of range: give %s to %s", units.FormatSize(min), units.FormatSize(max))
			}
			*f(p) = n
			return nil
		}}
}

// parseCount reads a whole number in [min, max], as every flag of acemu
// reads one (units.ParseInt).
func parseCount(s string, min, max int64) (int64, error) {
	n, err := units.ParseInt(s)
	if errors.Is(err, strconv.ErrRange) || err == nil && (n < min || n > max) {
		return 0, fmt.Errorf("out of range: give %d to %d", min, max)
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}

func count(min, max int64, f func(*Platform) *int64) value {
	return value{func(p *Platform) string { return strconv.FormatInt(*f(p), 10) },
		func(p *Platform, s string) error {
			n, err := parseCount(s, min, max)
			if err == nil {
				*f(p) = n
			}
			return err
		}}
}

func intCount(min, max int64, f func(*Platform) *int) value {
	return value{func(p *Platform) string { return strconv.Itoa(*f(p)) },
		func(p *Platform, s string) error {
			n, err := parseCount(s, min, max)
			if err == nil {
				*f(p) = int(n)
			}
			return err
		}}
}

func choice(names []string, f func(*Platform) *string) value {
	return value{func(p *Platform) string { return *f(p) },
		func(p *Platform, s string) error {
			for _, n := range names {
				if strings.EqualFold(s, n) {
					*f(p) = n
					return nil
				}
			}
			return fmt.Errorf("use one of %s", strings.Join(names, ", "))
		}}
}

// fraction is a share in (0, 1], or [0, 1] when zeroOK.
func fraction(zeroOK bool, f func(*Platform) **big.Rat) value {
	return value{func(p *Platform) string { return ratText(*f(p)) },
		func(p *Platform, s string) error {
			t := strings.TrimSpace(s)
			pct := strings.HasSuffix(t, "%")
			r, ok := new(big.Rat).SetString(strings.TrimSpace(strings.TrimSuffix(t, "%")))
			if !ok {
				return fmt.Errorf("not a number; give a fraction such as 0.94, 47/50 or 94%%")
			}
			if pct {
				r.Quo(r, big.NewRat(100, 1))
			}
			if r.Sign() < 0 || (r.Sign() == 0 && !zeroOK) || r.Cmp(big.NewRat(1, 1)) > 0 {
				if zeroOK {
					return fmt.Errorf("out of range: give a fraction in [0, 1]")
				}
				return fmt.Errorf("out of range: give a fraction in (0, 1]")
			}
			*f(p) = r
			return nil
		}}
}

// factor is a positive ratio in [lo, hi] (decimal or a/b).
func factor(lo, hi *big.Rat, f func(*Platform) **big.Rat) value {
	return value{func(p *Platform) string { return ratText(*f(p)) },
		func(p *Platform, s string) error {
			r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
			if !ok {
				return fmt.Errorf("not a number; give a factor such as 2, 0.5 or 3/2")
			}
			if r.Cmp(lo) < 0 || r.Cmp(hi) > 0 {
				return fmt.Errorf("out of range: give a factor from %s to %s", ratText(lo), ratText(hi))
			}
			*f(p) = r
			return nil
		}}
}

// ratText writes r as a short decimal when one is exact, else as a/b.
func ratText(r *big.Rat) string {
	s := r.FloatString(6)
	if x, ok := new(big.Rat).SetString(s); ok && x.Cmp(r) == 0 {
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return s
	}
	return r.RatString()
}

// fixed is a parameter this version does not let change: the value is
// written in the file for the record, and another value is refused.
func fixed(v string) value {
	return value{func(*Platform) string { return v },
		func(_ *Platform, s string) error {
			if s != v {
				return fmt.Errorf("fixed at %s in this version of acemu (the NPU's model is built on it); remove the key or give %s", v, v)
			}
			return nil
		}}
}

// Setting is one parameter's key and value, as the file writes it.
type Setting struct {
	Key, Value string
}

// Changed lists the parameters whose value in p is not the default's, in
// the file's order: what a run's --config, --set and named flags changed.
func Changed(p Platform) []Setting {
	def := Default()
	var out []Setting
	for _, q := range params {
		if v := q.get(&p); v != q.get(&def) {
			out = append(out, Setting{q.Key, v})
		}
	}
	return out
}
