package verify

import (
	"fmt"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/observe"
)

// MaxCheckValues bounds the values a data check may hold at once (one int64
// per payload byte per NPU): 32 Mi values. A check needs every NPU
// simulated; measured at 64 Mi values, max RSS 0.9 GB on 2x2x1, 1.5 GB on
// 4x4x4 (2.2 GB before acemu's heap limit) and 1.7 GB on 8x8x8; at 32 Mi,
// 1.1 to 1.4 GB on 8x8x8 and 1.6 GB on 16x16x16 (docs/bad-input.md,
// "Limits").
const MaxCheckValues = 32 << 20

// DataCheck supplies a timed run's initial values and checks each chunk's
// final values against the collective's definition as NPUs finish it. It
// checks the run's collective number coll (in issue order, from 0; 0 from
// NewDataCheck): a run of several collectives checks each with its own
// (DataChecks).
type DataCheck struct {
	coll    int
	plan    *collectives.Plan
	expect  map[int]*Expectation
	left    map[int]int // NPUs yet to finish each chunk
	err     error
	checked int
}

// NewDataCheck prepares a check of plan, refusing sizes whose values would
// not fit in memory.
func NewDataCheck(plan *collectives.Plan) (*DataCheck, error) {
	if n := plan.Payload * int64(plan.Machine.N()); n > MaxCheckValues {
		return nil, fmt.Errorf("checking data keeps one value per payload byte per NPU: %d NPUs × %d bytes is %d values, more than %d; use a smaller --size (at most %d bytes on %d NPUs)",
			plan.Machine.N(), plan.Payload, n, MaxCheckValues, MaxCheckValues/int64(plan.Machine.N()), plan.Machine.N())
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
	d.left[chunk] = d.plan.Machine.N()
	return e
}

// Hook is Init for a run's data hooks (npu.DataHooks, ace.Hooks): the
// values of NPU npu's chunk of collective coll, which must be the one
// checked.
func (d *DataCheck) Hook(coll, npu, chunk int) []int64 {
	if coll != d.coll && d.err == nil {
		d.err = fmt.Errorf("data check of collective %d asked for collective %d's values: check each collective of a run with its own (verify.DataChecks)", d.coll, coll)
	}
	return d.Init(npu, chunk)
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
	if e.Kind == observe.ChunkDone && e.Values != nil && e.Coll == d.coll {
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
	if want := d.plan.NumChunks() * d.plan.Machine.N(); d.checked != want {
		return fmt.Errorf("only %d of %d chunk×NPU results were checked", d.checked, want)
	}
	return nil
}

// DataChecks check a run of several collectives, each against its own
// definition: the i-th plan is the run's collective i in issue order.
type DataChecks struct {
	checks []*DataCheck
	err    error
}

// NewDataChecks prepares a check of each plan.
func NewDataChecks(plans ...*collectives.Plan) (*DataChecks, error) {
	ds := &DataChecks{checks: make([]*DataCheck, len(plans))}
	for i, p := range plans {
		d, err := NewDataCheck(p)
		if err != nil {
			return nil, fmt.Errorf("collective %d: %w", i, err)
		}
		d.coll = i
		ds.checks[i] = d
	}
	return ds, nil
}

// Hook returns NPU npu's initial values for a chunk of collective coll.
func (ds *DataChecks) Hook(coll, npu, chunk int) []int64 {
	if coll < 0 || coll >= len(ds.checks) {
		if ds.err == nil {
			ds.err = fmt.Errorf("the run issued collective %d; the check knows %d", coll, len(ds.checks))
		}
		return nil
	}
	return ds.checks[coll].Hook(coll, npu, chunk)
}

// Observe hands each finished chunk to its collective's check.
func (ds *DataChecks) Observe(e observe.Event) {
	if e.Kind == observe.ChunkDone && e.Coll >= 0 && e.Coll < len(ds.checks) {
		ds.checks[e.Coll].Observe(e)
	}
}

// Result is the first failure, or nil when every collective holds.
func (ds *DataChecks) Result() error {
	if ds.err != nil {
		return ds.err
	}
	for i, d := range ds.checks {
		if err := d.Result(); err != nil {
			return fmt.Errorf("collective %d (%s): %w", i, d.plan.Op, err)
		}
	}
	return nil
}
