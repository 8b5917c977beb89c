package train

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/workload"
)

// IssueKind is how the training loop's weight-gradient all-reduces reach
// the Comm (docs/training-loop.md, "Issue policies"): as soon as their
// gradients exist, or under one of the three designs of "Efficient
// Embedding of MPI Collectives in MXNET DAGs for scaling Deep Learning"
// (Mamidala, Section 4).
type IssueKind int

// The issue policies.
const (
	// IssueEager issues each all-reduce when its gradients exist, with no
	// limit on how many are in flight; the Comm orders those in flight
	// (LIFO or FIFO, the ACE paper, Section V). The default.
	IssueEager IssueKind = iota
	// IssueFunnel is MPI Funneled (Section 4.1): one thread issues the
	// all-reduces in key order, blocking on each gradient, its copy and
	// its all-reduce, so one is in flight; the next iteration's forward
	// pass starts once the last has returned.
	IssueFunnel
	// IssueConCum is MPI Concurrent Communicators (Section 4.2): the
	// thread blocks on each gradient and its copy, issues its all-reduce
	// on a communicator of its own without waiting for it, and after keys
	// 0, k, 2k, … (key % k == 0, the paper's Fig. 8) waits for every
	// all-reduce in flight (its barrier); up to k are in flight.
	IssueConCum
	// IssueDepCha is MPI Dependency Chaining (Section 4.3): every copy is
	// queued as soon as its gradient exists and the all-reduces run one at
	// a time in key order, each once its copy is done and the one before
	// it has returned (the dummy tensor's write chain); nothing blocks the
	// issuing thread, so the next forward pass waits only, layer by layer,
	// for each layer's own all-reduce.
	IssueDepCha
)

var issueNames = [...]string{"eager", "funnel", "concum", "depcha"}

// String names the kind as ParseIssuePolicy reads it.
func (k IssueKind) String() string {
	if k >= 0 && int(k) < len(issueNames) {
		return issueNames[k]
	}
	return fmt.Sprintf("IssueKind(%d)", int(k))
}

// KeyOrder is how the all-reduces are numbered, which the keyed policies
// (Funnel, ConCum, DepCha) issue them by. The MXNet-MPI paper says only
// that "MXNET linearly orders all the relevant tensors and assigns unique
// keys, starting from zero" (Section 4), not whether key 0 is the first
// layer's or the last's.
type KeyOrder int

const (
	// KeysBackward numbers them in the order back-prop produces them:
	// key 0 is the last layer's. The default [choice]
	// (docs/training-loop.md, "Issue policies"): it is the order under
	// which the paper's Funnel can overlap at all, as Section 4.1 says
	// it does.
	KeysBackward KeyOrder = iota
	// KeysForward numbers them from the first layer: key 0 is the last
	// gradient back-prop produces.
	KeysForward
)

// String is "backward" or "forward".
func (o KeyOrder) String() string {
	if o == KeysForward {
		return "forward"
	}
	return "backward"
}

// ParseKeyOrder reads "backward" or "forward".
func ParseKeyOrder(s string) (KeyOrder, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "backward":
		return KeysBackward, nil
	case "forward":
		return KeysForward, nil
	}
	return 0, fmt.Errorf("key order %q: use backward (key 0 is the last layer's gradient, the first back-prop produces) or forward (key 0 is the first layer's)", s)
}

// DefaultOutstanding is ConCum's limit when IssuePolicy.Outstanding is 0:
// OUTSTANDING=2, the MXNet-MPI paper's Fig. 8.
const DefaultOutstanding = 2

// MaxOutstanding bounds ConCum's limit: more than any NPU's collective
// engine tracks (it is the communicators the paper creates, one per
// engine thread).
const MaxOutstanding = 1 << 16

