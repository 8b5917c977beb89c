package capture

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/google/gopacket"
	"github.com/google/gopacket/pcapgo"
	"github.com/stretchr/testify/require"
)

// A cycle is 1/1245 MHz = 200/249 ns: 249 cycles are 200 ns exactly, 1245
// cycles 1000 ns; 1 cycle (0.80 ns) rounds to 1, 2 (1.61 ns) to 2, 5
// (4.016 ns) to 4.
func TestNanoseconds(t *testing.T) {
	for c, ns := range map[rtl.Cycle]int64{0: 0, 1: 1, 2: 2, 5: 4, 249: 200, 1245: 1000, 1_245_000_000: 1_000_000_000} {
		require.Equal(t, ns, Nanoseconds(c), "%d cycles", c)
	}
}

// capture runs a 256 KiB hierarchical all-reduce on a full 4x2x1 torus
// with the ideal endpoint, capturing its packets through filter. Its links
// move trains (fabric.Feeder), whose packets are reported late.
func capture(t *testing.T, filter string) (*bytes.Buffer, *Writer, []int64, []int64) {
	s, err := torus.Parse("4x2x1")
	require.NoError(t, err)
	plan, err := collectives.NewPlan(collectives.Config{Machine: s.Machine(), Op: collectives.OpAllReduce, MessageBytes: 8192}, "hierarchical", 256<<10, 64<<10)
	require.NoError(t, err)
	k := rtl.NewKernel()
	net, err := torus.BuildNetwork(k, s, torus.DefaultLinks())
	require.NoError(t, err)
	f, err := ParseFilter(filter)
	require.NoError(t, err)
	var out bytes.Buffer
	w, err := NewWriter(&out, net, f)
	require.NoError(t, err)
	net.SetObserver(w)
	_, err = npu.RunIdeal(k, net, plan, npu.DefaultIdeal())
	require.NoError(t, err)
	require.NoError(t, w.Flush())
	packets, bytes := make([]int64, len(net.Links)), make([]int64, len(net.Links))
	trains := int64(0)
	for i, l := range net.Links {
		packets[i], bytes[i] = l.Packets(), l.Bytes()
		trains += l.Trains().Trains
	}
	require.Positive(t, trains, "the links report trains late: the capture must still be in time order")
	return &out, w, packets, bytes
}

// read decodes a capture with gopacket: the headers, and each record's
// timestamp and original length.
func read(t *testing.T, b *bytes.Buffer) ([]*Header, []time.Time, []int) {
	r, err := pcapgo.NewReader(b)
	require.NoError(t, err)
	require.Equal(t, LinkType, r.LinkType())
	var hs []*Header
	var ts []time.Time
	var lens []int
	src := gopacket.NewPacketSource(r, r.LinkType())
	for p := range src.Packets() {
		require.Nil(t, p.ErrorLayer())
		h, ok := p.Layer(LayerType).(*Header)
		require.True(t, ok)
		hs = append(hs, h)
		ts = append(ts, p.Metadata().Timestamp)
		lens = append(lens, p.Metadata().Length)
	}
	return hs, ts, lens
}

// Read back through the gopacket layer, the capture has, per link, the
// packets and bytes the link counted; every record's timestamp is its
// cycle in simulated time, in order, and its length the header and the
// packet's payload. Phases count from 1: the all-reduce's three on
// 4x2x1 (reduce-scatter local, all-reduce vertical, all-gather local)
// are 1, 2 and 3.
func TestACaptureReadsBackAsTheLinksCounted(t *testing.T) {
	out, w, packets, byteCounts := capture(t, "")
	hs, ts, lens := read(t, out)
	require.EqualValues(t, len(hs), w.Packets())
	gotP, gotB := make([]int64, len(packets)), make([]int64, len(packets))
	phases := map[uint16]bool{}
	for i, h := range hs {
		phases[h.Phase] = true
		require.Equal(t, uint8(Version), h.Version)
		gotP[h.Link]++
		gotB[h.Link] += int64(h.Bytes)
		require.Equal(t, Nanoseconds(rtl.Cycle(h.Cycle)), ts[i].UnixNano())
		require.Equal(t, HeaderLen+int(h.Bytes), lens[i])
		require.Less(t, h.Cycle, h.End)
		require.NotEqual(t, h.From, h.To)
		if i > 0 {
			require.LessOrEqual(t, hs[i-1].Cycle, h.Cycle)
		}
	}
	require.Equal(t, packets, gotP)
	require.Equal(t, byteCounts, gotB)
	require.Positive(t, w.Packets())
	require.Equal(t, map[uint16]bool{1: true, 2: true, 3: true}, phases)
}

