package ace

// This file: the cycles at which a node has a kick scheduled.

import (
	"slices"

	"github.com/acemu/acemu/rtl"
)

// kickRing is how many cycles ahead a kick is kept as a bit (kickSet).
const kickRing = 1024

// kickSet is the cycles at which a node has a kick scheduled and not yet
// run: those less than kickRing cycles ahead of the cycle they were asked
// at as a bit each, in a ring indexed by the cycle, the others (notices
// from far NPUs, retries long ahead) in a sorted list. A cycle's bit is
// set only while its kick is pending, and a pending kick lies at or after
// the current cycle, so two cycles sharing a bit are never pending at
// once.
type kickSet struct {
	near [kickRing / 64]uint64
	far  []rtl.Cycle // ascending
}

// ringWord is the word of the ring holding cycle t's bit (t ≥ 0: a cycle).
func ringWord(t rtl.Cycle) int { return int(uint64(t)%kickRing) >> 6 }

// add records a kick at cycle t, asked at cycle now (t ≥ now), and reports
// whether it was new.
func (s *kickSet) add(now, t rtl.Cycle) bool {
	if t-now < kickRing {
		w, b := ringWord(t), uint64(1)<<(uint(t)&63)
		if s.near[w]&b != 0 || len(s.far) > 0 && t >= s.far[0] && s.hasFar(t) {
			return false
		}
		s.near[w] |= b
		return true
	}
	i, found := slices.BinarySearch(s.far, t)
	if found {
		return false
	}
	s.far = slices.Insert(s.far, i, t)
	return true
}

// addNear is add for a set with no kick far ahead and a cycle near, whose
// bit is b in word w of the ring (ringWord): the usual case, inline.
func (s *kickSet) addNear(w int, b uint64) bool {
	if s.near[w]&b != 0 {
		return false
	}
	s.near[w] |= b
	return true
}

// hasFar reports whether the list of kicks far ahead holds cycle t (one
// asked for long ago, which has come near).
func (s *kickSet) hasFar(t rtl.Cycle) bool {
	_, found := slices.BinarySearch(s.far, t)
	return found
}

// has reports whether the set holds cycle now, the current one.
func (s *kickSet) has(now rtl.Cycle) bool {
	return s.near[ringWord(now)]&(1<<(uint(now)&63)) != 0 || len(s.far) > 0 && s.far[0] == now
}

// remove forgets the kick at cycle now, which is running.
func (s *kickSet) remove(now rtl.Cycle) {
	s.near[ringWord(now)] &^= 1 << (uint(now) & 63)
	if len(s.far) > 0 && s.far[0] == now {
		s.far = s.far[1:]
	}
}
