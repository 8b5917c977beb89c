package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/units"
)

const astraDir = "../testdata/astrasim"

// The ten ASTRA-sim files are ASTRA-sim 1.0's example workload files,
// byte-for-byte (CR LF line ends, trailing tabs, no final newline on
// ResNet-50 included; MIT licence, NOTICE in testdata/astrasim/). A tool
// that "fixes" them would stop this suite from testing the files users
// really have, so their hashes are pinned (sha256sum testdata/astrasim/*),
// and the licence stays beside them.
func TestAstraSimTestdataUnchanged(t *testing.T) {
	want := map[string]string{
		"Resnet50_DataParallel.txt":                      "8a88fbce83a43f0d942b0339683f218b384d67354f49e2a78f947856856f6d5a",
		"DLRM_HybridParallel.txt":                        "9ac052be03a085a5bd693a8f86219429b9c9034f7c5f9fd421f57e8f76c0dde5",
		"MLP_HybridParallel_Data_Model.txt":              "1ec8b2c4a842673302706d0425bc886b6864398b4adcb3d31638973d1baffbcf",
		"MLP_HybridParallel_Model_Data.txt":              "b648bc9f7a54b871c65a5b6cb988278fdb75665f7dcff1641df0d9f7e6b1fd6c",
		"MLP_ModelParallel.txt":                          "ccb7bf37d508e5bff0982aeff03a8962ed12eeb61a516bed3c04782a6b9e8dbc",
		"Transformer_HybridParallel.txt":                 "624971cc791394a2873307558d9533e4d6664da9f83a4dc5614b6dcc1d267281",
		"Transformer_HybridParallel_Fwd_In_Bckwd.txt":    "7853759ef21b912f199cea2ab383c2ed0e3215729aebfc82db49bdda12250b0b",
		"microAllReduce.txt":                             "7aa4a0053f5512db68dff35420a8bc95fed9ffb381c2dfaf3dde6eff32a4c078",
		"microAllToAll.txt":                              "ba23c573ff4c6d6ef52fe7420a8e9a0f0995eb885673bd83226a411494cbcd75",
		"sample_per_layer_parallel_HybridCustomized.txt": "b8007fe387b51527d6e2111d60a6dc477e57510f914ff07b0d2fe9e1141a54b3",
		"NOTICE": "995d7ffc94491ac226cc5b700e1d090fe5fcc735661e275cf013df4305d25ba1",
	}
	for name, sum := range want {
		b, err := os.ReadFile(filepath.Join(astraDir, name))
		require.NoError(t, err)
		h := sha256.Sum256(b)
		assert.Equal(t, sum, hex.EncodeToString(h[:]), "%s differs from ASTRA-sim 1.0's file", name)
	}
	notice, err := os.ReadFile(filepath.Join(astraDir, "NOTICE"))
	require.NoError(t, err)
	assert.Contains(t, string(notice), "MIT License")
}

// sums are per-workload totals over the parsed layers.
type sums struct {
	fwd, inGrad, wtGrad, update int64 // compute and update ns
	wtAllReduce                 int64 // bytes of weight-gradient all-reduces
	fwdAllToAll, igAllToAll     int64 // bytes of forward / input-gradient all-to-alls
	minAR, maxAR                int64 // smallest and largest weight-gradient all-reduce
}