// A filter keeps only what it names: the links that touch NPU 0 in the
// first 2000 cycles.
func TestAFilterKeepsWhatItNames(t *testing.T) {
	out, w, _, _ := capture(t, "npu=0,cycles=0-2000")
	hs, _, _ := read(t, out)
	require.Positive(t, w.Packets())
	for _, h := range hs {
		require.True(t, h.From == 0 || h.To == 0, "%+v", h)
		require.LessOrEqual(t, h.Cycle, uint64(2000))
	}
	all, _, _ := read(t, func() *bytes.Buffer { b, _, _, _ := capture(t, ""); return b }())
	require.Less(t, len(hs), len(all))
}

func TestBadFiltersAreRefused(t *testing.T) {
	for _, tc := range []struct{ spec, err string }{
		{"npu", "want KEY=N or KEY=A-B"},
		{"node=3", `key "node" is not link, npu, coll or cycles`},
		{"link=x", `"x" is not a number`},
		{"cycles=9-3", "A ≤ B"},
		{"link=-1", "is not a number from 0"},
	} {
		_, err := ParseFilter(tc.spec)
		require.ErrorContains(t, err, tc.err, tc.spec)
	}
}

// tshark with docs/acemu.lua decodes a capture to the same fields as the
// gopacket layer, record by record. Skipped where tshark is not installed
// (Debian: apt-get install tshark).
func TestTsharkDecodesACapture(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (Debian: apt-get install tshark)")
	}
	out, _, _, _ := capture(t, "")
	file := filepath.Join(t.TempDir(), "run.pcap")
	require.NoError(t, os.WriteFile(file, out.Bytes(), 0o644))
	hs, _, _ := read(t, bytes.NewBuffer(out.Bytes()))
	cmd := exec.Command(tshark, "-X", "lua_script:../docs/acemu.lua", "-r", file, "-T", "fields",
		"-e", "acemu.link", "-e", "acemu.from", "-e", "acemu.to", "-e", "acemu.chunk", "-e", "acemu.packet", "-e", "acemu.bytes", "-e", "acemu.cycle", "-e", "acemu.substep", "-e", "acemu.phase")
	got, err := cmd.Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	require.Len(t, lines, len(hs))
	for i, h := range hs {
		require.Equal(t, fmt.Sprintf("%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d", h.Link, h.From, h.To, h.Chunk, h.Packet, h.Bytes, h.Cycle, h.SubStep, h.Phase), lines[i], "record %d", i+1)
	}
}

// FoldedNPU names the first npu term a folded run (NPU 0 simulated for
// all) cannot honour: any other NPU, alone or in a range.
func TestFilterFoldedNPU(t *testing.T) {
	tests := []struct{ filter, want string }{
		{"", ""},
		{"npu=0", ""},
		{"npu=0,link=3,coll=1", ""},
		{"npu=5", "npu=5"},
		{"npu=0,npu=1", "npu=1"},
		{"npu=0-3", "npu=0-3"},
	}
	for _, tc := range tests {
		t.Run(tc.filter, func(t *testing.T) {
			f, err := ParseFilter(tc.filter)
			require.NoError(t, err)
			require.Equal(t, tc.want, f.FoldedNPU())
		})
	}
}