// IssuePolicy is how the loop issues data parallelism's weight-gradient
// all-reduces (docs/training-loop.md, "Issue policies"). The zero value is
// IssueEager with no copies: the loop as the ACE paper runs it.
type IssuePolicy struct {
	Kind IssueKind
	// Outstanding is ConCum's k (0: DefaultOutstanding).
	Outstanding int
	// Keys is the key order of the keyed policies.
	Keys KeyOrder
	// CopyGBps, when set, is the rate (GB/s) of the copy of each gradient
	// into its communication buffer that the keyed policies make before
	// its all-reduce (the MXNet-MPI paper's CopyFromTo, Section 4, phase
	// 1 of Section 4.3), on one copy engine, one copy at a time, beside
	// compute. Nil: no copy ([choice], docs/training-loop.md: acemu's
	// endpoints read a gradient where compute wrote it).
	CopyGBps *big.Rat
}

// keyed reports whether p hands all-reduces to the dispatcher.
func (p IssuePolicy) keyed() bool { return p.Kind != IssueEager }

// outstanding is ConCum's k.
func (p IssuePolicy) outstanding() int {
	if p.Outstanding == 0 {
		return DefaultOutstanding
	}
	return p.Outstanding
}

// String names the policy as ParseIssuePolicy reads it: "eager",
// "funnel", "concum:2", "depcha".
func (p IssuePolicy) String() string {
	if p.Kind == IssueConCum {
		return fmt.Sprintf("concum:%d", p.outstanding())
	}
	return p.Kind.String()
}

// IssuePolicies returns the policies' names, the default first.
func IssuePolicies() []string { return append([]string(nil), issueNames[:]...) }

// ParseIssuePolicy reads a policy's name: eager, funnel, depcha, or
// concum with an optional limit, "concum:4" (default 2). Key order and
// copies are set on their own.
func ParseIssuePolicy(s string) (IssuePolicy, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	name, arg, hasArg := strings.Cut(t, ":")
	for i, n := range issueNames {
		if name != n {
			continue
		}
		p := IssuePolicy{Kind: IssueKind(i)}
		if !hasArg {
			return p, nil
		}
		if p.Kind != IssueConCum {
			return p, fmt.Errorf("issue policy %q: only concum takes a limit (concum:K)", s)
		}
		k, err := strconv.Atoi(arg)
		if err != nil || k < 1 || k > MaxOutstanding || strings.TrimLeft(arg, "0123456789") != "" || arg[0] == '0' {
			return p, fmt.Errorf("issue policy %q: concum's limit must be a whole number from 1 to %d", s, MaxOutstanding)
		}
		p.Outstanding = k
		return p, nil
	}
	return IssuePolicy{}, fmt.Errorf("issue policy %q: use one of eager, funnel, concum, concum:K, depcha (docs/training-loop.md, \"Issue policies\")", s)
}

// Check reports whether p is usable: its kind and limit, and a key
// order or copies only under a keyed policy.
func (p IssuePolicy) Check() error {
	switch {
	case p.Kind < 0 || int(p.Kind) >= len(issueNames):
		return fmt.Errorf("issue policy %s: use one of %s", p.Kind, strings.Join(issueNames[:], ", "))
	case p.Outstanding < 0 || p.Outstanding > MaxOutstanding:
		return fmt.Errorf("issue policy %s: concum's limit %d must be from 1 to %d", p.Kind, p.Outstanding, MaxOutstanding)
	case p.Outstanding != 0 && p.Kind != IssueConCum:
		return fmt.Errorf("issue policy %s: a limit of %d outstanding is concum's; drop it", p.Kind, p.Outstanding)
	case p.Keys != KeysBackward && p.Keys != KeysForward:
		return fmt.Errorf("key order %d: use KeysBackward or KeysForward", p.Keys)
	case p.CopyGBps != nil && p.CopyGBps.Sign() <= 0:
		return fmt.Errorf("gradient copy rate %s GB/s: must be more than 0 (or none)", p.CopyGBps.RatString())
	case p.Keys != KeysBackward && !p.keyed():
		return fmt.Errorf("key order %s: only the keyed policies (funnel, concum, depcha) issue by key; drop the key order or choose one", p.Keys)
	case p.CopyGBps != nil && !p.keyed():
		return fmt.Errorf("gradient copies at %s GB/s: only the keyed policies (funnel, concum, depcha) copy gradients; drop the copy rate or choose one", p.CopyGBps.RatString())
	}
	return nil
}

