package collectives

import (
	"fmt"

	"github.com/acemu/acemu/machine"
)

// PhaseKind is the collective a group performs in one phase.
type PhaseKind uint8

// Phase kinds.
const (
	ReduceScatter PhaseKind = iota
	AllGather
	AllReduce
)

func (k PhaseKind) String() string {
	switch k {
	case ReduceScatter:
		return "reduce-scatter"
	case AllGather:
		return "all-gather"
	default:
		return "all-reduce"
	}
}

// Defaults of the ACE platform (Table III and Table V).
const (
	DefaultChunkBytes   = 64 << 10 // initial chunk: 64 KB
	DefaultMessageBytes = 8 << 10  // ACE message: 8 KB (Table V)
)

// MaxChunks bounds the chunks of one collective's plan (acemu microcode
// prints one NPU's programs of up to 2^22), and MaxChunkNPUs the chunks
// times the NPUs a run simulates one by one (1 when one stands for all,
// CheckSimulated): each chunk on each simulated NPU holds some 510 B while
// it runs (measured on 2x2x1 with 256 B chunks, ACE and baselines, folded
// and --full, the collector held tight), so 2^21 of them is about 1.1 GB
// of live memory, inside acemu's 1.5 GiB heap limit: 2^21 chunks of ACE,
// folded, took 29 s and 1.5 GB of RSS; 2^22 chunks took 6 GB before.
const (
	MaxChunks    = 1 << 22
	MaxChunkNPUs = 1 << 21
)

// CheckSimulated refuses a run of a collective of chunks chunks on npus
// NPUs simulated one by one (1 when one stands for all) whose chunk×NPU
// pairs pass MaxChunkNPUs, before it starts; what names the collective.
func CheckSimulated(what string, chunks int64, npus int) error {
	if pairs := chunks * int64(npus); pairs > MaxChunkNPUs {
		if npus == 1 {
			return fmt.Errorf("%s: %d chunks, more than the %d a run simulates (about 510 B of memory each, docs/bad-input.md \"Limits\"); use a larger chunk or a smaller size",
				what, chunks, int64(MaxChunkNPUs))
		}
		return fmt.Errorf("%s: %d chunks on each of %d NPUs simulated one by one is %d chunk×NPU pairs, more than %d (about 510 B of memory each, docs/bad-input.md \"Limits\"); use a larger chunk or a smaller size",
			what, chunks, npus, pairs, int64(MaxChunkNPUs))
	}
	return nil
}

// Plan is a collective cut into chunks that each run every phase of an
// algorithm in order on every NPU. Chunks are independent: chunk k may be in
// phase 3 on an NPU while chunk k+1 is in phase 1.
//
// A Plan caches programs and is not safe for concurrent use; give each
// simulation its own.
type Plan struct {
	Config
	Algorithm  string // registered name
	Algo       Algorithm
	Payload    int64 // bytes per NPU
	ChunkBytes int64

	phases []string
	span   []machine.Dim // the dimensions Span names, or Groups' (nil: every NPU)
	cache  map[progKey][]*Program
	flows  map[*Program]*Flow // Analyze of the reference programs CheckEquivariant compares against
	// equiv is CheckEquivariant's answer, found while the plan was built
	// (equivKnown) and forgotten when SetProgram changes a program.
	equiv      error
	equivKnown bool
}

type progKey struct {
	npu   int
	chunk int64
}

// NewPlan builds the named algorithm for cfg and checks that it yields valid
// programs for every NPU and both chunk lengths (full and last): NPU 0's
// and, when a hierarchical plan on the torus's dimensions is equivariant
// (decideByPosition), the members of NPU 0's groups, whose programs every
// other NPU's translate; otherwise every NPU's.
func NewPlan(cfg Config, algorithm string, payload, chunkBytes int64) (*Plan, error) {
	switch {
	case payload < 1:
		return nil, fmt.Errorf("collective size %d bytes: must be at least 1 byte", payload)
	case chunkBytes < 1:
		return nil, fmt.Errorf("chunk size %d bytes: must be at least 1 byte", chunkBytes)
	case (payload+chunkBytes-1)/chunkBytes > MaxChunks:
		return nil, fmt.Errorf("%d bytes in chunks of %d is %d chunks, more than %d; use a larger chunk", payload, chunkBytes, (payload+chunkBytes-1)/chunkBytes, MaxChunks)
	}
	if cfg.Op == OpAllToAll {
		n := int64(cfg.Machine.N())
		if c := min(chunkBytes, payload); c < n {
			return nil, fmt.Errorf("all-to-all in chunks of %d bytes on %d NPUs gives each destination nothing; use a chunk and a size of at least %d bytes (one per NPU)", c, n, n)
		}
	}
	if cfg.Groups != nil { // the plan's own copy: the caller may reuse its lists
		groups := make([][]int, len(cfg.Groups))
		for i, g := range cfg.Groups {
			groups[i] = append([]int{}, g...)
		}
		cfg.Groups = groups
	}
	alg, err := NewAlgorithm(algorithm, cfg)
	if err != nil {
		return nil, err
	}
	p := &Plan{Config: cfg, Algorithm: algorithm, Algo: alg, Payload: payload, ChunkBytes: chunkBytes,
		phases: alg.Phases(), cache: map[progKey][]*Program{}}
	if cfg.spanned() {
		if p.span, err = cfg.spanAxes(); err != nil {
			return nil, err
		}
	}
	lens := []int64{p.ChunkLen(0)}
	if last := p.ChunkLen(p.NumChunks() - 1); last != lens[0] {
		lens = append(lens, last)
	}
	// Every NPU's programs are built and checked; only NPU 0's are kept
	// (the others are built again when a run on a full network asks), so a
	// plan holds one NPU's programs, whatever the NPU count. The same pass
	// finds whether every NPU runs NPU 0's programs translated
	// (CheckEquivariant), so that a folded run does not build them again.
	s, folds := cfg.Machine.Folder()
	switch decided, err := p.decideByPosition(s, folds, lens); {
	case decided && err == nil:
		return p, nil
	case decided && cfg.Machine.N() > machine.MaxFullNPUs:
		// Not equivariant, on more NPUs than a run simulates one by one:
		// no run can use every NPU's programs, so they are not built.
		p.equiv, p.equivKnown = err, true
		return p, nil
	}
	for _, l := range lens {
		for npu := 0; npu < cfg.Machine.N(); npu++ {
			var progs []*Program
			var err error
			if npu == 0 {
				progs, err = p.programs(0, l)
			} else {
				progs, _, err = p.look(npu, l)
			}
			if err != nil {
				return nil, fmt.Errorf("%s %s on %s: NPU %d: %w", algorithm, cfg.Op, cfg.Machine, npu, err)
			}
			for ph, prog := range progs {
				if err := prog.Validate(); err != nil {
					return nil, fmt.Errorf("%s %s on %s: phase %d: %w", algorithm, cfg.Op, cfg.Machine, ph+1, err)
				}
			}
			if npu > 0 && p.equiv == nil {
				p.equiv = p.translatesFrom0(s, folds, npu, l, progs)
			}
		}
	}
	p.equivKnown = true
	return p, nil
}

