package microcode

import (
	"strconv"
	"strings"

	"github.com/acemu/acemu/collectives"
)

// Columns names the columns of Listing.Rows.
var Columns = []string{"npu", "chunk_bytes", "phase", "phase_name", "op", "kind", "peer", "port", "data", "action", "step", "after", "forward"}

// Rows returns the listing as a table: one row per op, in the listing's
// order (Write). The action is what a receive does with its data (reduce
// or store), or the matching receive of a send (match=N); data is
// off+len in the phase's view; after lists the ops it waits on.
func (l Listing) Rows() [][]string {
	var rows [][]string
	for _, s := range l.Sections {
		for _, p := range s.Phases {
			for _, op := range p.Ops {
				action := "store"
				switch {
				case op.Match != nil:
					action = "match=" + strconv.Itoa(*op.Match)
				case *op.Reduce:
					action = "reduce"
				}
				after := make([]string, len(op.After))
				for i, d := range op.After {
					after[i] = strconv.Itoa(int(d))
				}
				rows = append(rows, []string{
					strconv.Itoa(s.NPU), strconv.FormatInt(s.ChunkBytes, 10), strconv.Itoa(p.Phase), p.Name,
					strconv.Itoa(op.Index), op.Kind, strconv.Itoa(op.Peer), op.Port, op.Data,
					action, strconv.Itoa(op.Step), strings.Join(after, ","), strconv.FormatBool(op.Forward),
				})
			}
		}
	}
	return rows
}

// Listing is sections as a JSON document: the same content as the text
// listing (Write), with every field named.
type Listing struct {
	Sections []ListedSection `json:"sections"`
}

// ListedSection is one section of a Listing.
type ListedSection struct {
	NPU        int           `json:"npu"`
	ChunkBytes int64         `json:"chunk_bytes"`
	Phases     []ListedPhase `json:"phases"`
}

// ListedPhase is one phase's program: its view and result ranges of the
// chunk (off+len), its steps, and its ops.
type ListedPhase struct {
	Phase int        `json:"phase"`
	Name  string     `json:"name"`
	View  []string   `json:"view"`
	Out   []string   `json:"out"`
	Steps int        `json:"steps"`
	Ops   []ListedOp `json:"ops"`
}

// ListedOp is one op: Match for a send, Reduce for a receive (false:
// store); Forward when a send forwards what a receive brought.
type ListedOp struct {
	Index   int     `json:"index"`
	Kind    string  `json:"kind"`
	Peer    int     `json:"peer"`
	Port    string  `json:"port"`
	Data    string  `json:"data"`
	Match   *int    `json:"match,omitempty"`
	Reduce  *bool   `json:"reduce,omitempty"`
	Step    int     `json:"step"`
	After   []int32 `json:"after"`
	Forward bool    `json:"forward"`
}

// List returns sections as a Listing.
func List(secs []Section) Listing {
	l := Listing{Sections: []ListedSection{}}
	for _, s := range secs {
		ls := ListedSection{NPU: s.NPU, ChunkBytes: s.ChunkLen}
		for ph, p := range s.Phases {
			flow := collectives.Analyze(p)
			name := ""
			if ph < len(s.Names) { // names are informational (Section)
				name = s.Names[ph]
			}
			lp := ListedPhase{Phase: ph + 1, Name: name, View: ranges(p.View), Out: ranges(p.Out), Steps: p.Steps, Ops: []ListedOp{}}
			for i, op := range p.Ops {
				port, _ := portName(op.Port)
				lo := ListedOp{Index: i, Kind: op.Kind.String(), Peer: int(op.Peer), Port: port, Data: rangeText(op.Data),
					Step: int(op.Step), After: append([]int32{}, op.Deps...), Forward: flow.ForwardOf[i] >= 0}
				if op.Kind == collectives.Send {
					m := int(op.Match)
					lo.Match = &m
				} else {
					r := op.Reduce
					lo.Reduce = &r
				}
				lp.Ops = append(lp.Ops, lo)
			}
			ls.Phases = append(ls.Phases, lp)
		}
		l.Sections = append(l.Sections, ls)
	}
	return l
}

func ranges(rs []collectives.Range) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, rangeText(r))
	}
	return out
}
