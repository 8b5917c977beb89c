package collectives

import (
	"fmt"

	"github.com/acemu/acemu/torus"
)

// Phase is one stage of a multi-phase collective: a ring collective along
// one torus dimension.
type Phase struct {
	Kind PhaseKind
	Dim  torus.Dim
}

func (p Phase) String() string { return fmt.Sprintf("%s on the %s ring", p.Kind, p.Dim) }

// Defaults of the ACE platform (Table III and Table V).
const (
	DefaultChunkBytes   = 64 << 10 // initial chunk: 64 KB
	DefaultMessageBytes = 8 << 10  // ACE message: 8 KB (Table V)
)

// Plan is a collective on a torus, cut into chunks that each run every phase
// in order on every NPU. Chunks are independent: chunk k may be in phase 3
// on an NPU while chunk k+1 is in phase 1.
type Plan struct {
	Shape        torus.Shape
	Phases       []Phase
	Payload      int64 // bytes per NPU
	ChunkBytes   int64
	MessageBytes int64
	// Bidirectional runs every ring phase in both directions, half the data
	// each way.
	Bidirectional bool

	cache map[progKey]*Program
}

type progKey struct {
	npu, phase int
	chunk      int64
}

// HierarchicalPhases returns the paper's all-reduce on an L×V×H torus:
// reduce-scatter on the local ring, all-reduce on the vertical ring,
// all-reduce on the horizontal ring, all-gather on the local ring. Phases on
// dimensions of size 1 are left out (they would move nothing).
func HierarchicalPhases(s torus.Shape) []Phase {
	all := []Phase{
		{ReduceScatter, torus.Local},
		{AllReduce, torus.Vertical},
		{AllReduce, torus.Horizontal},
		{AllGather, torus.Local},
	}
	var out []Phase
	for _, p := range all {
		if s.Size(p.Dim) > 1 {
			out = append(out, p)
		}
	}
	return out
}

// NewPlan returns a plan after checking its parameters. A reduce-scatter
// phase must be undone by a later all-gather on the same dimension (they nest
// like brackets), so that the all-gather finds each NPU holding exactly the
// blocks the reduce-scatter left it.
func NewPlan(s torus.Shape, phases []Phase, payload, chunkBytes, messageBytes int64) (*Plan, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	switch {
	case payload < 1:
		return nil, fmt.Errorf("collective size %d bytes: must be at least 1 byte", payload)
	case chunkBytes < 1:
		return nil, fmt.Errorf("chunk size %d bytes: must be at least 1 byte", chunkBytes)
	case messageBytes < 1:
		return nil, fmt.Errorf("message size %d bytes: must be at least 1 byte", messageBytes)
	}
	var open []torus.Dim
	for i, p := range phases {
		switch p.Kind {
		case ReduceScatter:
			open = append(open, p.Dim)
		case AllGather:
			if len(open) == 0 || open[len(open)-1] != p.Dim {
				return nil, fmt.Errorf("phase %d (%s): an all-gather must undo the latest open reduce-scatter on the same dimension", i+1, p)
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		return nil, fmt.Errorf("reduce-scatter on the %s ring is never undone by an all-gather: the plan would not end in an all-reduce", open[len(open)-1])
	}
	return &Plan{
		Shape: s, Phases: phases, Payload: payload, ChunkBytes: chunkBytes,
		MessageBytes: messageBytes, Bidirectional: true,
		cache: map[progKey]*Program{},
	}, nil
}

// NumChunks returns the number of chunks: ceil(Payload/ChunkBytes).
func (p *Plan) NumChunks() int { return int((p.Payload + p.ChunkBytes - 1) / p.ChunkBytes) }

// ChunkLen returns the bytes of chunk c; the last chunk takes the remainder.
func (p *Plan) ChunkLen(c int) int64 {
	off := int64(c) * p.ChunkBytes
	if rest := p.Payload - off; rest < p.ChunkBytes {
		return rest
	}
	return p.ChunkBytes
}

// Program returns what NPU npu does in phase ph for a chunk of chunkLen
// bytes. Programs are built once per (NPU, phase, chunk length) and shared:
// callers must not change them.
func (p *Plan) Program(npu, ph int, chunkLen int64) *Program {
	key := progKey{npu, ph, chunkLen}
	if prog, ok := p.cache[key]; ok {
		return prog
	}
	progs := p.build(npu, chunkLen)
	for i, prog := range progs {
		p.cache[progKey{npu, i, chunkLen}] = prog
	}
	return progs[ph]
}

// build makes every phase's program for one NPU and chunk length, carrying
// the view from phase to phase: a reduce-scatter narrows the view to the
// blocks this NPU owns, an all-reduce keeps it, an all-gather restores the
// view its reduce-scatter had.
func (p *Plan) build(npu int, chunkLen int64) []*Program {
	view := []Range{{0, chunkLen}}
	var stack [][]Range
	out := make([]*Program, len(p.Phases))
	for i, ph := range p.Phases {
		if ph.Kind == AllGather {
			view = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
		prog, err := RingProgram(RingSpec{
			Kind: ph.Kind, Dim: ph.Dim,
			Ring: p.Shape.Ring(npu, ph.Dim), Pos: p.Shape.RingPos(npu, ph.Dim),
			ViewLen: rangesLen(view), MessageBytes: p.MessageBytes, Bidirectional: p.Bidirectional,
		})
		if err != nil {
			panic(err) // parameters were checked by NewPlan
		}
		prog.View = view
		out[i] = prog
		if ph.Kind == ReduceScatter {
			stack = append(stack, view)
			view = mapRanges(view, prog.Out)
		}
	}
	return out
}
