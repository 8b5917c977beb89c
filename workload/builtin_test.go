package workload

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// builtinTotals are facts about a built-in workload, summed over its layers.
type builtinTotals struct {
	fwdFLOPs, inGradFLOPs, wtGradFLOPs, fwdBytes int64
	allReduces                                   int
	allReduceBytes, minAR, maxAR                 int64
	fwdAllToAll, igAllToAll                      int64
}

func builtinSums(w *Workload) builtinTotals {
	var s builtinTotals
	for _, l := range w.Layers {
		s.fwdFLOPs += l.Fwd.FLOPs
		s.inGradFLOPs += l.InGrad.FLOPs
		s.wtGradFLOPs += l.WtGrad.FLOPs
		s.fwdBytes += l.Fwd.Bytes
		if l.WtGradComm.Type == CommAllReduce {
			s.allReduces++
			s.allReduceBytes += l.WtGradComm.Bytes
			if s.minAR == 0 || l.WtGradComm.Bytes < s.minAR {
				s.minAR = l.WtGradComm.Bytes
			}
			s.maxAR = max(s.maxAR, l.WtGradComm.Bytes)
		}
		if l.FwdComm.Type == CommAllToAll {
			s.fwdAllToAll += l.FwdComm.Bytes
		}
		if l.InGradComm.Type == CommAllToAll {
			s.igAllToAll += l.InGradComm.Bytes
		}
	}
	return s
}

// Every built-in loads, and its totals are the hand-checked figures of the
// tables in docs/workloads.md (not this loader's output). Each all-reduce
// total is also checked against the parameter count the same page gives,
// since comm_bytes = P × 2 B: ResNet-50 25,557,032 × 2 = 51,114,064;
// GNMT 244,622,913 × 2 = 489,245,826; DLRM's data-parallel MLPs
// 2,368,897 × 2 = 4,737,794.
func TestBuiltinWorkloads(t *testing.T) {
	tests := []struct {
		name        string
		parallelism string
		args        []string
		layers      int
		first, last string
		params      int64 // all-reduced parameters (docs/workloads.md)
		want        builtinTotals
	}{
		{
			name: "resnet50", parallelism: ParallelismData, layers: 54,
			first: "conv1", last: "fc", params: 25_557_032,
			want: builtinTotals{
				fwdFLOPs: 261_707_792_384, inGradFLOPs: 254_154_899_456, wtGradFLOPs: 261_707_792_384,
				fwdBytes:   1_444_997_712,
				allReduces: 54, allReduceBytes: 51_114_064, minAR: 8_448, maxAR: 4_720_640,
			},
		},
		{
			name: "gnmt", parallelism: ParallelismData, layers: 20,
			first: "encoder.embedder", last: "decoder.classifier", params: 244_622_913,
			want: builtinTotals{
				fwdFLOPs: 2_706_636_800_000, inGradFLOPs: 2_706_636_800_000, wtGradFLOPs: 2_705_994_547_200,
				fwdBytes:   1_479_003_266,
				allReduces: 19, allReduceBytes: 489_245_826,
			},
		},
		{
			name: "dlrm", parallelism: ParallelismHybridDLRM, args: []string{"3"}, layers: 10,
			first: "emb", last: "top_mlp.4", params: 2_368_897,
			want: builtinTotals{
				fwdFLOPs: 2_517_499_904, fwdBytes: 23_558_914,
				allReduces: 8, allReduceBytes: 4_737_794,
				fwdAllToAll: 3_407_872, igAllToAll: 3_407_872,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Builtin(tt.name)
			require.NoError(t, err)
			require.NoError(t, w.Validate())
			assert.Equal(t, tt.name, w.Name)
			assert.Equal(t, BuiltinSource, w.Source)
			assert.Equal(t, tt.parallelism, w.Parallelism)
			assert.Equal(t, tt.args, w.ParallelismArgs)
			assert.Zero(t, w.CycleHz)
			require.Len(t, w.Layers, tt.layers)
			assert.Equal(t, tt.first, w.Layers[0].Name)
			assert.Equal(t, tt.last, w.Layers[len(w.Layers)-1].Name)

			got := builtinSums(w)
			if tt.want.minAR == 0 { // not stated for this workload
				got.minAR, got.maxAR = 0, 0
			}
			if tt.name == "dlrm" { // only forward figures are stated
				got.inGradFLOPs, got.wtGradFLOPs = 0, 0
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.params*BuiltinBytesPerValue, tt.want.allReduceBytes, "the doc's all-reduce total and parameter count disagree")

			for _, l := range w.Layers {
				assert.Zero(t, l.Fwd.Cycles+l.InGrad.Cycles+l.WtGrad.Cycles+l.UpdateCycles, "layer %s: built-ins give roofline work, not cycles", l.Name)
				assert.Empty(t, l.Parallelism)
			}
		})
	}
}

// Fresh workloads: changing one does not change the next.
func TestBuiltinIsFresh(t *testing.T) {
	a, err := Builtin("resnet50")
	require.NoError(t, err)
	a.Layers[0].Fwd.FLOPs = 1
	b, err := Builtin("resnet50")
	require.NoError(t, err)
	assert.Equal(t, int64(7_552_892_928), b.Layers[0].Fwd.FLOPs) // conv1, docs/workloads.md
}

