package ace

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/xcore"
)

// startRecv is rtl.StartAll of the receive's needs (recvList: an ALU when
// it reduces, the SRAM read port for what it reads, the write port when
// it stores): on random states of the three resources, stores, sources
// and packet sizes, the same answer and the same claims as StartAll on
// copies of the resources.
func TestStartRecvIsStartAllOfItsNeeds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 17))
	rates := []rtl.Rate{{Num: 64, Den: 1}, {Num: 4700, Den: 249}, {Num: 32, Den: 3}}
	for range 2000 {
		rd, wr, al := rates[r.IntN(3)], rates[r.IntN(3)], rates[r.IntN(3)]
		nd := &node{sramRd: rtl.NewSerializer(rd), sramWr: rtl.NewSerializer(wr)}
		ref := &node{sramRd: rtl.NewSerializer(rd), sramWr: rtl.NewSerializer(wr)}
		var alu, refALU *rtl.Serializer
		if r.IntN(2) == 0 {
			alu, refALU = rtl.NewSerializer(al), rtl.NewSerializer(al)
		}
		// Busy from cycle 0 for some bytes each, as earlier sub-steps left them.
		for _, p := range [][2]*rtl.Serializer{{nd.sramRd, ref.sramRd}, {nd.sramWr, ref.sramWr}, {alu, refALU}} {
			if p[0] != nil {
				if n := int64(r.IntN(1024)); n > 0 {
					p[0].Start(0, n)
					p[1].Start(0, n)
				}
			}
		}
		store := r.IntN(2) == 0
		c := &chunk{pi: &progInfo{Info: &xcore.Info{Flow: collectives.Flow{Store: []bool{store}}}}}
		now, b, fromSRAM := rtl.Cycle(r.IntN(40)), int64(1+r.IntN(512)), r.IntN(2) == 0
		end, ok, retry := nd.startRecv(now, c, 0, alu, b, fromSRAM)
		wantEnd, wantOK, wantRetry := rtl.StartAll(now, ref.recvList(c, 0, refALU, b, fromSRAM)...)
		require.Equal(t, []any{wantOK, wantRetry}, []any{ok, retry}, "store %v, ALU %v, from SRAM %v", store, alu != nil, fromSRAM)
		if ok {
			require.Equal(t, wantEnd, end)
		}
		require.Equal(t, ref.sramRd.Mark(), nd.sramRd.Mark(), "the read port's claims")
		require.Equal(t, ref.sramWr.Mark(), nd.sramWr.Mark(), "the write port's claims")
		if alu != nil {
			require.Equal(t, refALU.Mark(), alu.Mark(), "the ALU's claims")
		}
	}
}
