package ace

// This file: the TX and RX DMA engines between memory and the SRAM.

import (
	"math/big"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/rtl"
)

// dmaIn moves the next piece (at most a packet) of the oldest loading chunk
// from memory into SRAM: memory read, NPU–AFI bus and an SRAM write port.
func (nd *node) dmaIn(now rtl.Cycle) rtl.Cycle {
	return nd.dmaStep(now, &nd.txq, 0, fxTxDMA, "dma-in", nd.memRd, nd.busIn, nd.sramWr, &nd.memRead)
}

// dmaOut writes the next piece of the oldest finished chunk back to memory:
// an SRAM read port, NPU–AFI bus and memory write.
func (nd *node) dmaOut(now rtl.Cycle) rtl.Cycle {
	return nd.dmaStep(now, &nd.rxq, nd.r.phases, fxRxDMA, "dma-out", nd.sramRd, nd.busOut, nd.memWr, &nd.memWrite)
}

// dmaStep starts the next piece (at most a packet) of the head of a DMA
// queue, moving the chunk's room in partition part through three resources.
func (nd *node) dmaStep(now rtl.Cycle, q *[]*chunk, part int, kind int32, name string, a, b, c *rtl.Serializer, count *int64) rtl.Cycle {
	if len(*q) == 0 {
		return -1
	}
	ch := (*q)[0]
	total := nd.viewOf(ch, part)
	n := min(int64(fabric.PacketBytes), total-ch.dma)
	end, ok, t := startEach(now, n, a, b, c)
	if !ok {
		return t
	}
	ch.dma += n
	*count += n
	last := ch.dma == total
	if last {
		*q = (*q)[1:]
	}
	if nd.tracing() {
		nd.trace(subStep{Start: now, End: end, Chunk: int(ch.id), Phase: min(part, nd.r.phases-1), Op: -1, Kind: name, Bytes: n})
	}
	if last || nd.r.reference || !nd.r.quietDMA {
		nd.after(end, effect{kind: kind, c: ch, bytes: n})
		return -1
	}
	// A piece before the chunk's last changes nothing when it ends but the
	// count of bytes moved, which only the last piece's end reads; and the
	// pieces of a chunk go through the same three serializers one after
	// another, so each ends after the one before it. So its bytes count
	// now, and its end only wakes the node, as its event would have.
	ch.dmaDone += n
	nd.startedAt = now
	nd.scheduleKick(end)
	return -1
}

// startEach is rtl.StartAll of n bytes on each of a, b and c, without
// its list: started in that order (as StartAll starts them, which the
// memory's watchers see), or, when one is busy beyond cycle now, none.
func startEach(now rtl.Cycle, n int64, a, b, c *rtl.Serializer) (end rtl.Cycle, ok bool, retry rtl.Cycle) {
	if !a.FreeWithin(now) || !b.FreeWithin(now) || !c.FreeWithin(now) {
		return 0, false, rtl.RetryOf(now, rtl.Need{S: a}, rtl.Need{S: b}, rtl.Need{S: c})
	}
	return max(now, a.Start(now, n), b.Start(now, n), c.Start(now, n)), true, now
}

// dmaBusy is the time the TX DMA (reads) and the RX DMA (writes) spent
// moving bytes, summed (exact).
func (nd *node) dmaBusy() *big.Rat {
	b := nd.memRd.BusyCycles()
	return b.Add(b, nd.memWr.BusyCycles())
}