// DLRM's header puts the last bottom-MLP layer where DLRMLastBottomLayer
// reads it, and the all-to-all sits on the embedding, forward and back.
func TestBuiltinDLRM(t *testing.T) {
	w, err := Builtin("dlrm")
	require.NoError(t, err)
	lb, err := w.DLRMLastBottomLayer()
	require.NoError(t, err)
	assert.Equal(t, 3, lb)
	assert.Equal(t, "bot_mlp.2", w.Layers[lb].Name)
	assert.Equal(t, "interaction", w.Layers[lb+1].Name)
	emb := w.Layers[0]
	// 512 · 26 · 128 · 2 = 3,407,872 B per NPU.
	assert.Equal(t, Comm{Type: CommAllToAll, Bytes: 3_407_872}, emb.FwdComm)
	assert.Equal(t, Comm{Type: CommAllToAll, Bytes: 3_407_872}, emb.InGradComm)
	assert.Equal(t, Comm{}, emb.WtGradComm)
	assert.Equal(t, Comm{}, w.Layers[lb+1].WtGradComm, "the interaction has no parameters")
}

// The update work is 3 × 2 B and 2 FLOPs per all-reduced parameter:
// ResNet-50's conv1 has 9,536 parameters (7·7·3·64 + 2·64), so 57,216 B and
// 19,072 FLOPs; over the network 25,557,032 parameters give 153,342,192 B
// and 51,114,064 FLOPs. Layers without an all-reduce update nothing here.
func TestBuiltinUpdateWork(t *testing.T) {
	w, err := Builtin("resnet50")
	require.NoError(t, err)
	assert.Equal(t, Work{FLOPs: 19_072, Bytes: 57_216}, BuiltinUpdateWork(&w.Layers[0]))
	var sum Work
	for i := range w.Layers {
		u := BuiltinUpdateWork(&w.Layers[i])
		sum.FLOPs += u.FLOPs
		sum.Bytes += u.Bytes
	}
	assert.Equal(t, Work{FLOPs: 51_114_064, Bytes: 153_342_192}, sum)

	d, err := Builtin("dlrm")
	require.NoError(t, err)
	assert.Equal(t, Work{}, BuiltinUpdateWork(&d.Layers[0]), "emb: its sparse update is its wtgrad row")
	assert.Equal(t, Work{}, BuiltinUpdateWork(&d.Layers[4]), "interaction: no parameters")
	// top_mlp.4: 256 + 1 = 257 parameters.
	assert.Equal(t, Work{FLOPs: 514, Bytes: 1_542}, BuiltinUpdateWork(&d.Layers[9]))
}

func TestBuiltinNames(t *testing.T) {
	assert.Equal(t, []string{"resnet50", "gnmt", "dlrm"}, BuiltinNames())
	n := BuiltinNames()
	n[0] = "x"
	assert.Equal(t, "resnet50", BuiltinNames()[0])

	// The embedded tables are exactly these.
	files, err := fs.Glob(builtinFS, "builtin/*.csv")
	require.NoError(t, err)
	var embedded []string
	for _, f := range files {
		embedded = append(embedded, strings.TrimSuffix(strings.TrimPrefix(f, "builtin/"), ".csv"))
	}
	want := BuiltinNames()
	slices.Sort(want)
	assert.Equal(t, want, embedded)
}

func TestBuiltinUnknown(t *testing.T) {
	for _, name := range []string{"", "ResNet50", "resnet", "bert"} {
		_, err := Builtin(name)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), `"`+name+`"`)
		assert.Contains(t, err.Error(), "resnet50, gnmt, dlrm")
	}
}

// The embedded tables cannot be malformed, but the loader still refuses
// what would break the mapping, with the line.
func TestParseBuiltinErrors(t *testing.T) {
	const head = "# workload: x\n# parallelism: DATA\n# bytes_per_value: 2\n" +
		"name,kind,fwd_flops,fwd_bytes,ingrad_flops,ingrad_bytes,wtgrad_flops,wtgrad_bytes,params,comm,comm_bytes\n"
	tests := []struct{ name, data, want string }{
		{"ok", head + "a,fc,1,2,3,4,5,6,7,allreduce,14\n", ""},
		{"prose comments are skipped", "# The ACE paper: prose\n# x (y): z\n" + head + "a,fc,1,2,3,4,5,6,0,none,0\n", ""},
		{"all-reduce size is not params × 2", head + "a,fc,1,2,3,4,5,6,7,allreduce,28\n", "t.csv:5: layer a: all-reduce of 28 B for 7 parameters"},
		{"FP32", strings.Replace(head, "bytes_per_value: 2", "bytes_per_value: 4", 1) + "a,fc,1,2,3,4,5,6,7,allreduce,28\n", `bytes_per_value "4"`},
		{"no parallelism", strings.Replace(head, "# parallelism: DATA\n", "", 1), "missing comment `# parallelism: ...`"},
		{"DLRM without its layer", strings.Replace(head, "DATA", "HYBRID_DLRM", 1), "needs `# last_bottom_mlp: N`"},
		{"bad header", "# workload: x\n# parallelism: DATA\n# bytes_per_value: 2\nname,kind\n", "t.csv:4: header row"},
		{"negative", head + "a,fc,-1,2,3,4,5,6,7,allreduce,14\n", "t.csv:5: layer a: fwd_flops \"-1\""},
		{"unknown comm", head + "a,fc,1,2,3,4,5,6,7,broadcast,14\n", `comm "broadcast"`},
		{"unknown kind", head + "a,pool,1,2,3,4,5,6,7,none,0\n", `kind "pool"`},
		{"short row", head + "a,fc,1\n", "3 columns, want 11"},
		{"no layers", head, "no layers"},
		{"no header", "# workload: x\n", "no header row"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := parseBuiltin("t.csv", []byte(tt.data))
			if tt.want == "" {
				require.NoError(t, err)
				require.Len(t, w.Layers, 1)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