// decideByPosition builds and checks NPU 0's programs for every chunk
// length and, for a hierarchical plan on the torus's dimensions, decides
// equivariance from the members of NPU 0's groups (Hierarchical.byPosition):
// decided, with a nil error when every NPU runs NPU 0's programs
// translated (the others are then checked, translates of programs that
// are valid being valid, and built only when a run on a full network
// asks), or with the reason they do not. Undecided, the caller builds and
// checks every NPU's.
func (p *Plan) decideByPosition(s machine.Folder, folds bool, lens []int64) (decided bool, err error) {
	h, ok := p.Algo.(*Hierarchical)
	if !ok || !folds {
		return false, nil
	}
	for _, l := range lens {
		progs, err := p.programs(0, l)
		if err != nil {
			return false, nil
		}
		for _, prog := range progs {
			if prog.Validate() != nil {
				return false, nil
			}
		}
		if decided, err := h.byPosition(p, s, l, progs); !decided || err != nil {
			return decided, err
		}
	}
	p.equiv, p.equivKnown = nil, true
	return true, nil
}

// NumPhases returns the number of phases.
func (p *Plan) NumPhases() int { return len(p.phases) }

// PhaseName describes phase ph.
func (p *Plan) PhaseName(ph int) string { return p.phases[ph] }

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
// bytes. Programs are built once per (NPU, chunk length) and shared: callers
// must not change them (tests that do, to break a plan on purpose, say so).
func (p *Plan) Program(npu, ph int, chunkLen int64) *Program {
	progs, err := p.programs(npu, chunkLen)
	if err != nil {
		panic(fmt.Sprintf("collectives: %v (NewPlan checked this chunk length?)", err))
	}
	return progs[ph]
}

func (p *Plan) programs(npu int, chunkLen int64) ([]*Program, error) {
	progs, cached, err := p.look(npu, chunkLen)
	if err == nil && !cached {
		p.cache[progKey{npu, chunkLen}] = progs // the programs the plan builds: equivariance stands
	}
	return progs, err
}

// look returns NPU npu's programs for a chunk length: the cached ones
// (built before, or set by SetProgram), or newly built ones it does not
// keep (cached false).
func (p *Plan) look(npu int, chunkLen int64) (progs []*Program, cached bool, err error) {
	if progs, ok := p.cache[progKey{npu, chunkLen}]; ok {
		return progs, true, nil
	}
	progs, err = p.Algo.Build(npu, chunkLen)
	if err != nil {
		return nil, false, err
	}
	if len(progs) != len(p.phases) {
		return nil, false, fmt.Errorf("built %d programs for %d phases", len(progs), len(p.phases))
	}
	for _, prog := range progs {
		prog.NPU = npu
	}
	return progs, false, nil
}

// SetProgram replaces NPU npu's programs for a chunk length: for user
// microcode (the caller checks it) and for tests that break a plan on purpose.
func (p *Plan) SetProgram(npu int, chunkLen int64, progs []*Program) error {
	if len(progs) != len(p.phases) {
		return fmt.Errorf("NPU %d: %d programs for %d phases", npu, len(progs), len(p.phases))
	}
	p.cache[progKey{npu, chunkLen}] = progs
	p.equivKnown = false
	return nil
}

// flow is Analyze(prog), worked out once per program.
func (p *Plan) flow(prog *Program) *Flow {
	if f, ok := p.flows[prog]; ok {
		return f
	}
	if p.flows == nil {
		p.flows = map[*Program]*Flow{}
	}
	f := Analyze(prog)
	p.flows[prog] = &f
	return &f
}
