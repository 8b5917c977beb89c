package chakra

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

// allGather16 is rank 0's file of ASTRA-sim 2.x's example microbenchmark
// examples/workload/microbenchmarks/all_gather/16npus_1MB (written by
// Chakra's generator): a GlobalMetadata of version "0.0.4", then one
// COMM_COLL_NODE named all_gather_16npus_1MB, id 0 (left out, proto3's
// default), with is_cpu_op false (bool_val), comm_type 2 (ALL_GATHER,
// int64_val) and comm_size 1048576 (int64_val: varint 80 80 40).
var allGather16Bytes = mustHex("070a05302e302e3449121561" + "6c6c5f6761746865725f31366e7075735f314d42" +
	"1807520e0a0969735f6370755f6f70d80100520d0a09636f6d6d5f74797065480252" + "0f0a09636f6d6d5f73697a6548808040")

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestReadsASTRASimsExample(t *testing.T) {
	tr, err := Read(bytes.NewReader(allGather16Bytes), "all_gather.0.et")
	require.NoError(t, err)
	require.Equal(t, "0.0.4", tr.Metadata.Version)
	require.Len(t, tr.Nodes, 1)
	n := tr.Nodes[0]
	require.Equal(t, uint64(0), n.ID)
	require.Equal(t, "all_gather_16npus_1MB", n.Name)
	require.Equal(t, CommCollNode, n.Type)
	v, ok, err := n.Integer("comm_type")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, uint64(AllGather), v)
	v, _, err = n.Integer("comm_size")
	require.NoError(t, err)
	require.Equal(t, uint64(1<<20), v)
	cpu, ok, err := n.Flag("is_cpu_op")
	require.NoError(t, err)
	require.True(t, ok)
	require.False(t, cpu)
	// Written back, the bytes are the same but for field order: acemu
	// writes a message's fields in number order, as protobuf does, so
	// here exactly the same.
	var out bytes.Buffer
	require.NoError(t, Write(&out, tr))
	require.Equal(t, allGather16Bytes, out.Bytes())
}

func TestRoundTrip(t *testing.T) {
	tr := &Trace{Name: "x", Metadata: Metadata{Version: "1.0.0", Attrs: []Attr{StringAttr("schema", "s")}}, Nodes: []Node{
		{ID: 0, Name: "a", Type: CompNode, DurationMicros: 12, Attrs: []Attr{BoolAttr("is_cpu_op", false), UintAttr("num_ops", 7), UintAttr("tensor_size", 3)}},
		{ID: 5, Name: "b", Type: CommCollNode, DataDeps: []uint64{0}, CtrlDeps: []uint64{0, 300},
			Attrs: []Attr{IntAttr("comm_type", 7), IntAttr("comm_size", -1), StringAttr("pg_name", "2"), {Name: "involved_dim", Kind: BoolListValue, Field: fBoolList, Bools: []bool{true, false, true}},
				{Name: "s32", Kind: IntValue, Field: fSint32, Int: -5}, {Name: "f64", Kind: UintValue, Field: fFixed64, Uint: 1 << 40}, {Name: "d", Kind: FloatValue, Field: fDouble, Float: 1.5}}},
	}}
	var b bytes.Buffer
	require.NoError(t, Write(&b, tr))
	got, err := Read(&b, "x")
	require.NoError(t, err)
	require.Equal(t, tr, got)
}

// Fields outside the subset (inputs, outputs, a later schema's) are
// skipped; unpacked dependences read as packed ones.
func TestSkipsUnknownFieldsAndReadsUnpacked(t *testing.T) {
	var n []byte
	n = protowire.AppendTag(n, fID, protowire.VarintType)
	n = protowire.AppendVarint(n, 3)
	n = protowire.AppendTag(n, 8, protowire.BytesType) // inputs
	n = protowire.AppendBytes(n, []byte("\x0a\x03abc"))
	n = protowire.AppendTag(n, 99, protowire.Fixed32Type)
	n = protowire.AppendFixed32(n, 1)
	for _, d := range []uint64{1, 2} {
		n = protowire.AppendTag(n, fDataDeps, protowire.VarintType)
		n = protowire.AppendVarint(n, d)
	}
	b := append(protowire.AppendVarint(nil, 0), protowire.AppendVarint(nil, uint64(len(n)))...)
	b = append(b, n...)
	tr, err := Read(bytes.NewReader(b), "x")
	require.NoError(t, err)
	require.Equal(t, []Node{{ID: 3, DataDeps: []uint64{1, 2}}}, tr.Nodes)
}

