package rtl

// Span is the cycles [From, To): an interval of a run, such as a training
// pass or a time a unit was busy.
type Span struct{ From, To Cycle }

// Len is the span's length in cycles (0 when To ≤ From).
func (s Span) Len() Cycle { return max(0, s.To-s.From) }

// Overlap is how many cycles s and o have in common.
func (s Span) Overlap(o Span) Cycle {
	return Span{max(s.From, o.From), min(s.To, o.To)}.Len()
}

// OverlapAll is how many cycles of busy fall within spans: the sum over
// every pair of their overlap. Either list may be in any order; spans that
// overlap each other count their common cycles twice.
func OverlapAll(busy, spans []Span) Cycle {
	var c Cycle
	for _, b := range busy {
		for _, s := range spans {
			c += b.Overlap(s)
		}
	}
	return c
}

// TotalLen is the sum of the spans' lengths.
func TotalLen(spans []Span) Cycle {
	var c Cycle
	for _, s := range spans {
		c += s.Len()
	}
	return c
}
