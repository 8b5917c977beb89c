package workload

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolveNamesTheRegime(t *testing.T) {
	tests := []struct {
		name, compute string
		batch         int64
		wantCompute   string
		wantBatch     int64
		wantLayers    int
		wantErr       string
	}{
		{"resnet50", "", 0, ComputePaper, 1, 54, ""},
		{"resnet50", ComputeAuto, 0, ComputePaper, 1, 54, ""},
		{"resnet50", ComputeRoofline, 0, ComputeRoofline, 32, 54, ""},
		{"resnet50", ComputeAuto, 8, ComputeRoofline, 8, 54, ""}, // a batch means the roofline
		{"dlrm", "", 0, ComputePaper, 0, 8, ""},                  // ASTRA-sim's DLRM: no shapes, batch unknown
		{"dlrm", ComputeRoofline, 0, ComputeRoofline, 512, 10, ""},
		{"gnmt", "", 0, ComputeRoofline, 128, 20, ""}, // no paper times: the roofline
		{"gnmt", ComputePaper, 0, "", 0, 0, "gnmt has no per-layer times from the paper's simulator"},
		{"resnet50", ComputePaper, 4, "", 0, 0, "the paper's times are of one batch"},
		{"resnet50", "fast", 0, "", 0, 0, `--compute "fast": use auto, paper, roofline`},
		{"resnet50", ComputeRoofline, -1, "", 0, 0, "--batch -1: use 1 to"},
		{"../testdata/astrasim/Resnet50_DataParallel.txt", ComputeRoofline, 0, "", 0, 0, "a workload file's compute is its own"},
		{"../testdata/astrasim/Resnet50_DataParallel.txt", "", 0, "", 1, 54, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.compute, func(t *testing.T) {
			w, err := Resolve(tt.name, tt.compute, tt.batch)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantCompute, w.Compute)
			assert.Equal(t, tt.wantBatch, w.Batch)
			assert.Len(t, w.Layers, tt.wantLayers)
			require.NoError(t, w.Validate())
		})
	}
}

// TestRooflineAtAnyBatch checks the tables at a batch other than the
// paper's against hand arithmetic (docs/workloads.md's rules).
func TestRooflineAtAnyBatch(t *testing.T) {
	w, err := Resolve("resnet50", ComputeRoofline, 1)
	require.NoError(t, err)
	// conv1: 2·112·112·64·(7·7·3) MACs' FLOPs; bytes 2·(224·224·3 +
	// 112·112·64 + 9,408 + 128).
	assert.Equal(t, Work{FLOPs: 236_027_904, Bytes: 1_925_760}, w.Layers[0].Fwd)
	d, err := Resolve("dlrm", ComputeRoofline, 1)
	require.NoError(t, err)
	// The embeddings' all-to-all: 1 sample × 26 tables × 128 × 2 B.
	assert.Equal(t, Comm{Type: CommAllToAll, Bytes: 6656}, d.Layers[0].FwdComm)
	// The MLPs' all-reduces do not depend on the batch.
	d512, err := Builtin("dlrm")
	require.NoError(t, err)
	assert.Equal(t, d512.Layers[1].WtGradComm, d.Layers[1].WtGradComm)
}

func TestPaperResNet50HasItsShapes(t *testing.T) {
	w, err := Paper("resnet50")
	require.NoError(t, err)
	assert.Equal(t, "paper:Resnet50_DataParallel.txt", w.Source)
	for i, l := range w.Layers {
		for _, p := range []Work{l.Fwd, l.WtGrad} {
			assert.Positive(t, p.Cycles, l.Name)
			assert.Positive(t, p.FLOPs, l.Name)
			assert.Positive(t, p.Bytes, l.Name)
		}
		if i > 0 {
			assert.Positive(t, l.InGrad.FLOPs, l.Name)
		}
		// The SGD step over the layer's weights: 2 FLOPs and 6 B each.
		assert.Equal(t, Work{FLOPs: l.WtGradComm.Bytes / 2, Bytes: 3 * l.WtGradComm.Bytes / 2}, l.UpdateShape, l.Name)
	}
	// conv1's input gradient (12,864 ns) has no shape: there is nothing
	// below layer 0 to pass a gradient to.
	assert.Equal(t, Work{Cycles: 12_864}, w.Layers[0].InGrad)
	// layer_64_1_conv4 is the first stage's projection shortcut, 64 → 256:
	// 2·56·56·256·64 FLOPs.
	assert.Equal(t, "layer_64_1_conv4", w.Layers[1].Name)
	assert.Equal(t, int64(102_760_448), w.Layers[1].Fwd.FLOPs)
}

