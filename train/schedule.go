package train

import (
	"fmt"
	"strings"

	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/workload"
)

// Schedule is when the loop issues data parallelism's weight-gradient
// all-reduces and what the next iteration's forward pass waits for
// (docs/training-loop.md, "The one-shot schedule and gradient queuing").
// It applies to systems that overlap communication with compute
// (Config.Overlap); BaselineNoOverlap runs its own fused all-reduce under
// every schedule.
type Schedule int

// The schedules.
const (
	// ScheduleLayerwise issues each layer's weight-gradient all-reduce as
	// soon as its weight-gradient compute ends, and each layer's update in
	// the next iteration waits for its own (the ACE paper, Section V). The
	// default.
	ScheduleLayerwise Schedule = iota
	// ScheduleOneShot issues one all-reduce of every layer's weight gradients
	// when back-prop ends, the buffer in forward order (layer 0's gradients
	// first), and the next iteration's forward pass waits for all of it (the
	// C-Cube paper, "Logical/Physical Topology-Aware Collective Communication
	// in Deep Learning Training", Section II-B, Fig. 2(c): the "one-shot"
	// collective).
	ScheduleOneShot
	// ScheduleOneShotChained is ScheduleOneShot with gradient queuing (the
	// C-Cube paper, Section III-D, Figs. 8 and 9): layer l's update and
	// forward compute start once the all-reduce's bytes up to layer l's
	// last are final on every NPU, as the Comm reports them (ProgressComm:
	// chunk by chunk, or piece by piece on a pipelined tree), and layer
	// l−1's forward compute has ended.
	ScheduleOneShotChained
)

var scheduleNames = [...]string{"layerwise", "oneshot", "oneshot-chained"}

// String names the schedule as ParseSchedule reads it: "layerwise",
// "oneshot", "oneshot-chained".
func (s Schedule) String() string {
	if s >= 0 && int(s) < len(scheduleNames) {
		return scheduleNames[s]
	}
	return fmt.Sprintf("Schedule(%d)", int(s))
}

// Schedules returns the schedules' names, the default first.
func Schedules() []string { return append([]string(nil), scheduleNames[:]...) }

// ParseSchedule reads a schedule's name (String), ignoring case and
// surrounding space.
func ParseSchedule(s string) (Schedule, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for i, n := range scheduleNames {
		if t == n {
			return Schedule(i), nil
		}
	}
	return 0, fmt.Errorf("schedule %q: use one of %s (docs/training-loop.md, \"The one-shot schedule and gradient queuing\")", s, strings.Join(scheduleNames[:], ", "))
}

// valid reports whether s is one of the schedules.
func (s Schedule) valid() bool { return s >= 0 && int(s) < len(scheduleNames) }

// OneShot reports whether s issues one all-reduce of every layer's
// weight gradients at the end of back-prop (OneShotBytes).
func (s Schedule) OneShot() bool { return s == ScheduleOneShot || s == ScheduleOneShotChained }

// IssueOptions is what a schedule may ask of a collective beyond Issue.
type IssueOptions struct {
	// Done is Issue's done.
	Done func(now rtl.Cycle)
	// Progress, if set, is called with how many bytes from the start of
	// the collective's buffer (as Issue is given it, the Comm's padding
	// after it) hold their final values on every NPU, as that grows: from
	// a kernel event at that cycle, each report more than the last, the
	// last at least the collective's bytes, before Done.
	Progress func(now rtl.Cycle, bytes int64)
	// OneShot marks the schedule's one-shot all-reduce (ScheduleOneShot,
	// ScheduleOneShotChained), which a Comm may cut otherwise than other
	// collectives (the comparator's Options.WholeOneShot).
	OneShot bool
	// Group is the communicator the collective runs over (Group.All:
	// every NPU); bytes are per NPU, as for Issue.
	Group Group
	// SMs, when more than 0, is the communication SMs the collective asks
	// for (a tensor-fusion plan's Bucket.SMs: LIBRA's allocation); 0 is
	// the system's own.
	SMs int
}

// ProgressComm is a Comm that can also report how much of a collective is
// final as it completes: what gradient queuing (ScheduleOneShotChained)
// listens to. The comparator's Comm is one (afi.IssueOptions.Progress:
// chunk by chunk, or piece by piece on a pipelined tree).
type ProgressComm interface {
	Comm
	// IssueWith is Issue with IssueOptions.
	IssueWith(now rtl.Cycle, op workload.CommType, bytes int64, o IssueOptions) error
}

// OneShotBytes returns the size of the one-shot all-reduce of w (and of
// BaselineNoOverlap's fused one): the sum of its layers' weight-gradient
// all-reduces, 0 when there are none.
func OneShotBytes(w *workload.Workload) int64 {
	var total int64
	for l := range w.Layers {
		if c := w.Layers[l].WtGradComm; c.Type == workload.CommAllReduce {
			total += c.Bytes
		}
	}
	return total
}

// LayerEnds is what gradient queuing waits by, the C-Cube paper's
// Layer-Chunk Table (Section III-D, Fig. 9: "the last gradient chunk
// offset of each layer") in bytes: for each layer in forward order, the
// bytes of the one-shot all-reduce's buffer up to and including its last
// gradient byte (OneShotBytes), which must be final before its update;
// 0 for a layer without a weight-gradient all-reduce, which waits for
// nothing. Where the Comm reports progress a chunk (or a tree's piece) at
// a time, a layer whose last byte shares a chunk with the next layer's
// first waits for that whole chunk.
func LayerEnds(w *workload.Workload) []int64 {
	out := make([]int64, len(w.Layers))
	var end int64 // the buffer's layers in forward order, each at its own size
	for l := range w.Layers {
		if c := w.Layers[l].WtGradComm; c.Type == workload.CommAllReduce && c.Bytes > 0 {
			end += c.Bytes
			out[l] = end
		}
	}
	return out
}