// Fusion is tensor fusion: the weight-gradient all-reduces of several
// layers run as one (docs/training-loop.md, "Tensor fusion"). The zero
// value fuses nothing: one all-reduce a layer.
type Fusion struct {
	// BucketBytes, when more than 0, fuses consecutive layers' all-reduces
	// in the order back-prop produces them into buckets: a bucket closes
	// with the layer that brings it to BucketBytes or more, or with layer
	// 0.
	BucketBytes int64
	// Buckets, when set, is the plan itself, overriding BucketBytes: each
	// bucket's layers' all-reduces run as one, issued when the last of
	// its gradients exists (its lowest layer's). Every layer with a
	// weight-gradient all-reduce is in exactly one bucket; a layer without
	// one adds nothing.
	Buckets []Bucket
}

// Bucket is one fused all-reduce of a plan.
type Bucket struct {
	// Layers are the layers whose weight-gradient all-reduces it holds.
	Layers []int
	// SMs is the communication SMs its all-reduce asks of the Comm
	// (IssueOptions.SMs); 0: the system's.
	SMs int
}

// AllReduce is b's fused all-reduce in w: its layers' weight-gradient
// bytes together.
func (b Bucket) AllReduce(w *workload.Workload) workload.Comm {
	c := workload.Comm{Type: workload.CommAllReduce}
	for _, l := range b.Layers {
		c.Bytes += w.Layers[l].WtGradComm.Bytes
	}
	return c
}

// On reports whether f fuses anything.
func (f Fusion) On() bool { return f.BucketBytes > 0 || len(f.Buckets) > 0 }

// String describes f: "none", "buckets of 25000000 B", "a plan of 3 buckets".
func (f Fusion) String() string {
	switch {
	case len(f.Buckets) > 0:
		return fmt.Sprintf("a plan of %d buckets", len(f.Buckets))
	case f.BucketBytes > 0:
		return fmt.Sprintf("buckets of %d B", f.BucketBytes)
	}
	return "none"
}

