package collectives

import (
	"fmt"
	"strings"
)

// CollectiveOp is what a collective computes.
type CollectiveOp uint8

// The collectives.
const (
	// OpAllReduce: every NPU ends with the element-wise sum of all NPUs' data.
	OpAllReduce CollectiveOp = iota
	// OpReduceScatter: every NPU ends owning a distinct part of the chunk
	// (Algorithm.Output), holding there the sum over all NPUs.
	OpReduceScatter
	// OpAllGather: every NPU starts owning a distinct part (Algorithm.Input)
	// and ends with every part.
	OpAllGather
	// OpAllToAll: a chunk of C bytes is P blocks of q = floor(C/P) bytes
	// (P NPUs) and a tail of C mod P bytes; block j of NPU i goes to block i
	// of NPU j. The tail stays where it is.
	OpAllToAll
)

var opNames = []string{"allreduce", "reduce-scatter", "all-gather", "all-to-all"}

func (o CollectiveOp) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// ParseOp reads a collective's name. Dashes and case are ignored, so
// "all-reduce", "allreduce" and "AllReduce" are the same.
func ParseOp(s string) (CollectiveOp, error) {
	norm := func(x string) string { return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(x)), "-", "") }
	for i, n := range opNames {
		if norm(s) == norm(n) {
			return CollectiveOp(i), nil
		}
	}
	return 0, fmt.Errorf("collective %q: want one of %s", s, strings.Join(opNames, ", "))
}

// AllToAllBlock returns the bytes each NPU sends each other NPU from a chunk
// of chunkLen bytes on n NPUs: floor(chunkLen/n).
func AllToAllBlock(chunkLen int64, n int) int64 { return chunkLen / int64(n) }