func TestAFileThatDoesNotMatchKeepsNoShapes(t *testing.T) {
	b, err := os.ReadFile("../testdata/astrasim/Resnet50_DataParallel.txt")
	require.NoError(t, err)
	for name, edit := range map[string]func(string) string{
		"renamed layer": func(s string) string { return strings.Replace(s, "layer_64_2_conv1", "layer_64_2_convX", 1) },
		"other size":    func(s string) string { return strings.Replace(s, "ALLREDUCE\t37632", "ALLREDUCE\t37636", 1) },
	} {
		t.Run(name, func(t *testing.T) {
			w, err := ParseAstraSim(strings.NewReader(edit(string(b))), "x.txt")
			require.NoError(t, err) // read, but with no shapes
			ok, err := MatchShapes(w)
			require.NoError(t, err)
			assert.False(t, ok)
			assert.Equal(t, Work{Cycles: 13_003}, w.Layers[0].Fwd)
			assert.Empty(t, w.Shapes)
		})
	}
}

// TestPaperFilesAreTheTestdataFiles: the embedded copies are ASTRA-sim's
// files, byte for byte (testdata's are pinned by their SHA-256), with the
// licence beside them.
func TestPaperFilesAreTheTestdataFiles(t *testing.T) {
	notice, err := os.ReadFile("paper/NOTICE")
	require.NoError(t, err)
	assert.Contains(t, string(notice), "MIT License")
	for _, f := range []string{"Resnet50_DataParallel.txt", "DLRM_HybridParallel.txt"} {
		a, err := os.ReadFile("paper/" + f)
		require.NoError(t, err)
		b, err := os.ReadFile("../testdata/astrasim/" + f)
		require.NoError(t, err)
		assert.Equal(t, b, a, f)
	}
}

// Resolve's messages name compute and batch as they were given (a flag,
// --set, a configuration file, a sweep's key), never a flag the user did
// not use.
func TestResolveGivenNamesWhereTheValuesCameFrom(t *testing.T) {
	set := func(key, value string) string { return "--set " + key + "=" + value }
	tests := []struct {
		name, workload, compute string
		batch                   int64
		given                   Given
		want                    string
	}{
		{"flags on a file", "../testdata/astrasim/Resnet50_DataParallel.txt", ComputeRoofline, 2, ByFlag,
			"--compute roofline and --batch 2 are for the built-in workloads (resnet50, gnmt, dlrm); a workload file's compute is its own, so drop them"},
		{"--set batch on a file", "../testdata/astrasim/Resnet50_DataParallel.txt", "", 4, set,
			"--set training.batch=4 is for the built-in workloads (resnet50, gnmt, dlrm); a workload file's compute is its own, so drop it"},
		{"a sweep's compute on gnmt", "gnmt", ComputePaper, 0, ByKey,
			"training.compute=paper: gnmt has no per-layer times from the paper's simulator (docs/workloads.md, \"GNMT\"); use training.compute=roofline"},
		{"--set compute with a batch", "resnet50", ComputePaper, 4, set,
			"--set training.batch=4 with --set training.compute=paper: the paper's times are of one batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ResolveGiven(tt.workload, tt.compute, tt.batch, tt.given)
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.want)
		})
	}
}