// ParseFusion reads a bucket size: "none" or a whole number of bytes.
func ParseFusion(s string) (Fusion, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "none" || t == "0" {
		return Fusion{}, nil
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 || n > workload.MaxCommBytes {
		return Fusion{}, fmt.Errorf("tensor fusion %q: give none or a bucket size in bytes from 1 to %d", s, int64(workload.MaxCommBytes))
	}
	return Fusion{BucketBytes: n}, nil
}

// WtGradBuckets returns the buckets f makes of w's weight-gradient
// all-reduces, each in the order back-prop produces them (its layers
// highest first), the buckets in that order too; nil when f fuses
// nothing or w has none. An error names a plan that leaves out a layer,
// lists one twice or names one w does not have.
func WtGradBuckets(w *workload.Workload, f Fusion) ([]Bucket, error) {
	if f.BucketBytes < 0 {
		return nil, fmt.Errorf("tensor fusion: bucket size %d B must be at least 1 (or 0: none)", f.BucketBytes)
	}
	if !f.On() {
		return nil, nil
	}
	hasAR := func(l int) bool { return w.Layers[l].WtGradComm.Type == workload.CommAllReduce }
	if len(f.Buckets) == 0 {
		var out []Bucket
		var cur Bucket
		var size int64
		for l := len(w.Layers) - 1; l >= 0; l-- {
			if !hasAR(l) {
				continue
			}
			cur.Layers = append(cur.Layers, l)
			if size += w.Layers[l].WtGradComm.Bytes; size >= f.BucketBytes {
				out, cur, size = append(out, cur), Bucket{}, 0
			}
		}
		if len(cur.Layers) > 0 {
			out = append(out, cur)
		}
		return out, nil
	}
	in := make([]int, len(w.Layers)) // the bucket a layer is in, + 1
	var out []Bucket
	for i, b := range f.Buckets {
		if b.SMs < 0 || b.SMs > npu.SMs {
			return nil, fmt.Errorf("tensor fusion: bucket %d asks for %d communication SMs; the NPU has %d (0: the system's)", i+1, b.SMs, npu.SMs)
		}
		nb := Bucket{SMs: b.SMs}
		for _, l := range b.Layers {
			switch {
			case l < 0 || l >= len(w.Layers):
				return nil, fmt.Errorf("tensor fusion: bucket %d lists layer %d; %s has layers 0 to %d", i+1, l, w.Name, len(w.Layers)-1)
			case in[l] != 0:
				return nil, fmt.Errorf("tensor fusion: layer %d (%s) is in buckets %d and %d; each layer's gradients go in one", l, w.Layers[l].Name, in[l], i+1)
			}
			in[l] = i + 1
			if hasAR(l) {
				nb.Layers = append(nb.Layers, l)
			}
		}
		if len(nb.Layers) > 0 {
			slices.Sort(nb.Layers)
			slices.Reverse(nb.Layers)
			out = append(out, nb)
		}
	}
	for l := range w.Layers {
		if hasAR(l) && in[l] == 0 {
			return nil, fmt.Errorf("tensor fusion: layer %d (%s) has a weight-gradient all-reduce and is in no bucket; the plan must hold every such layer", l, w.Layers[l].Name)
		}
	}
	// Issued in the order their last gradients exist.
	slices.SortStableFunc(out, func(a, b Bucket) int { return b.Layers[len(b.Layers)-1] - a.Layers[len(a.Layers)-1] })
	return out, nil
}

// dispatcher issues the keyed policies' all-reduces (IssuePolicy): the
// issuing thread's place in the keys, the copy engine's queue, the
// all-reduces in flight.
type dispatcher struct {
	lp  *loop
	pol IssuePolicy
	// rate is the copy engine's bytes a cycle; nil: copies take no time.
	rate *big.Rat
	// keys are every keyed collective in key order, iteration after
	// iteration; next is the first the issuing thread (Funnel, ConCum) or
	// the chain (DepCha) has not passed.
	keys []int
	next int
	// copyQ are the collectives whose copies wait for the engine, in the
	// order they were asked for; copying the one on it, or -1.
	copyQ   []int
	copying int
	// inflight is how many of its all-reduces are issued and not done.
	inflight int
	// running is set while run runs; again, that something it waits for
	// changed meanwhile (a Comm that reports an all-reduce done within
	// Issue), so run goes round once more instead of running inside
	// itself.
	running, again bool
	// doneUpTo is how many keys from the first are all done.
	doneUpTo int
}

// evCopy is the copy engine's event: collective arg's copy is done.
const evCopy int32 = 1

func newDispatcher(lp *loop, pol IssuePolicy) *dispatcher {
	d := &dispatcher{lp: lp, pol: pol, copying: -1}
	if pol.CopyGBps != nil {
		d.rate = npu.MemBytesPerCycle(pol.CopyGBps)
	}
	return d
}

// copyCycles is how long collective id's copy takes: its bytes at the
// copy rate, rounded up to a whole cycle.
func (d *dispatcher) copyCycles(id int) rtl.Cycle {
	if d.rate == nil {
		return 0
	}
	q := new(big.Rat).Quo(big.NewRat(d.lp.colls[id].bytes, 1), d.rate)
	c := new(big.Int).Add(q.Num(), new(big.Int).Sub(q.Denom(), big.NewInt(1)))
	return rtl.Cycle(c.Quo(c, q.Denom()).Int64())
}

// push records at now that collective id's gradients exist.
func (d *dispatcher) push(now rtl.Cycle, id int) {
	d.lp.colls[id].pushed = true
	if d.pol.Kind == IssueDepCha { // every copy queued at once
		d.copy(now, id)
	}
	d.run(now)
}

// copy queues collective id's copy and starts the engine if idle.
func (d *dispatcher) copy(now rtl.Cycle, id int) {
	d.lp.colls[id].copyAsked = true
	d.copyQ = append(d.copyQ, id)
	d.startCopy(now)
}

// startCopy puts the next queued copy on the engine if it is idle; a copy
// of no time is done at once.
func (d *dispatcher) startCopy(now rtl.Cycle) {
	for d.copying < 0 && len(d.copyQ) > 0 {
		id := d.copyQ[0]
		d.copyQ = d.copyQ[1:]
		if c := d.copyCycles(id); c > 0 {
			d.copying = id
			d.lp.k.Schedule(now+c, d, evCopy, int64(id))
			return
		}
		d.lp.colls[id].copied = true
	}
}

// Handle ends a copy.
func (d *dispatcher) Handle(now rtl.Cycle, _ int32, arg int64) {
	d.lp.colls[arg].copied = true
	d.copying = -1
	d.startCopy(now)
	d.run(now)
}

// done is told that one of its all-reduces is done.
func (d *dispatcher) done(now rtl.Cycle) {
	d.inflight--
	d.run(now)
}

// firstUndone returns the index in keys of the first key not done (every
// key before it is), or len(keys).
func (d *dispatcher) firstUndone() int {
	for d.doneUpTo < len(d.keys) && d.lp.colls[d.keys[d.doneUpTo]].done {
		d.doneUpTo++
	}
	return d.doneUpTo
}

// passed is how many keys the issuing thread is done with (Funnel,
// ConCum): what the next forward pass waits for.
func (d *dispatcher) passed() int { return d.next }

// run moves the issuing thread, or the chain, as far as it can at now.
func (d *dispatcher) run(now rtl.Cycle) {
	if d.running {
		d.again = true
		return
	}
	d.running = true
	moved := false
	for again := true; again; {
		d.again = false
		moved = d.step(now) || moved
		again = d.again
	}
	d.running = false
	if moved {
		d.lp.wake(now)
	}
}

// step is one round of run; it reports whether the issuing thread passed
// a key. The key's place is taken before its all-reduce is issued, so
// that a round run again from within the issue finds it.
func (d *dispatcher) step(now rtl.Cycle) bool {
	lp := d.lp
	moved := false
	for d.next < len(d.keys) && lp.err == nil {
		id := d.keys[d.next]
		c := &lp.colls[id]
		if d.pol.Kind == IssueDepCha {
			if !c.copied || d.next > 0 && !lp.colls[d.keys[d.next-1]].done {
				break
			}
			d.next++
			d.issue(now, id)
			continue
		}
		if !c.pushed { // the thread waits for the gradient (WaitToRead)
			break
		}
		if !c.copyAsked {
			d.copy(now, id)
		}
		if !c.copied {
			break
		}
		if !c.issued {
			d.issue(now, id)
		}
		if d.pol.Kind == IssueFunnel && !c.done { // MPI_Allreduce returns
			break
		}
		if d.pol.Kind == IssueConCum && c.key%d.pol.outstanding() == 0 && d.inflight > 0 { // the barrier
			break
		}
		d.next++
		moved = true
	}
	return moved
}

// why says what keeps collective id, pushed or not, from being issued.
func (d *dispatcher) why(id int) string {
	c := &d.lp.colls[id]
	switch {
	case !c.pushed:
		return "its gradients do not exist yet"
	case c.copyAsked && !c.copied:
		return "its gradients' copy is not done"
	case d.next < len(d.keys) && d.keys[d.next] != id:
		at := d.keys[d.next]
		return fmt.Sprintf("%s issues by key, and is at key %d, the %s", d.pol, d.lp.colls[at].key, d.lp.describe(at))
	case d.pol.Kind == IssueDepCha && d.next > 0:
		return fmt.Sprintf("depcha chains it after the %s", d.lp.describe(d.keys[d.next-1]))
	}
	return fmt.Sprintf("%s has not issued it", d.pol)
}

// issue hands collective id to the Comm.
func (d *dispatcher) issue(now rtl.Cycle, id int) {
	d.inflight++
	if err := d.lp.issueNow(now, id); err != nil {
		d.lp.fail(fmt.Errorf("issue the %s (%s): %w", d.lp.describe(id), d.pol, err))
	}
}
