// Package timeline records a run as a Chrome/Perfetto trace: JSON in the
// trace-event format, which ui.perfetto.dev and chrome://tracing open.
// Per NPU recorded it shows:
//   - the compute kernels, one after another;
//   - the training loop's waits for communication (exposed
//     communication), with where it waited and for which collectives;
//   - the collectives, from issue to completion;
//   - each chunk's phases on that NPU (on ACE, with the FSM that ran it);
//   - how busy each kind of ACE sub-step kept the NPU's ACE (DMA in and
//     out, sends, receives and reductions on the SRAM ports and ALUs), as
//     counters per window of cycles.
//
// docs/timeline.md has the layout.
package timeline

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
)

// Window is the cycles over which a busy counter is averaged (the
// paper's "1K cycles" of Section V, read as 1000, as the comparator's
// utilisation windows).
const Window = 1000

// Options say what a recording covers.
type Options struct {
	// NPUs are the NPUs whose chunks and ACE counters are recorded (nil:
	// NPU 0 only; a run of many NPUs would otherwise make a trace of
	// gigabytes). All: every NPU simulated.
	NPUs []int
	All  bool
	// StandsFor is how many NPUs the simulated NPU stands for in a folded
	// run (docs/architecture.md, "Folding"); 0 or 1 for a full run.
	StandsFor int
	// Name names the run (the system, the collective) in the trace.
	Name string
}

type spanKey struct{ npu, chunk, phase int }

type span struct {
	start, end rtl.Cycle
	fsm        int // the ACE FSM that ran the phase (-1: none, or not ACE)
}

// kernel is a compute kernel: its span and, from the training loop, its
// name (its layer and pass), iteration and layer (observe.KernelEnd).
type kernel struct {
	start, end  rtl.Cycle
	what        string
	iter, layer int
}

// Recorder is an observer (observe.Observer) that keeps what a trace
// shows; Write writes it.
type Recorder struct {
	opt     Options
	npus    map[int]bool
	kernels []kernel
	stalls  []stallSpan
	issued  map[int]rtl.Cycle // collectives issued and not done: when
	colls   []collSpan
	phases  map[spanKey]span
	busy    map[string]map[int][]int64 // sub-step kind → NPU → cycles busy per window (summed over sub-steps)
	last    rtl.Cycle
}

type stallSpan struct {
	start, end rtl.Cycle
	what       string
}

type collSpan struct {
	id         int
	what       string
	bytes      int64
	start, end rtl.Cycle
}

// New returns an empty recorder.
func New(opt Options) *Recorder {
	r := &Recorder{opt: opt, npus: map[int]bool{}, issued: map[int]rtl.Cycle{}, phases: map[spanKey]span{},
		busy: map[string]map[int][]int64{}}
	if len(opt.NPUs) == 0 {
		r.npus[0] = true
	}
	for _, n := range opt.NPUs {
		r.npus[n] = true
	}
	return r
}

func (r *Recorder) keeps(npu int) bool { return r.opt.All || r.npus[npu] }

// Observe records e.
func (r *Recorder) Observe(e observe.Event) {
	r.last = max(r.last, e.Cycle, e.End)
	switch e.Kind {
	case observe.KernelEnd:
		r.kernels = append(r.kernels, kernel{start: e.Cycle, end: e.End, what: e.What, iter: e.Step, layer: e.Op})
	case observe.Stall:
		r.stalls = append(r.stalls, stallSpan{e.Cycle, e.End, e.What})
	case observe.CollectiveIssued:
		r.issued[e.Coll] = e.Cycle
	case observe.CollectiveDone:
		start := r.issued[e.Coll]
		delete(r.issued, e.Coll)
		r.colls = append(r.colls, collSpan{id: e.Coll, what: e.What, bytes: e.Bytes, start: start, end: e.Cycle})
	case observe.OpStart, observe.OpDone:
		if r.keeps(e.NPU) {
			r.phase(e.NPU, e.Chunk, e.Phase, e.Cycle, e.Cycle, -1)
		}
	case observe.SubStep:
		if !r.keeps(e.NPU) {
			return
		}
		if e.Op >= 0 { // a DMA sub-step (Op -1) is not in a phase
			r.phase(e.NPU, e.Chunk, e.Phase, e.Cycle, e.End, e.FSM)
		}
		r.addBusy(e.What, e.NPU, e.Cycle, e.End)
	}
}

