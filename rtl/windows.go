package rtl

import (
	"math/big"
	"slices"
)

// Windows adds up, exactly, the time serializers of one rate are busy in
// consecutive windows of W cycles: the series behind a utilisation-over-time
// plot. Time is in units of 1/Num cycle, as Serializer.LastSpan gives it.
// Windows are kept in pages that exist only where some window is busy, so
// a long idle stretch (hours of compute) costs no memory.
type Windows struct {
	w     int64 // window, in units
	num   int64 // units per cycle
	pages map[int64]*windowPage
	// last is the page Add used last (spans come in nearly time order).
	lastIdx int64
	last    *windowPage
	// The window Add counted into last, [lo, hi) in units, and its
	// counter: a span inside it is added without division.
	lo, hi int64
	cur    *int64
}

// pageWindows is how many windows a page holds.
const pageWindows = 1024

type windowPage [pageWindows]int64 // busy units per window

// NewWindows returns an empty series of windows of w cycles for serializers
// whose rate has numerator num.
func NewWindows(w Cycle, num int64) *Windows {
	if w < 1 || num < 1 {
		panic("rtl: windows need a positive width and rate")
	}
	return &Windows{w: int64(w) * num, num: num, pages: map[int64]*windowPage{}, lastIdx: -1, lo: 1} // lo > hi: no window yet
}

func (ws *Windows) page(p int64) *windowPage {
	if p == ws.lastIdx {
		return ws.last
	}
	pg, ok := ws.pages[p]
	if !ok {
		pg = new(windowPage)
		ws.pages[p] = pg
	}
	ws.lastIdx, ws.last = p, pg
	return pg
}

// Add counts the span [start, end) (units) as busy, split at window edges.
func (ws *Windows) Add(start, end int64) {
	if start >= ws.lo && end <= ws.hi {
		*ws.cur += end - start
		return
	}
	for start < end {
		i := start / ws.w
		edge := (i + 1) * ws.w
		n := min(end, edge) - start
		ws.cur = &ws.page(i / pageWindows)[i%pageWindows]
		ws.lo, ws.hi = edge-ws.w, edge
		*ws.cur += n
		start += n
	}
}

// Len returns the number of windows that hold any busy time or precede one
// (found from the pages: not for the hot path).
func (ws *Windows) Len() int {
	n := int64(0)
	for p, pg := range ws.pages {
		for i := pageWindows - 1; i >= 0; i-- {
			if pg[i] != 0 {
				n = max(n, p*pageWindows+int64(i)+1)
				break
			}
		}
	}
	return int(n)
}

// Busy returns the busy cycles in window i, exactly (zero past the end).
func (ws *Windows) Busy(i int) *big.Rat {
	pg, ok := ws.pages[int64(i)/pageWindows]
	if !ok || pg[int64(i)%pageWindows] == 0 {
		return new(big.Rat)
	}
	return big.NewRat(pg[int64(i)%pageWindows], ws.num)
}

// Idle reports whether window i holds no busy time, without allocating:
// a series over a long run asks it of every window, most of them idle.
func (ws *Windows) Idle(i int) bool {
	pg, ok := ws.pages[int64(i)/pageWindows]
	return !ok || pg[int64(i)%pageWindows] == 0
}

// BusyPages returns the first window of every page that holds busy time,
// in order: the windows outside them are idle.
func (ws *Windows) BusyPages() []int64 {
	out := make([]int64, 0, len(ws.pages))
	for p := range ws.pages {
		out = append(out, p*pageWindows)
	}
	slices.Sort(out)
	return out
}

// PageWindows is how many windows BusyPages' pages hold.
const PageWindows = pageWindows
