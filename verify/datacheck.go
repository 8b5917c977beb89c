package verify

import (
	"fmt"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/observe"
)

// MaxCheckValues bounds the values a data check may hold at once (one int64
// per payload byte per NPU): 64 Mi values, 512 MiB.
const MaxCheckValues = 64 << 20

// DataCheck supplies a timed run's initial values and checks each chunk's
// final values against the collective's definition as NPUs finish it.
type DataCheck struct {
	plan    *collectives.Plan
	expect  map[int]*Expectation
	left    map[int]int // NPUs yet to finish each chunk
	err     error
	checked int
}

// NewDataCheck prepares a check of plan, refusing sizes whose values would
// not fit in memory.
func NewDataCheck(plan *collectives.Plan) (*DataCheck, error) {
	if n := plan.Payload * int64(plan.Shape.N()); n > MaxCheckValues {
		return nil, fmt.Errorf("checking data keeps one value per payload byte per NPU: %d NPUs × %d bytes is %d values, more than %d; use a smaller --size (at most %d bytes on %d NPUs)",
			plan.Shape.N(), plan.Payload, n, MaxCheckValues, MaxCheckValues/int64(plan.Shape.N()), plan.Shape.N())
	}
	return &DataCheck{plan: plan, expect: map[int]*Expectation{}, left: map[int]int{}}, nil
}

func (d *DataCheck) expectation(chunk int) *Expectation {
	if e, ok := d.expect[chunk]; ok {
		return e
	}
	e, err := Expect(d.plan, chunk)
	if err != nil {
		if d.err == nil {
			d.err = err
		}
		return nil
	}
	d.expect[chunk] = e
	d.left[chunk] = d.plan.Shape.N()
	return e
}

// Init returns NPU npu's initial values for a chunk.
func (d *DataCheck) Init(npu, chunk int) []int64 {
	e := d.expectation(chunk)
	if e == nil {
		return make([]int64, d.plan.ChunkLen(chunk))
	}
	v := e.Init[npu]
	e.Init[npu] = nil // handed over; the run owns it now
	return v
}

// Observe checks the final values of every chunk an NPU finishes
// (observe.ChunkDone): the data check is an observer.
func (d *DataCheck) Observe(e observe.Event) {
	if e.Kind == observe.ChunkDone && e.Values != nil {
		d.Done(e.NPU, e.Chunk, e.Values)
	}
}

// Done checks NPU npu's final values of a chunk.
func (d *DataCheck) Done(npu, chunk int, vals []int64) {
	e := d.expectation(chunk)
	if e == nil {
		return
	}
	for _, r := range e.Check[npu] {
		for i := r.Off; i < r.End(); i++ {
			if vals[i] != e.Want[npu][i] && d.err == nil {
				d.err = fmt.Errorf("chunk %d byte %d on NPU %d: got %d, want %d", chunk, i, npu, vals[i], e.Want[npu][i])
			}
		}
	}
	d.checked++
	if d.left[chunk]--; d.left[chunk] == 0 {
		delete(d.expect, chunk)
		delete(d.left, chunk)
	}
}

// Result reports whether every NPU finished every chunk with the right
// values: nil, or the first difference (or the chunks never finished).
func (d *DataCheck) Result() error {
	if d.err != nil {
		return d.err
	}
	if want := d.plan.NumChunks() * d.plan.Shape.N(); d.checked != want {
		return fmt.Errorf("only %d of %d chunk×NPU results were checked", d.checked, want)
	}
	return nil
}