func (r *Recorder) phase(npu, chunk, ph int, start, end rtl.Cycle, fsm int) {
	k := spanKey{npu, chunk, ph}
	s, ok := r.phases[k]
	if !ok {
		s = span{start, end, fsm}
	}
	r.phases[k] = span{min(s.start, start), max(s.end, end), s.fsm}
}

// addBusy adds [start, end) to kind's busy cycles on npu, window by
// window.
func (r *Recorder) addBusy(kind string, npu int, start, end rtl.Cycle) {
	byNPU := r.busy[kind]
	if byNPU == nil {
		byNPU = map[int][]int64{}
		r.busy[kind] = byNPU
	}
	w := byNPU[npu]
	for t := start; t < end; {
		i := int(t / Window)
		next := min(end, rtl.Cycle(i+1)*Window)
		for len(w) <= i {
			w = append(w, 0)
		}
		w[i] += int64(next - t)
		t = next
	}
	byNPU[npu] = w
}

// event is one trace event (the trace-event format's fields).
type event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   json.Number    `json:"ts"`
	Dur  json.Number    `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   string         `json:"id,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// tenths is cycle c in tenths of a nanosecond at the NPU clock (1245
// MHz), rounded to the nearest (rtl.Cycle.TimeIn): c·2000/249.
func tenths(c rtl.Cycle) int64 { return c.TimeIn(10_000_000_000) }

// microsOf is t tenths of a nanosecond in microseconds, with four
// decimals.
func microsOf(t int64) json.Number {
	return json.Number(fmt.Sprintf("%d.%04d", t/10_000, t%10_000))
}

// micros is cycle c in microseconds at the NPU clock, with four decimals
// (0.1 ns), written the same way every time.
func micros(c rtl.Cycle) json.Number { return microsOf(tenths(c)) }

// slice is the ts and dur of a complete event from cycle start to end:
// both ends are rounded, and dur is their difference, so that slices that
// touch in cycles touch in the trace, with neither overlap nor gap.
func slice(start, end rtl.Cycle) (ts, dur json.Number) {
	return micros(start), microsOf(tenths(end) - tenths(start))
}

// Lanes (thread ids) of an NPU's process.
const (
	laneCompute = 1
	laneColls   = 2
	laneChunks  = 3
	laneACE     = 4
	laneStalls  = 5
)

