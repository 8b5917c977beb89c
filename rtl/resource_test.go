package rtl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Two resources at 64 B/cycle and 256 B/cycle; a 256 B sub-step holds the
// first for 4 cycles and the second for 1, and ends when both are done.
func TestStartAllHoldsEveryResource(t *testing.T) {
	alu := NewSerializer(Rate{64, 1})
	port := NewSerializer(Rate{256, 1})
	end, ok, _ := StartAll(10, Need{alu, 256}, Need{port, 256})
	require.True(t, ok)
	require.Equal(t, Cycle(14), end)
	// At cycle 11 the port is free but the ALU is not (until 14): stall.
	_, ok, retry := StartAll(11, Need{alu, 256}, Need{port, 256})
	require.False(t, ok)
	require.Equal(t, Cycle(14), retry)
	// A resource that frees at a fraction of a cycle is taken up at that
	// exact instant: 256 B at 4700/249 B/cycle end at 13.56; a sub-step
	// during cycle 13 starts at 13.56 and ends at 27.12 → 28.
	mem := NewSerializer(Rate{4700, 249})
	mem.Start(0, 256)
	end, ok, _ = StartAll(13, Need{mem, 256})
	require.True(t, ok)
	require.Equal(t, Cycle(28), end)
	_, ok, retry = StartAll(12, Need{mem, 256})
	require.False(t, ok)
	require.Equal(t, Cycle(27), retry, "frees during cycle 27 (at 27.12)")
	// Nothing was reserved by the failed attempt: the port alone is free.
	end, ok, _ = StartAll(11, Need{port, 256})
	require.True(t, ok)
	require.Equal(t, Cycle(12), end)
}

func TestPoolPicksTheFirstFree(t *testing.T) {
	p := NewPool(2, Rate{64, 1})
	s, _ := p.Free(0)
	require.Same(t, p[0], s)
	s.Start(0, 256) // busy until 4
	s, _ = p.Free(0)
	require.Same(t, p[1], s)
	s.Start(0, 128) // busy until 2
	s, next := p.Free(1)
	require.Nil(t, s)
	require.Equal(t, Cycle(2), next)
}

// FreeCycleOf is RetryOf of one resource. 256 B at 4700/249 B/cycle from
// cycle 0 end at 256 × 249 / 4700 = 13.56 (during cycle 13); 256 B at
// 64 B/cycle from cycle 0 end at exactly 4.0, the start of cycle 4, so
// a transfer ready during cycle 3 waits for cycle 4.
func TestFreeCycleOf(t *testing.T) {
	frac := NewSerializer(Rate{4700, 249})
	frac.Start(0, 256)
	whole := NewSerializer(Rate{64, 1})
	whole.Start(0, 256)
	for _, c := range []struct {
		name string
		s    *Serializer
		now  Cycle
		want Cycle
	}{
		{"fraction, long before", frac, 5, 13},
		{"fraction, the cycle before it frees", frac, 12, 13},
		{"fraction, the cycle it frees in", frac, 13, 13},
		{"fraction, after", frac, 20, 20},
		{"whole, long before", whole, 1, 4},
		{"whole, the cycle before it frees", whole, 3, 4},
		{"whole, after", whole, 4, 4},
	} {
		require.Equal(t, c.want, FreeCycleOf(c.now, c.s), c.name)
	}
}

// TryStart is StartAll of one need. At 64 B/cycle, 256 B take 4 cycles;
// at 4700/249 B/cycle they take 256 × 249 / 4700 = 13.56 cycles.
func TestTryStartIsStartAllOfOneNeed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rate  Rate
		busy  int64 // bytes started at cycle 0 before the try (0: idle)
		now   Cycle
		bytes int64
		ok    bool
		end   Cycle // when ok
		retry Cycle // when not
	}{
		{name: "idle", rate: Rate{64, 1}, now: 10, bytes: 256, ok: true, end: 14},
		{name: "busy until 4, tried at 2", rate: Rate{64, 1}, busy: 256, now: 2, bytes: 64, retry: 4},
		{name: "frees at the end of cycle 3, not during it", rate: Rate{64, 1}, busy: 256, now: 3, bytes: 64, retry: 4},
		{name: "free at 4", rate: Rate{64, 1}, busy: 256, now: 4, bytes: 64, ok: true, end: 5},
		{name: "frees at 13.56: taken up then, 256 B end at 27.12", rate: Rate{4700, 249}, busy: 256, now: 13, bytes: 256, ok: true, end: 28},
		{name: "frees during cycle 13", rate: Rate{4700, 249}, busy: 256, now: 12, bytes: 256, retry: 13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ref := NewSerializer(tc.rate), NewSerializer(tc.rate)
			if tc.busy > 0 {
				s.Start(0, tc.busy)
				ref.Start(0, tc.busy)
			}
			end, ok, retry := s.TryStart(tc.now, tc.bytes)
			require.Equal(t, tc.ok, ok)
			if ok {
				require.Equal(t, tc.end, end)
				require.Equal(t, tc.now, retry)
			} else {
				require.Equal(t, tc.retry, retry)
				require.Equal(t, ref.Mark(), s.Mark(), "a failed try reserves nothing")
			}
			wantEnd, wantOK, wantRetry := StartAll(tc.now, Need{ref, tc.bytes})
			require.Equal(t, []any{wantEnd, wantOK, wantRetry}, []any{end, ok, retry}, "as StartAll")
			require.Equal(t, ref.Mark(), s.Mark())
		})
	}
}
