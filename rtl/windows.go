package rtl

import "math/big"

// Windows adds up, exactly, the time serializers of one rate are busy in
// consecutive windows of W cycles: the series behind a utilisation-over-time
// plot. Time is in units of 1/Num cycle, as Serializer.LastSpan gives it.
type Windows struct {
	w     int64   // window, in units
	num   int64   // units per cycle
	units []int64 // busy units per window
}

// NewWindows returns an empty series of windows of w cycles for serializers
// whose rate has numerator num.
func NewWindows(w Cycle, num int64) *Windows {
	if w < 1 || num < 1 {
		panic("rtl: windows need a positive width and rate")
	}
	return &Windows{w: int64(w) * num, num: num}
}

// Add counts the span [start, end) (units) as busy, split at window edges.
func (ws *Windows) Add(start, end int64) {
	for start < end {
		i := start / ws.w
		edge := (i + 1) * ws.w
		for int64(len(ws.units)) <= i {
			ws.units = append(ws.units, 0)
		}
		n := min(end, edge) - start
		ws.units[i] += n
		start += n
	}
}

// Len returns the number of windows that hold any busy time or precede one.
func (ws *Windows) Len() int { return len(ws.units) }

// Busy returns the busy cycles in window i, exactly (zero past the end).
func (ws *Windows) Busy(i int) *big.Rat {
	if i >= len(ws.units) {
		return new(big.Rat)
	}
	return big.NewRat(ws.units[i], ws.num)
}