// document is the JSON document Write writes.
type document struct {
	TraceEvents     []event        `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// Write writes the trace: metadata naming each NPU and lane, then the
// kernels, collectives, chunk phases and ACE counters, in an order that
// depends only on what was recorded.
func (r *Recorder) Write(w io.Writer) error {
	var evs []event
	npus := map[int]bool{0: true}
	for k := range r.phases {
		npus[k.npu] = true
	}
	for _, byNPU := range r.busy {
		for n := range byNPU {
			npus[n] = true
		}
	}
	ids := make([]int, 0, len(npus))
	for n := range npus {
		ids = append(ids, n)
	}
	slices.Sort(ids)
	for _, n := range ids {
		name := fmt.Sprintf("NPU %d", n)
		if r.opt.StandsFor > 1 {
			name += fmt.Sprintf(" (stands for all %d NPUs: a folded run)", r.opt.StandsFor)
		}
		evs = append(evs, event{Name: "process_name", Ph: "M", Pid: n, Args: map[string]any{"name": name}})
		for _, l := range []struct {
			tid  int
			name string
		}{{laneCompute, "compute kernels"}, {laneStalls, "waiting for communication"}, {laneColls, "collectives"}, {laneChunks, "chunk phases"}, {laneACE, "ACE"}} {
			evs = append(evs, event{Name: "thread_name", Ph: "M", Pid: n, Tid: l.tid, Args: map[string]any{"name": l.name}})
		}
	}
	// Compute and collectives are the same on every NPU (one NPU model
	// runs the training loop): they go on NPU 0.
	for _, k := range r.kernels {
		ts, dur := slice(k.start, k.end)
		e := event{Name: "kernel", Cat: "compute", Ph: "X", Ts: ts, Dur: dur, Pid: 0, Tid: laneCompute}
		if k.what != "" { // the training loop's: named by layer and pass
			e.Name, e.Args = k.what, map[string]any{"iteration": k.iter + 1, "layer": k.layer}
		}
		evs = append(evs, e)
	}
	for _, st := range r.stalls {
		ts, dur := slice(st.start, st.end)
		evs = append(evs, event{Name: "waiting for communication", Cat: "stall", Ph: "X", Ts: ts, Dur: dur,
			Pid: 0, Tid: laneStalls, Args: map[string]any{"waiting": st.what}})
	}
	slices.SortFunc(r.colls, func(a, b collSpan) int { return cmp.Compare(a.id, b.id) })
	for _, c := range r.colls {
		name := fmt.Sprintf("%s %d B", c.what, c.bytes)
		id := strconv.Itoa(c.id)
		args := map[string]any{"collective": c.id, "bytes": c.bytes}
		evs = append(evs, event{Name: name, Cat: "collective", Ph: "b", Ts: micros(c.start), Pid: 0, Tid: laneColls, ID: id, Args: args},
			event{Name: name, Cat: "collective", Ph: "e", Ts: micros(c.end), Pid: 0, Tid: laneColls, ID: id})
	}
	keys := make([]spanKey, 0, len(r.phases))
	for k := range r.phases {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b spanKey) int {
		return cmp.Or(cmp.Compare(a.npu, b.npu), cmp.Compare(a.chunk, b.chunk), cmp.Compare(a.phase, b.phase))
	})
	for _, k := range keys {
		s := r.phases[k]
		name := fmt.Sprintf("chunk %d phase %d", k.chunk, k.phase+1)
		id := fmt.Sprintf("%d.%d.%d", k.npu, k.chunk, k.phase)
		args := map[string]any{"chunk": k.chunk, "phase": k.phase + 1}
		if s.fsm >= 0 {
			name += fmt.Sprintf(" (FSM %d)", s.fsm)
			args["fsm"] = s.fsm
		}
		evs = append(evs, event{Name: name, Cat: "chunk", Ph: "b", Ts: micros(s.start), Pid: k.npu, Tid: laneChunks, ID: id, Args: args},
			event{Name: name, Cat: "chunk", Ph: "e", Ts: micros(s.end), Pid: k.npu, Tid: laneChunks, ID: id})
	}
	kinds := make([]string, 0, len(r.busy))
	for kind := range r.busy {
		kinds = append(kinds, kind)
	}
	slices.Sort(kinds)
	for _, kind := range kinds {
		byNPU := r.busy[kind]
		for _, n := range ids {
			ws, ok := byNPU[n]
			if !ok {
				continue
			}
			for i, b := range append(ws, 0) { // back to 0 after the last window
				// Sub-steps of a kind overlap (several ports, ALUs): the
				// counter is their mean number in flight over the window.
				v := strconv.FormatFloat(float64(b)/Window, 'f', 3, 64)
				evs = append(evs, event{Name: "ACE " + kind, Cat: "ace", Ph: "C", Ts: micros(rtl.Cycle(i) * Window), Pid: n, Tid: laneACE,
					Args: map[string]any{"in flight": json.Number(v)}})
			}
		}
	}
	t := document{TraceEvents: evs, DisplayTimeUnit: "ns", OtherData: map[string]any{
		"run": r.opt.Name, "clock_mhz": rtl.ClockHz / 1_000_000, "cycles": int64(r.last), "counter_window_cycles": Window,
		"folded": r.opt.StandsFor > 1, "stands_for_npus": max(r.opt.StandsFor, 1)}}
	enc := json.NewEncoder(w)
	if err := enc.Encode(t); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}
