package ace

// This file: the report of a run that stopped making progress: who waits on what.

import (
	"fmt"
	"strings"

	"github.com/acemu/acemu/collectives"
)

// stuck reports what every unfinished chunk waits on.
func (r *run) stuck() error {
	var lines []string
	for _, nd := range r.nodes {
		var parts []string
		for i := range nd.part {
			parts = append(parts, fmt.Sprintf("%d/%d", nd.used[i], nd.part[i]))
		}
		lines = append(lines, fmt.Sprintf("NPU %d partitions used/size (phases 1.., terminal): %s; %d chunks loading, %d writing back", nd.id, strings.Join(parts, " "), len(nd.txq), len(nd.rxq)))
		for _, c := range nd.chunks {
			var what string
			switch c.state {
			case csDone:
				continue
			case csWaiting:
				if nd.nextAdmit >= len(r.order) || c.id != r.order[nd.nextAdmit] {
					continue
				}
				what = fmt.Sprintf("waits for room in phase 1's partition (%d of %d bytes used)", nd.used[0], nd.part[0])
			case csDMAIn:
				what = "is being loaded by the TX DMA"
			case csDMAOut:
				what = "is being written back by the RX DMA"
			case csPhase:
				switch {
				case c.blocked:
					what = fmt.Sprintf("finished phase %d and waits for room in the next partition", c.Phase+1)
				case !c.active:
					f := c.fsm[c.Phase]
					next, _ := nd.fsmNext[f].Peek()
					what = fmt.Sprintf("is queued in phase %d at FSM %d, which works on chunk %d next", c.Phase+1, f, r.order[next])
				default:
					waits := c.Ops.Waits(c.Prog, func(i int, o *collectives.Op) string {
						if o.Kind == collectives.Recv {
							return fmt.Sprintf("op %d waits for packets from NPU %d (%d of %d processed)", i, nd.peerOf(c, o), c.progress[i], c.pi.packets[i])
						}
						return fmt.Sprintf("op %d (send to NPU %d) has sent %d of %d packets", i, nd.peerOf(c, o), c.progress[i], c.pi.packets[i])
					})
					what = fmt.Sprintf("in phase %d: %s", c.Phase+1, strings.Join(waits, "; "))
				}
			}
			lines = append(lines, fmt.Sprintf("NPU %d chunk %d %s", nd.id, c.id, what))
		}
	}
	return fmt.Errorf("ACE stopped making progress at cycle %d with %d chunk×NPU pairs unfinished:\n%s",
		r.k.Now(), r.pending(), r.net.StuckReport(lines, 20))
}
