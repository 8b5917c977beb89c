package collectives

// Direct is the direct all-to-all: one phase in which every NPU sends each
// other NPU its block straight away, routed (RouteXYZ).
//
// A chunk of C bytes on P NPUs is P blocks of q = AllToAllBlock(C, P) bytes
// and a tail of C mod P bytes that stays (OpAllToAll). NPU i sends its block
// j to NPU j and receives NPU j's block i into its own block j, storing, for
// every j ≠ i; its block i and the tail stay. Each block goes as
// ceil(q/MessageBytes) near-equal messages (messageRanges).
//
// Sends are issued all at once, to NPU i+d for the displacements d = 1, 2,
// …, P-1 in that order, where i+d is the machine's translation
// (machine.Folder.Displace; on the torus the displacement d read as
// coordinates, added round each ring; on a machine without one, (i+d) mod
// P), so at any
// moment the NPUs are sending to P different destinations rather than all
// to NPU 0 first, and every NPU's program is NPU 0's translated
// (CheckEquivariant). Receives are laid out from NPU i-1, i-2, …, i-(P-1)
// in that order, the order the messages are sent in: NPU i-d sends to NPU i
// as its d-th destination. So with nm messages per block, NPU i's program
// is (P-1)·nm sends then (P-1)·nm receives, and the m-th message to NPU
// j = i+d is received by NPU j's op (P-1)·nm + (d-1)·nm + m. On a torus
// with one dimension longer than 1, i+d is (i+d) mod P.
//
// The exchange is in place: a receive into block j waits for the send (same
// message range) of block j to NPU j, so nothing is overwritten before it has
// been sent. The phase is one algorithm step (Steps 1, Step 0).
type Direct struct {
	cfg Config
}

// Phases names the single phase.
func (d *Direct) Phases() []string { return []string{"all-to-all on all NPUs (direct)"} }

// Build returns NPU npu's program for a chunk of chunkLen bytes.
func (d *Direct) Build(npu int, chunkLen int64) ([]*Program, error) {
	p := d.cfg.Machine.N()
	q := AllToAllBlock(chunkLen, p)
	prog := &Program{NPU: npu, View: []Range{{0, chunkLen}}, Out: []Range{{0, chunkLen}}, Steps: 1}
	block := func(j int) []Range { return messageRanges(Range{int64(j) * q, q}, d.cfg.MessageBytes) }
	nm := int32(len(block(0)))
	sendIdx := make([]int32, p) // index of the first send of block j
	for s := 1; s < p; s++ {
		j := d.cfg.translate(npu, s)
		sendIdx[j] = int32(len(prog.Ops))
		for m, r := range block(j) {
			match := int32(p-1)*nm + int32(s-1)*nm + int32(m)
			prog.Ops = append(prog.Ops, Op{Kind: Send, Peer: int32(j), Port: RouteXYZ, Match: match, Data: r})
		}
	}
	for s := 1; s < p; s++ {
		j := d.cfg.translate(npu, d.cfg.inverse(s))
		for m, r := range block(j) {
			prog.Ops = append(prog.Ops, Op{Kind: Recv, Peer: int32(j), Port: RouteXYZ, Data: r,
				Deps: []int32{sendIdx[j] + int32(m)}})
		}
	}
	return []*Program{prog}, nil
}

// Input is the whole chunk.
func (d *Direct) Input(int, int64) []Range { return nil }

// Output is the whole chunk.
func (d *Direct) Output(int, int64) []Range { return nil }

func init() {
	Register("direct", []CollectiveOp{OpAllToAll},
		"every NPU sends each other NPU its block at once, routed, destinations spread (NPU i sends to i+1, i+2, … by the machine's translation, torus addition on a torus); one phase",
		func(cfg Config) (Algorithm, error) { return &Direct{cfg: cfg}, nil })
}
