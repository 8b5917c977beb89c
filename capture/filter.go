package capture

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/units"
)

// Filter chooses the packets a capture keeps, so that a large run's
// capture stays small. A packet is kept when, for every kind of term
// given, one of its terms matches (terms of one kind are alternatives,
// kinds must all hold). The zero Filter keeps every packet.
type Filter struct {
	links, npus, colls, cycles []span
}

// span is an inclusive range of numbers.
type span struct{ lo, hi int64 }

func matches(spans []span, v int64) bool {
	if len(spans) == 0 {
		return true
	}
	for _, s := range spans {
		if v >= s.lo && v <= s.hi {
			return true
		}
	}
	return false
}

// CheckNPUs refuses npu terms beyond a run of n NPUs, before the run
// starts (links are checked when the capture starts on its network).
func (f Filter) CheckNPUs(n int) error { return f.check(n, math.MaxInt) }

// check refuses terms that no packet of a network of npus NPUs and links
// links can match: a filter that keeps nothing would be a silent mistake.
func (f Filter) check(npus, links int) error {
	for _, c := range []struct {
		key, what string
		spans     []span
		n         int
	}{{"npu", "NPUs", f.npus, npus}, {"link", "links", f.links, links}} {
		for _, s := range c.spans {
			if s.lo >= int64(c.n) {
				return fmt.Errorf("packet filter %s=%d: this run has %s 0 to %d", c.key, s.lo, c.what, c.n-1)
			}
		}
	}
	return nil
}

// FoldedNPU returns the first npu term that names an NPU other than NPU
// 0, as written ("npu=5", "npu=0-3"), or "" when there is none: in a
// folded run only NPU 0 and its links are simulated, so such a term would
// keep another NPU's packets that never happen (an empty capture) or
// only the packets NPU 0 exchanges with it.
func (f Filter) FoldedNPU() string {
	for _, s := range f.npus {
		switch {
		case s.lo == s.hi && s.lo != 0:
			return fmt.Sprintf("npu=%d", s.lo)
		case s.lo != s.hi:
			return fmt.Sprintf("npu=%d-%d", s.lo, s.hi)
		}
	}
	return ""
}

func (f Filter) allows(e observe.Event, l *fabric.Link) bool {
	return matches(f.links, int64(e.Link)) &&
		(matches(f.npus, int64(l.Src)) || matches(f.npus, int64(l.Dst))) &&
		matches(f.colls, int64(e.Coll)) && matches(f.cycles, int64(e.Cycle))
}

// ParseFilter reads a filter: comma-separated terms KEY=N or KEY=A-B
// (inclusive), with keys link (a link's index, as the capture's link
// field), npu (a link that leaves or enters the NPU), coll (the
// collective's number, in the order issued) and cycles (when the packet
// started on its link), e.g. "npu=0,coll=1,cycles=0-200000". Repeating a
// key gives alternatives: "link=3,link=7".
func ParseFilter(s string) (Filter, error) {
	var f Filter
	if strings.TrimSpace(s) == "" {
		return f, nil
	}
	for _, term := range strings.Split(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(term), "=")
		if !ok {
			return f, fmt.Errorf("packet filter term %q: want KEY=N or KEY=A-B, keys link, npu, coll, cycles", term)
		}
		sp, err := parseSpan(val)
		if err != nil {
			return f, fmt.Errorf("packet filter term %q: %w", term, err)
		}
		switch strings.ToLower(key) {
		case "link":
			f.links = append(f.links, sp)
		case "npu":
			f.npus = append(f.npus, sp)
		case "coll":
			f.colls = append(f.colls, sp)
		case "cycles":
			f.cycles = append(f.cycles, sp)
		default:
			return f, fmt.Errorf("packet filter term %q: key %q is not link, npu, coll or cycles", term, key)
		}
	}
	return f, nil
}

func parseSpan(v string) (span, error) {
	lo, hi, isRange := strings.Cut(v, "-")
	a, err := units.ParseInt(lo)
	if errors.Is(err, strconv.ErrRange) {
		return span{}, fmt.Errorf("%q: %s is too large", v, lo)
	}
	if err != nil && strings.TrimSpace(lo) != "" {
		return span{}, fmt.Errorf("%q is not a number from 0 or a range A-B: %w", v, err)
	}
	if err != nil || a < 0 {
		return span{}, fmt.Errorf("%q is not a number from 0 or a range A-B", v)
	}
	if !isRange {
		return span{a, a}, nil
	}
	if strings.TrimSpace(hi) == "" {
		return span{}, fmt.Errorf("%q: the range's end B is missing; write A-B", v)
	}
	b, err := units.ParseInt(hi)
	if errors.Is(err, strconv.ErrRange) {
		return span{}, fmt.Errorf("%q: %s is too large", v, hi)
	}
	if err != nil {
		return span{}, fmt.Errorf("%q: the range's end is not a number: %w", v, err)
	}
	if b < a {
		return span{}, fmt.Errorf("%q: a range A-B needs numbers with A ≤ B", v)
	}
	return span{a, b}, nil
}
