package rtl

// Need is one resource a sub-step uses: a serializer, for so many bytes.
type Need struct {
	S     *Serializer
	Bytes int64
}

// StartAll starts a sub-step during cycle now if every serializer it needs
// is free by the end of the cycle, holding each for its own bytes from the
// later of now and the exact instant it frees (so a resource that streams
// loses no fraction of a cycle between sub-steps), and returns the cycle the
// last one finishes. If any is busy beyond this cycle it starts nothing and
// returns ok=false with the cycle during which all of them will be free (a
// sub-step that needs several resources stalls until all are free).
func StartAll(now Cycle, needs ...Need) (end Cycle, ok bool, retry Cycle) {
	if retry = RetryOf(now, needs...); retry > now {
		return 0, false, retry
	}
	end = now
	for _, n := range needs {
		if e := n.S.Start(now, n.Bytes); e > end {
			end = e
		}
	}
	return end, true, now
}

// TryStart is StartAll of the one need (s, n bytes), without its list: it
// starts the transfer during cycle now if s is free by the end of the
// cycle and returns the cycle it finishes, or returns ok=false and the
// cycle during which s will be free.
func (s *Serializer) TryStart(now Cycle, n int64) (end Cycle, ok bool, retry Cycle) {
	if !s.FreeWithin(now) {
		return 0, false, s.FreeCycle() // after now: s is busy beyond the cycle
	}
	return max(now, s.Start(now, n)), true, now
}

// Pool is a set of identical serializers, such as ALUs.
type Pool []*Serializer

// NewPool returns n serializers of rate r.
func NewPool(n int, r Rate) Pool {
	p := make(Pool, n)
	for i := range p {
		p[i] = NewSerializer(r)
	}
	return p
}

// Free returns the first serializer free by now, or nil and the cycle the
// first one frees.
func (p Pool) Free(now Cycle) (*Serializer, Cycle) {
	next := Cycle(-1)
	for _, s := range p {
		if s.FreeBy(now) {
			return s, now
		}
		if f := s.FreeAt(); next < 0 || f < next {
			next = f
		}
	}
	return nil, next
}

// RetryOf is the cycle during which every need's resource will be free:
// now when each is free by the end of it (StartAll's retry, which does not
// depend on the bytes needed).
func RetryOf(now Cycle, needs ...Need) Cycle {
	retry := now
	for _, n := range needs {
		retry = max(retry, FreeCycleOf(now, n.S))
	}
	return retry
}

// FreeCycleOf is the cycle during which s will be free for a transfer
// ready during cycle now: now when it is free by the end of it (RetryOf
// of one need).
func FreeCycleOf(now Cycle, s *Serializer) Cycle {
	if s.FreeWithin(now) {
		return now
	}
	return s.FreeCycle()
}