func TestBadFiles(t *testing.T) {
	node := func(fields ...[]byte) []byte {
		m := bytes.Join(fields, nil)
		return append(protowire.AppendVarint(nil, uint64(len(m))), m...)
	}
	tag := func(num protowire.Number, typ protowire.Type) []byte { return protowire.AppendTag(nil, num, typ) }
	meta := []byte{0} // an empty GlobalMetadata
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "x.et: empty: a Chakra trace starts with a GlobalMetadata message"},
		{"huge prefix", append(meta, protowire.AppendVarint(nil, 1<<40)...), "x.et: node message 1 at byte 1: a length prefix of 1099511627776 bytes, more than the 67108864"},
		{"truncated message", append(meta, 0x05, 0x08), "x.et: node message 1 at byte 1: the length prefix says 5 bytes but the file ends after 1 (truncated)"},
		{"truncated prefix", append(meta, 0x85), "the file ends inside a length prefix (truncated)"},
		{"not a varint", append(meta, bytes.Repeat([]byte{0xff}, 11)...), "a length prefix of more than 10 bytes"},
		{"wrong wire type", append(meta, node(tag(fID, protowire.VarintType), []byte{4}, tag(fName, protowire.BytesType), []byte{1, 'n'}, tag(fDuration, protowire.BytesType), []byte{0})...),
			"x.et: node message 1 at byte 1: node 4 (n): field 7 (duration_micros): wire type 2, want 0 (varint)"},
		{"bad attribute", append(meta, node(tag(fID, protowire.VarintType), []byte{4}, tag(fAttr, protowire.BytesType), []byte{3, 0x0a, 1, 'a'}, tag(fAttr, protowire.BytesType), []byte{4, 0x0a, 1, 'b', 0x48})...),
			`node 4: field 10 (attr) 1: attribute "b": field 9: unexpected EOF`},
		{"bad tag", append(meta, node([]byte{0x80})...), "node 0: a field's tag: unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.in), "x.et")
			require.Error(t, err)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestSet(t *testing.T) {
	dir := t.TempDir()
	s := &Set{Name: "w"}
	for r := 0; r < 3; r++ {
		s.Ranks = append(s.Ranks, &Trace{Nodes: []Node{{ID: uint64(r)}}})
	}
	first, err := s.Save(filepath.Join(dir, "w"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "w.0.et"), first)
	for _, path := range []string{first, filepath.Join(dir, "w.2.et"), filepath.Join(dir, "w")} {
		got, err := LoadSet(path, 3)
		require.NoError(t, err, path)
		require.Len(t, got.Ranks, 3)
		require.Equal(t, uint64(2), got.Ranks[2].Nodes[0].ID)
		require.Equal(t, "w", got.Name)
	}
	_, err = LoadSet(first, 4)
	require.ErrorContains(t, err, "the trace has 3 ranks (")
	require.ErrorContains(t, err, "but the machine has 4 NPUs")
	_, err = LoadSet(first, 2)
	require.ErrorContains(t, err, "the trace has more ranks than the machine's 2 NPUs")
	_, err = LoadSet(filepath.Join(dir, "v.0.et"), 2)
	require.ErrorContains(t, err, "no rank 0 file")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.0.et"), []byte{0, 9}, 0o644))
	_, err = LoadSet(filepath.Join(dir, "bad.0.et"), 1)
	require.ErrorContains(t, err, "bad.0.et: node message 1 at byte 1: the length prefix says 9 bytes")
	require.False(t, IsTrace(filepath.Join(dir, "nothing")))
	require.True(t, strings.HasSuffix(first, ".et"))
}

// FuzzRead: any bytes give a trace or an error, never a panic, and a
// trace read writes back to one that reads the same.
func FuzzRead(f *testing.F) {
	f.Add(allGather16Bytes)
	f.Add([]byte{0, 3, 0x08, 0x96, 0x01})
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Read(bytes.NewReader(b), "f.et")
		if err != nil {
			return
		}
		var out bytes.Buffer
		require.NoError(t, Write(&out, tr))
		again, err := Read(&out, "f.et")
		require.NoError(t, err)
		require.Equal(t, len(tr.Nodes), len(again.Nodes))
	})
}

// A set of more than MaxNodes nodes over its ranks is refused as it is
// read: at the edge it is read whole.
func TestSetNodeBound(t *testing.T) {
	dir := t.TempDir()
	nodes := func(n int) []Node {
		out := make([]Node, n)
		for i := range out {
			out[i].ID = uint64(i)
		}
		return out
	}
	s := &Set{Ranks: []*Trace{{Nodes: nodes(MaxNodes / 2)}, {Nodes: nodes(MaxNodes / 2)}}}
	first, err := s.Save(filepath.Join(dir, "edge"))
	require.NoError(t, err)
	got, err := LoadSet(first, 2)
	require.NoError(t, err)
	require.Len(t, got.Ranks[1].Nodes, MaxNodes/2)
	s.Ranks[1].Nodes = nodes(MaxNodes/2 + 1)
	_, err = s.Save(filepath.Join(dir, "edge"))
	require.NoError(t, err)
	_, err = LoadSet(first, 2)
	require.ErrorContains(t, err, "edge.1.et hold 1000001 nodes, more than the 1000000 a run keeps")
}