func total(w *Workload) sums {
	var s sums
	for _, l := range w.Layers {
		s.fwd += l.Fwd.Cycles
		s.inGrad += l.InGrad.Cycles
		s.wtGrad += l.WtGrad.Cycles
		s.update += l.UpdateCycles
		if l.WtGradComm.Type == CommAllReduce {
			s.wtAllReduce += l.WtGradComm.Bytes
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

// The real files parse, and what the parser gives matches facts read from
// the files by hand and by awk, independently of this code.
//
// Totals come from (fields $3, $6, $9, $12 are the compute and update times,
// $10/$11 the weight-gradient collective, $4/$5 and $7/$8 the forward and
// input-gradient ones):
//
//	tr -d '\r' < testdata/astrasim/FILE.txt | awk -F'\t' 'NR>2 {fw+=$3; ig+=$6; wg+=$9; up+=$12;
//	  if ($10=="ALLREDUCE") ar+=$11; if ($4=="ALLTOALL") fa+=$5; if ($7=="ALLTOALL") ia+=$8}
//	  END {print NR-2, fw, ig, wg, up, ar, fa, ia}'
//
// which prints "54 380038 377463 337813 33789 102011648" for ResNet-50 and
// "8 19020 19014 13644 3288 3191808 98304 98304" for DLRM; the compute and
// all-reduce totals also agree with docs/astrasim-workloads.md's table of
// the two files.
func TestParseAstraSimRealFiles(t *testing.T) {
	tests := []struct {
		file        string
		parallelism string
		args        []string
		layers      int
		first, last string
		sums        sums
		check       func(t *testing.T, w *Workload)
	}{
		{
			file: "Resnet50_DataParallel.txt", parallelism: ParallelismData, args: nil, layers: 54,
			first: "conv1", last: "fc1000",
			sums: sums{fwd: 380_038, inGrad: 377_463, wtGrad: 337_813, update: 33_789,
				wtAllReduce: 102_011_648, minAR: 16_384, maxAR: 9_437_184},
			check: func(t *testing.T, w *Workload) {
				// Line 3: conv1 -1 13003 NONE 0 12864 NONE 0 32291 ALLREDUCE 37632 3229.
				// Its shape at batch 1: 2·112·112·64·147 FLOPs and
				// 2·(224·224·3 + 112·112·64 + 9,408 + 128) bytes per pass
				// (no input gradient below layer 0); the update, an SGD
				// step on 9,408 weights: 2 FLOPs and 6 B each.
				assert.Equal(t, Layer{
					Name: "conv1",
					Fwd:  Work{Cycles: 13_003, FLOPs: 236_027_904, Bytes: 1_925_760}, InGrad: Work{Cycles: 12_864},
					WtGrad:  Work{Cycles: 32_291, FLOPs: 236_027_904, Bytes: 1_925_760},
					FwdComm: Comm{Type: CommNone}, InGradComm: Comm{Type: CommNone},
					WtGradComm:   Comm{Type: CommAllReduce, Bytes: 37_632},
					UpdateCycles: 3_229, UpdateShape: Work{FLOPs: 18_816, Bytes: 56_448},
				}, w.Layers[0])
				// Line 6: layer_64_1_conv2 -1 10944 NONE 0 10368 NONE 0 14144 ALLREDUCE 147456 1414
				assert.Equal(t, "layer_64_1_conv2", w.Layers[3].Name)
				assert.Equal(t, int64(10_368), w.Layers[3].InGrad.Cycles)
				assert.Equal(t, int64(147_456), w.Layers[3].WtGradComm.Bytes)
				// Line 56 (the last, no newline after it):
				// fc1000 -1 16416 NONE 0 27708 NONE 0 9220 ALLREDUCE 8192000 922
				last := w.Layers[53]
				assert.Equal(t, int64(16_416), last.Fwd.Cycles)
				assert.Equal(t, int64(27_708), last.InGrad.Cycles)
				assert.Equal(t, Comm{Type: CommAllReduce, Bytes: 8_192_000}, last.WtGradComm)
				assert.Equal(t, int64(922), last.UpdateCycles)
				// Pure data parallelism: every layer all-reduces its weight
				// gradient and issues nothing else.
				for i, l := range w.Layers {
					assert.Equal(t, CommAllReduce, l.WtGradComm.Type, "layer %d", i)
					assert.Equal(t, Comm{}, l.FwdComm, "layer %d", i)
					assert.Equal(t, Comm{}, l.InGradComm, "layer %d", i)
				}
				// The per-iteration compute: layer 0's input gradient
				// (12,864) is never run, so 1,082,450 ns are simulated.
				s := total(w)
				assert.Equal(t, int64(1_082_450), s.fwd+s.inGrad+s.wtGrad-w.Layers[0].InGrad.Cycles)
			},
		},
		{
			file: "DLRM_HybridParallel.txt", parallelism: ParallelismHybridDLRM, args: []string{"4"}, layers: 8,
			first: "Embedding", last: "MLP_Top_2",
			sums: sums{fwd: 19_020, inGrad: 19_014, wtGrad: 13_644, update: 3_288,
				wtAllReduce: 3_191_808, fwdAllToAll: 98_304, igAllToAll: 98_304, minAR: 13_312, maxAR: 1_064_960},
			check: func(t *testing.T, w *Workload) {
				// Line 3: Embedding -1 300 ALLTOALL 98304 300 ALLTOALL 98304 300 NONE 0 98
				assert.Equal(t, Layer{
					Name: "Embedding",
					Fwd:  Work{Cycles: 300}, InGrad: Work{Cycles: 300}, WtGrad: Work{Cycles: 300},
					FwdComm:      Comm{Type: CommAllToAll, Bytes: 98_304},
					InGradComm:   Comm{Type: CommAllToAll, Bytes: 98_304},
					WtGradComm:   Comm{Type: CommNone},
					UpdateCycles: 98,
				}, w.Layers[0])
				// Line 8: MLP_Top_0 -1 6400 NONE 0 6400 NONE 0 4480 ALLREDUCE 1064960 1065
				assert.Equal(t, "MLP_Top_0", w.Layers[5].Name)
				assert.Equal(t, int64(4_480), w.Layers[5].WtGrad.Cycles)
				assert.Equal(t, int64(1_065), w.Layers[5].UpdateCycles)
				// Line 1: "HYBRID_DLRM\t4" then 11 tabs: layer 4 is MLP_Bottom_3.
				k, err := w.DLRMLastBottomLayer()
				require.NoError(t, err)
				assert.Equal(t, 4, k)
				assert.Equal(t, "MLP_Bottom_3", w.Layers[k].Name)
				assert.Equal(t, "MLP_Top_0", w.Layers[k+1].Name)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(astraDir, tt.file)
			w, err := LoadAstraSim(path)
			require.NoError(t, err)
			require.NoError(t, w.Validate())
			assert.Equal(t, strings.TrimSuffix(tt.file, ".txt"), w.Name)
			assert.Equal(t, "astrasim:"+path, w.Source)
			assert.Equal(t, int64(AstraSimCycleHz), w.CycleHz)
			assert.Equal(t, tt.parallelism, w.Parallelism)
			assert.Equal(t, tt.args, w.ParallelismArgs)
			require.Len(t, w.Layers, tt.layers)
			assert.Equal(t, tt.first, w.Layers[0].Name)
			assert.Equal(t, tt.last, w.Layers[len(w.Layers)-1].Name)
			assert.Equal(t, tt.sums, total(w))
			for i, l := range w.Layers {
				// ASTRA-sim files give times, never roofline work: a
				// shape, where the file has one, only beside a time.
				for _, wk := range []Work{l.Fwd, l.InGrad, l.WtGrad} {
					if wk.Cycles == 0 || w.Shapes == "" {
						assert.Zero(t, wk.FLOPs, "layer %d", i)
						assert.Zero(t, wk.Bytes, "layer %d", i)
					}
				}
				assert.Empty(t, l.Parallelism, "layer %d", i)
			}
			// ResNet-50 matches torchvision's shapes; DLRM nothing.
			assert.Equal(t, tt.parallelism == ParallelismData, w.Shapes != "")
			tt.check(t, w)

			// The reader gives the same workload as the loader.
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			w2, err := ParseAstraSim(f, path)
			require.NoError(t, err)
			assert.Equal(t, w, w2)
		})
	}
}

// layerLine builds a 12-field layer line with tabs.
func layerLine(name string) string {
	return name + "\t-1\t10\tNONE\t0\t20\tNONE\t0\t30\tALLREDUCE\t1024\t3"
}

// twoLayers is a valid DATA file with two layers.
var twoLayers = "DATA\n2\n" + layerLine("l0") + "\n" + layerLine("l1") + "\n"

// Layouts the format allows, and the optional parts of the header.
func TestParseAstraSimAccepts(t *testing.T) {
	l0 := Layer{
		Name: "l0", Fwd: Work{Cycles: 10}, InGrad: Work{Cycles: 20}, WtGrad: Work{Cycles: 30},
		WtGradComm: Comm{Type: CommAllReduce, Bytes: 1024}, UpdateCycles: 3,
	}
	l1 := l0
	l1.Name = "l1"
	tests := []struct {
		name  string
		input string
		check func(t *testing.T, w *Workload)
	}{
		{"tabs", twoLayers, nil},
		{"spaces", "DATA\n2\nl0 -1 10 NONE 0 20 NONE 0 30 ALLREDUCE 1024 3\nl1  -1  10 NONE 0 20 NONE 0 30   ALLREDUCE 1024 3\n", nil},
		{"CRLF, trailing tabs, no final newline",
			"DATA\t\t\r\n2\t\t\t\r\n" + layerLine("l0") + "\t\r\n" + layerLine("l1"), nil},
		{"blank trailing lines", twoLayers + "\n\n\t\r\n", nil},
		{"blank lines between", "\nDATA\n\n2\n\n" + layerLine("l0") + "\n  \n" + layerLine("l1") + "\n", nil},
		{"byte-order mark", "\uFEFF" + twoLayers, nil},
		{"reserved field other than -1", "DATA\n2\n" + strings.Replace(layerLine("l0"), "-1", "7", 1) + "\n" + layerLine("l1") + "\n", nil},
		{"extra header tokens kept", "HYBRID_TRANSFORMER model_parallel_NPU_group: 8\n2\n" + layerLine("l0") + "\n" + layerLine("l1") + "\n",
			func(t *testing.T, w *Workload) {
				assert.Equal(t, ParallelismHybridTransformer, w.Parallelism)
				assert.Equal(t, []string{"model_parallel_NPU_group:", "8"}, w.ParallelismArgs)
			}},
		{"HYBRID_CUSTOMIZED has a 13th field", "HYBRID_CUSTOMIZED\n2\n" + layerLine("l0") + "\tMODEL\n" + layerLine("l1") + "\tHYBRID_DATA_MODEL\n",
			func(t *testing.T, w *Workload) {
				assert.Equal(t, ParallelismHybridCustomized, w.Parallelism)
				assert.Equal(t, "MODEL", w.Layers[0].Parallelism)
				assert.Equal(t, "HYBRID_DATA_MODEL", w.Layers[1].Parallelism)
			}},
		{"every collective", "MODEL\n1\nx -1 1 ALLGATHER 8 2 REDUCESCATTER 16 3 ALLTOALL 32 0\n",
			func(t *testing.T, w *Workload) {
				assert.Equal(t, Comm{Type: CommAllGather, Bytes: 8}, w.Layers[0].FwdComm)
				assert.Equal(t, Comm{Type: CommReduceScatter, Bytes: 16}, w.Layers[0].InGradComm)
				assert.Equal(t, Comm{Type: CommAllToAll, Bytes: 32}, w.Layers[0].WtGradComm)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := ParseAstraSim(strings.NewReader(tt.input), "dir/ok.txt")
			require.NoError(t, err)
			assert.Equal(t, "ok", w.Name)
			if tt.check != nil {
				tt.check(t, w)
				return
			}
			assert.Equal(t, ParallelismData, w.Parallelism)
			assert.Equal(t, []Layer{l0, l1}, w.Layers)
		})
	}
}

// Every class of malformed input gives a *ParseError whose message names the
// file, the line and (when one field is at fault) the field.
func TestParseAstraSimErrors(t *testing.T) {
	// bad builds a DATA file with two layers, the second being line 4.
	bad := func(line4 string) string { return "DATA\n2\n" + layerLine("l0") + "\n" + line4 + "\n" }
	// field replaces field i (1-based) of a good layer line.
	field := func(i int, v string) string {
		f := strings.Split(layerLine("l1"), "\t")
		f[i-1] = v
		return strings.Join(f, "\t")
	}
	knownParallelisms := "known: DATA, MICRO, MODEL, HYBRID_DLRM, HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED, DISTRIBUTED_INFERENCE"
	tests := []struct {
		name        string
		input       string
		line, field int
		want        []string // substrings of the message; the first is its start
	}{
		// Empty input.
		{"empty file", "", 1, 1, []string{`bad.txt:1: field 1 (parallelism): missing: the file is empty`, knownParallelisms}},
		{"only blank lines", "\n \t\r\n\n", 1, 1, []string{`bad.txt:1: field 1 (parallelism): missing: the file is empty`}},

		// Parallelism line.
		{"unknown parallelism", "DATA_PARALLEL\n2\n", 1, 1, []string{`bad.txt:1: field 1 (parallelism) "DATA_PARALLEL": unknown parallelism; ` + knownParallelisms}},
		{"parallelism in lower case", "data\n2\n", 1, 1, []string{`bad.txt:1: field 1 (parallelism) "data": unknown parallelism`, "did you mean DATA?"}},
		{"HYBRID_DLRM without its layer", "HYBRID_DLRM\n2\n", 1, 2, []string{`bad.txt:1: field 2 (last bottom-MLP layer): missing`}},
		{"HYBRID_DLRM layer not a number", "HYBRID_DLRM four\n2\n", 1, 2, []string{`bad.txt:1: field 2 (last bottom-MLP layer) "four": not a whole number`}},
		{"HYBRID_DLRM layer out of range", "HYBRID_DLRM 1\n2\n", 1, 2, []string{`bad.txt:1: field 2 (last bottom-MLP layer) "1": out of range`, "0..0"}},

		// Layer-count line.
		{"no layer count", "DATA\n", 2, 1, []string{`bad.txt:2: field 1 (layer count): missing`}},
		{"layer count not a number", "DATA\nfifty\n", 2, 1, []string{`bad.txt:2: field 1 (layer count) "fifty": not a whole number of layers`}},
		{"layer count zero", "DATA\n0\n", 2, 1, []string{`bad.txt:2: field 1 (layer count) "0": must be at least 1`}},
		{"layer count negative", "DATA\n-2\n", 2, 1, []string{`bad.txt:2: field 1 (layer count) "-2": must be at least 1`}},
		{"layer count with more", "DATA\n2 layers\n", 2, 2, []string{`bad.txt:2: field 2 (extra) "layers": unexpected`}},

		// Layer count against layer lines.
		{"fewer layer lines", "DATA\n3\n" + layerLine("l0") + "\n" + layerLine("l1") + "\n\n", 2, 1,
			[]string{`bad.txt:2: field 1 (layer count) "3": declares 3 layers but the file has only 2 layer lines (the last is line 4)`}},
		{"no layer lines", "DATA\n2\n", 2, 1, []string{`bad.txt:2: field 1 (layer count) "2": declares 2 layers but the file has no layer lines`}},
		{"more layer lines", twoLayers + layerLine("l2") + "\n", 5, 0,
			[]string{`bad.txt:5: extra layer line "l2": the layer count on line 2 (field 1) is 2, and this would be layer 3`}},

		// Field count.
		{"11 fields", bad(strings.TrimSuffix(layerLine("l1"), "\t3")), 4, 12, []string{`bad.txt:4: field 12 (update delay): missing: layer "l1" has 11 fields, want 12`}},
		{"3 fields", bad("l1 -1 10"), 4, 4, []string{`bad.txt:4: field 4 (forward comm type): missing: layer "l1" has 3 fields, want 12`}},
		{"13 fields without HYBRID_CUSTOMIZED", bad(layerLine("l1") + "\tDATA"), 4, 13,
			[]string{`bad.txt:4: field 13 (layer parallelism) "DATA": unexpected: layer "l1" has 13 fields, want 12`, "HYBRID_CUSTOMIZED workloads only"}},
		{"14 fields", bad(layerLine("l1") + "\t1\t2"), 4, 13, []string{`bad.txt:4: field 13 (layer parallelism) "1": unexpected: layer "l1" has 14 fields, want 12`}},
		{"HYBRID_CUSTOMIZED with 12 fields", "HYBRID_CUSTOMIZED\n2\n" + layerLine("l0") + "\tDATA\n" + layerLine("l1") + "\n", 4, 13,
			[]string{`bad.txt:4: field 13 (layer parallelism): missing: layer "l1" has 12 fields, want 13`}},
		{"HYBRID_CUSTOMIZED unknown layer parallelism", "HYBRID_CUSTOMIZED\n1\n" + layerLine("l0") + "\tHYBRID_DLRM\n", 3, 13,
			[]string{`bad.txt:3: field 13 (layer parallelism) "HYBRID_DLRM": unknown layer parallelism; known: DATA, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA`}},

		// Collective types.
		{"unknown forward comm type", bad(field(4, "BROADCAST")), 4, 4,
			[]string{`bad.txt:4: field 4 (forward comm type) "BROADCAST": unknown collective; known: NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL`}},
		{"unsupported ALLREDUCEALLTOALL", bad(field(7, "ALLREDUCEALLTOALL")), 4, 7, []string{`bad.txt:4: field 7 (input-gradient comm type) "ALLREDUCEALLTOALL": unknown collective`}},
		{"comm type in lower case", bad(field(10, "allreduce")), 4, 10,
			[]string{`bad.txt:4: field 10 (weight-gradient comm type) "allreduce": unknown collective`, "did you mean ALLREDUCE?"}},

		// Numbers.
		{"comm size not a number", bad(field(5, "12a")), 4, 5, []string{`bad.txt:4: field 5 (forward comm size) "12a": not a whole number of bytes`}},
		{"compute not a whole number", bad(field(3, "1.5")), 4, 3, []string{`bad.txt:4: field 3 (forward compute) "1.5": not a whole number of cycles (ns)`}},
		{"input-gradient compute not a number", bad(field(6, "NONE")), 4, 6, []string{`bad.txt:4: field 6 (input-gradient compute) "NONE": not a whole number of cycles (ns)`}},
		{"update not a number", bad(field(12, "3ns")), 4, 12, []string{`bad.txt:4: field 12 (update delay) "3ns": not a whole number of cycles (ns)`}},
		{"reserved not a number", bad(field(2, "x")), 4, 2, []string{`bad.txt:4: field 2 (reserved) "x": not a whole number`}},
		{"size out of range", bad(field(11, "99999999999999999999")), 4, 11,
			[]string{`bad.txt:4: field 11 (weight-gradient comm size) "99999999999999999999": not a whole number of bytes (out of the 64-bit range)`}},
		// Every number is read as units.ParseInt reads it (docs/cli.md,
		// "Numbers"): decimal digits only, each other form refused with
		// what to write. ASTRA-sim's own files are plain decimal.
		{"compute with a leading zero", bad(field(3, "010")), 4, 3,
			[]string{`bad.txt:4: field 3 (forward compute) "010": not a whole number of cycles (ns): "010" has a leading zero, which some readers take as octal; write 10 (or 8 if octal was meant)`}},
		{"size with a base prefix", bad(field(11, "0x400")), 4, 11,
			[]string{`bad.txt:4: field 11 (weight-gradient comm size) "0x400": not a whole number of bytes: "0x400" is not a whole number in decimal digits: no base prefix`, "write 1024"}},
		{"size with an underscore", bad(field(11, "1_024")), 4, 11, []string{`bad.txt:4: field 11 (weight-gradient comm size) "1_024": not a whole number of bytes:`, "no underscores; write 1024"}},
		{"update with a plus sign", bad(field(12, "+3")), 4, 12, []string{`bad.txt:4: field 12 (update delay) "+3": not a whole number of cycles (ns):`, "no plus sign; write 3"}},
		{"compute with an exponent", bad(field(3, "1e3")), 4, 3, []string{`bad.txt:4: field 3 (forward compute) "1e3": not a whole number of cycles (ns):`, "no decimal point or exponent; write 1000"}},
		{"reserved with a leading zero", bad(field(2, "-01")), 4, 2, []string{`bad.txt:4: field 2 (reserved) "-01": not a whole number: "-01" has a leading zero`, "the reserved field holds -1"}},
		{"layer count with a plus sign", "DATA\n+2\n", 2, 1, []string{`bad.txt:2: field 1 (layer count) "+2": not a whole number of layers:`, "write 2"}},
		{"HYBRID_DLRM layer with a leading zero", "HYBRID_DLRM 01\n2\n", 1, 2, []string{`bad.txt:1: field 2 (last bottom-MLP layer) "01": not a whole number: "01" has a leading zero; write 1`}},
		{"negative compute", bad(field(9, "-30")), 4, 9, []string{`bad.txt:4: field 9 (weight-gradient compute) "-30": negative; cycles (ns) must be 0 or more`}},
		{"negative size", bad(field(11, "-1024")), 4, 11, []string{`bad.txt:4: field 11 (weight-gradient comm size) "-1024": negative; bytes must be 0 or more`}},
		{"negative update", bad(field(12, "-1")), 4, 12, []string{`bad.txt:4: field 12 (update delay) "-1": negative`}},
		{"size on NONE", bad(field(8, "64")), 4, 8, []string{`bad.txt:4: field 8 (input-gradient comm size) "64": a pass whose comm type (field 7) is NONE must have size 0`}},

		// Line numbers count blank lines.
		{"line number after blank lines", "DATA\n\n2\n\n" + layerLine("l0") + "\n\n" + field(5, "x") + "\n", 7, 5, []string{`bad.txt:7: field 5 (forward comm size) "x"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := ParseAstraSim(strings.NewReader(tt.input), "bad.txt")
			require.Error(t, err)
			assert.Nil(t, w)
			var pe *ParseError
			require.True(t, errors.As(err, &pe), "want a *ParseError, got %T: %v", err, err)
			assert.Equal(t, "bad.txt", pe.File)
			assert.Equal(t, tt.line, pe.Line, "line")
			assert.Equal(t, tt.field, pe.Field, "field")
			assert.True(t, strings.HasPrefix(err.Error(), tt.want[0]), "message\n  %s\nshould start with\n  %s", err, tt.want[0])
			for _, s := range tt.want[1:] {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

// The cause of a number error stays reachable.
func TestParseErrorUnwrap(t *testing.T) {
	_, err := ParseAstraSim(strings.NewReader("DATA\nx\n"), "bad.txt")
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	_, cause := units.ParseInt("x") // numbers are read as everywhere else
	assert.EqualError(t, pe.Unwrap(), cause.Error())
	// A number beyond int64 wraps strconv.ErrRange.
	_, err = ParseAstraSim(strings.NewReader("DATA\n99999999999999999999\n"), "bad.txt")
	assert.ErrorIs(t, err, strconv.ErrRange)
}

// A read failure (here a line longer than the reader's 1 MiB limit) is
// wrapped with the file name and the last line read.
func TestParseAstraSimReadError(t *testing.T) {
	_, err := ParseAstraSim(strings.NewReader("DATA\n1\n"+strings.Repeat("x", 2<<20)+"\n"), "huge.txt")
	require.Error(t, err)
	assert.Equal(t, "huge.txt:3: a line longer than 1048576 bytes; a workload line is a few dozen", err.Error())
}

// LoadAstraSim names the path: in a parse error, and when the file cannot
// be opened.
func TestLoadAstraSimErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "broken.txt")
	require.NoError(t, os.WriteFile(path, []byte("DATA\n1\nl0 -1 10 NONE 12a 20 NONE 0 30 ALLREDUCE 1024 3\n"), 0o644))
	_, err := LoadAstraSim(path)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), path+`:3: field 5 (forward comm size) "12a": not a whole number of bytes`), err.Error())

	missing := filepath.Join(dir, "missing.txt")
	_, err = LoadAstraSim(missing)
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Contains(t, err.Error(), missing)
}

func TestCommType(t *testing.T) {
	for i, name := range CommTypeNames() {
		c, err := ParseCommType(name)
		require.NoError(t, err)
		assert.Equal(t, CommType(i), c)
		assert.Equal(t, name, c.String())
	}
	assert.Equal(t, []string{"NONE", "ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL"}, CommTypeNames())
	assert.Equal(t, CommNone, CommType(0), "the zero value is no collective")
	assert.Equal(t, "CommType(9)", CommType(9).String())
	assert.Equal(t, "CommType(-1)", CommType(-1).String())

	_, err := ParseCommType("AllReduce")
	require.Error(t, err)
	assert.Equal(t, `collective "AllReduce": unknown collective (names are upper case: did you mean ALLREDUCE?); known: NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL`, err.Error())
}

// Validate is format-independent: it checks workloads built in code, such
// as the built-in ones that give FLOPs and bytes.
func TestValidate(t *testing.T) {
	valid := func() *Workload {
		return &Workload{
			Name: "w", Parallelism: ParallelismData, Source: "built-in",
			Layers: []Layer{
				{Name: "a", Fwd: Work{FLOPs: 100, Bytes: 10}, InGrad: Work{FLOPs: 100}, WtGrad: Work{Bytes: 5},
					WtGradComm: Comm{Type: CommAllReduce, Bytes: 64}},
				{Name: "b", Fwd: Work{FLOPs: 1}},
			},
		}
	}
	require.NoError(t, valid().Validate())

	tests := []struct {
		name   string
		mutate func(w *Workload)
		want   string
	}{
		{"no layers", func(w *Workload) { w.Layers = nil }, "workload w: no layers"},
		{"unknown parallelism", func(w *Workload) { w.Parallelism = "PIPELINE" }, `workload w: unknown parallelism "PIPELINE"; known: DATA, MICRO`},
		{"empty parallelism", func(w *Workload) { w.Parallelism = "" }, `workload w: unknown parallelism ""`},
		{"empty name", func(w *Workload) { w.Layers[1].Name = "" }, "workload w: layer 1 (): empty name"},
		{"negative FLOPs", func(w *Workload) { w.Layers[0].Fwd.FLOPs = -1 }, "workload w: layer 0 (a): forward compute FLOPs -1: must not be negative"},
		{"negative bytes", func(w *Workload) { w.Layers[1].InGrad.Bytes = -2 }, "workload w: layer 1 (b): input-gradient compute bytes -2: must not be negative"},
		{"negative cycles", func(w *Workload) { w.Layers[1].WtGrad.Cycles = -3 }, "workload w: layer 1 (b): weight-gradient compute cycles -3: must not be negative"},
		{"negative comm", func(w *Workload) { w.Layers[0].WtGradComm.Bytes = -64 }, "workload w: layer 0 (a): weight-gradient comm size -64 bytes: must not be negative"},
		{"negative update", func(w *Workload) { w.CycleHz = 1e9; w.Layers[0].UpdateCycles = -1 }, "workload w: layer 0 (a): update cycles -1: must not be negative"},
		{"unknown comm type", func(w *Workload) { w.Layers[1].FwdComm.Type = 7 }, "workload w: layer 1 (b): forward comm type CommType(7): unknown"},
		{"size on NONE", func(w *Workload) { w.Layers[1].InGradComm.Bytes = 8 }, "workload w: layer 1 (b): input-gradient comm size 8 bytes with comm type NONE"},
		{"update shape with cycles", func(w *Workload) { w.Layers[0].UpdateShape.Cycles = 5 }, "workload w: layer 0 (a): update shape 0 FLOPs, 0 bytes, 5 cycles: a shape is FLOPs and bytes ≥ 0, no cycles"},
		{"cycles without a clock", func(w *Workload) { w.Layers[1].WtGrad.Cycles = 5 }, "workload w: layers give cycle counts but CycleHz is 0"},
		{"negative clock", func(w *Workload) { w.CycleHz = -1 }, "workload w: CycleHz -1: must not be negative"},
		{"layer parallelism outside HYBRID_CUSTOMIZED", func(w *Workload) { w.Layers[0].Parallelism = "MODEL" }, `workload w: layer 0 (a): parallelism "MODEL": only HYBRID_CUSTOMIZED layers`},
		{"HYBRID_CUSTOMIZED layer without one", func(w *Workload) {
			w.Parallelism = ParallelismHybridCustomized
			w.Layers[0].Parallelism = "DATA"
		}, `workload w: layer 1 (b): parallelism "": a HYBRID_CUSTOMIZED layer needs one of DATA, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA`},
		{"HYBRID_DLRM without its layer", func(w *Workload) { w.Parallelism = ParallelismHybridDLRM }, "workload w: HYBRID_DLRM needs the index of the last bottom-MLP layer"},
		{"HYBRID_DLRM layer not a number", func(w *Workload) {
			w.Parallelism = ParallelismHybridDLRM
			w.ParallelismArgs = []string{"last"}
		}, `workload w: HYBRID_DLRM last bottom-MLP layer "last": not a whole number`},
		{"HYBRID_DLRM layer out of range", func(w *Workload) {
			w.Parallelism = ParallelismHybridDLRM
			w.ParallelismArgs = []string{"1"}
		}, "workload w: HYBRID_DLRM last bottom-MLP layer 1: out of range; with 2 layers it must be in 0..0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := valid()
			tt.mutate(w)
			err := w.Validate()
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tt.want), "message\n  %s\nshould start with\n  %s", err, tt.want)
		})
	}

	// A valid HYBRID_DLRM: the last bottom-MLP layer is followed by a top one.
	w := valid()
	w.Parallelism = ParallelismHybridDLRM
	w.ParallelismArgs = []string{"0"}
	require.NoError(t, w.Validate())
	k, err := w.DLRMLastBottomLayer()
	require.NoError(t, err)
	assert.Equal(t, 0, k)

	_, err = valid().DLRMLastBottomLayer()
	assert.EqualError(t, err, "workload w: parallelism DATA has no last bottom-MLP layer (only HYBRID_DLRM does)")
}

// The keyword lists are ASTRA-sim 1.0's (docs/astrasim-workloads.md) and
// are fresh copies.
func TestParallelismLists(t *testing.T) {
	assert.Equal(t, []string{"DATA", "MICRO", "MODEL", "HYBRID_DLRM", "HYBRID_TRANSFORMER", "HYBRID_TRANSFORMER_FWD_IN_BCKWD", "HYBRID_DATA_MODEL",
		"HYBRID_MODEL_DATA", "HYBRID_CUSTOMIZED", "DISTRIBUTED_INFERENCE"}, Parallelisms())
	assert.Equal(t, []string{"DATA", "MODEL", "HYBRID_DATA_MODEL", "HYBRID_MODEL_DATA"}, LayerParallelisms())
	p := Parallelisms()
	p[0] = "X"
	assert.Equal(t, "DATA", Parallelisms()[0])
	n := CommTypeNames()
	n[0] = "X"
	assert.Equal(t, "NONE", CommNone.String())
}

// A file saved with lone CR line ends (old Mac) or CR LF reads as the same
// workload as with LF.
func TestAstraSimLineEnds(t *testing.T) {
	b, err := os.ReadFile("../testdata/astrasim/DLRM_HybridParallel.txt")
	require.NoError(t, err)
	want, err := ParseAstraSim(bytes.NewReader(b), "x.txt")
	require.NoError(t, err)
	for _, end := range []string{"\r", "\r\n"} {
		got, err := ParseAstraSim(bytes.NewReader(bytes.ReplaceAll(b, []byte("\n"), []byte(end))), "x.txt")
		require.NoError(t, err, "%q", end)
		require.Equal(t, want, got, "%q", end)
	}
}
