package rtl

import (
	"math/big"
	"sort"
)

// Counter is a named 64-bit event or byte counter. Components hold the
// pointer and add to it directly; the Sink reads all of them at the end.
type Counter struct {
	name string
	v    int64
}

// Add adds d.
func (c *Counter) Add(d int64) { c.v += d }

// Inc adds 1.
func (c *Counter) Inc() { c.v++ }

// Value returns the count.
func (c *Counter) Value() int64 { return c.v }

// Name returns the counter's name.
func (c *Counter) Name() string { return c.name }

// Probe reads an exact quantity (busy time, occupancy …) on demand.
type Probe func() *big.Rat

// Sink is the one place counters and probes of a simulation are registered,
// so reports, traces and checks read the same numbers.
type Sink struct {
	counters map[string]*Counter
	probes   map[string]Probe
}

// NewSink returns an empty sink.
func NewSink() *Sink {
	return &Sink{counters: map[string]*Counter{}, probes: map[string]Probe{}}
}

// Counter returns the counter of that name, creating it at zero.
func (s *Sink) Counter(name string) *Counter {
	if c, ok := s.counters[name]; ok {
		return c
	}
	c := &Counter{name: name}
	s.counters[name] = c
	return c
}

// Probe registers a probe under name, replacing any earlier one.
func (s *Sink) Probe(name string, p Probe) { s.probes[name] = p }

// Sample is one named value read from the sink.
type Sample struct {
	Name  string
	Value *big.Rat
}

// Snapshot returns every counter and probe, sorted by name.
func (s *Sink) Snapshot() []Sample {
	out := make([]Sample, 0, len(s.counters)+len(s.probes))
	for n, c := range s.counters {
		out = append(out, Sample{Name: n, Value: new(big.Rat).SetInt64(c.v)})
	}
	for n, p := range s.probes {
		out = append(out, Sample{Name: n, Value: p()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Mean returns the mean of xs rounded down, 0 for none: the per-NPU means
// of byte counts that reports print.
func Mean(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	var t int64
	for _, x := range xs {
		t += x
	}
	return t / int64(len(xs))
}
