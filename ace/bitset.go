package ace

// This file: a set of small integers (FSM numbers) as bits.

import "math/bits"

// bitset is a set of the integers 0..n-1.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (s bitset) set(i int)      { s[i>>6] |= 1 << (uint(i) & 63) }
func (s bitset) clear(i int)    { s[i>>6] &^= 1 << (uint(i) & 63) }
func (s bitset) has(i int) bool { return s[i>>6]&(1<<(uint(i)&63)) != 0 }

// next returns the least member in [from, to), or -1.
func (s bitset) next(from, to int) int {
	for from < to {
		w := s[from>>6] >> (uint(from) & 63)
		if w != 0 {
			if i := from + bits.TrailingZeros64(w); i < to {
				return i
			}
			return -1
		}
		from = (from | 63) + 1
	}
	return -1
}
