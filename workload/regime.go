package workload

import (
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/acemu/acemu/workload/models"
)

// The compute sources of a built-in workload (docs/workloads.md, "Compute
// regimes"), the values of --compute and training.compute.
const (
	// ComputeAuto is the paper's per-layer times where they are public
	// (ComputePaper), else the roofline at the paper's batch.
	ComputeAuto = "auto"
	// ComputePaper is the per-layer times of the paper's simulator:
	// ASTRA-sim 1.0's workload files (PaperFile).
	ComputePaper = "paper"
	// ComputeRoofline is the built-in tables, at the paper's batch or
	// another, timed by Table V's roofline.
	ComputeRoofline = "roofline"
)

// ComputeSources returns the compute sources, the default first.
func ComputeSources() []string { return []string{ComputeAuto, ComputePaper, ComputeRoofline} }

// paperFS holds ASTRA-sim 1.0's workload files, the per-layer times of the
// ACE paper's simulator, with their MIT notice (paper/NOTICE).
//
//go:embed paper/*.txt paper/NOTICE
var paperFS embed.FS

// paperFiles maps a built-in workload to the ASTRA-sim 1.0 file with its
// paper-regime compute; GNMT has none (docs/workloads.md, "GNMT").
var paperFiles = map[string]string{
	"resnet50": "Resnet50_DataParallel.txt",
	"dlrm":     "DLRM_HybridParallel.txt",
}

// PaperFile returns the ASTRA-sim 1.0 file that gives the built-in
// workload name its paper-regime compute, and whether there is one.
func PaperFile(name string) (string, bool) {
	f, ok := paperFiles[name]
	return f, ok
}

// Paper returns the built-in workload name in the paper's compute regime:
// the ASTRA-sim 1.0 file of PaperFile, as ParseAstraSim reads it (with its
// architecture's shapes where it has one), named name.
func Paper(name string) (*Workload, error) {
	file, ok := paperFiles[name]
	if !ok {
		if !slices.Contains(builtinNames, name) {
			return nil, fmt.Errorf("unknown built-in workload %q: use one of %s", name, strings.Join(builtinNames, ", "))
		}
		return nil, fmt.Errorf("--compute %s: %s has no per-layer times from the paper's simulator (docs/workloads.md, \"GNMT\"); use --compute %s", ComputePaper, name, ComputeRoofline)
	}
	data, err := paperFS.ReadFile("paper/" + file)
	if err != nil {
		return nil, fmt.Errorf("built-in workload %s: %w", name, err)
	}
	w, err := ParseAstraSim(bytes.NewReader(data), file)
	if err != nil {
		return nil, fmt.Errorf("built-in workload %s: %w", name, err)
	}
	w.Name, w.Source, w.Compute = name, "paper:"+file, ComputePaper
	return w, nil
}

// BuiltinAt returns the built-in workload name at batch samples per NPU
// (0: the paper's batch, the embedded table), on the roofline.
func BuiltinAt(name string, batch int64) (*Workload, error) {
	def, err := models.Batch(name)
	if err != nil || batch == 0 || batch == def {
		w, err := Builtin(name)
		if err == nil {
			w.Batch = def
		}
		return w, err
	}
	var b bytes.Buffer
	if err := models.WriteCSV(&b, name, batch); err != nil {
		return nil, fmt.Errorf("--batch: %w", err)
	}
	file, _ := models.File(name)
	w, err := parseBuiltin(file, b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("built-in workload %s at batch %d: %w", name, batch, err)
	}
	w.Batch = batch
	return w, nil
}

// Given says how a command was given a compute-regime parameter, for its
// messages: key is training.compute or training.batch, value the value as
// text (e.g. "--compute paper", "--set training.batch=4", "training.batch:
// 4 in --config p.yaml").
type Given func(key, value string) string

// ByFlag is Given for the named flags --compute and --batch.
func ByFlag(key, value string) string {
	if key == "training.batch" {
		return "--batch " + value
	}
	return "--compute " + value
}

// ByKey is Given naming the platform parameter and its value
// ("training.compute=paper"), where it could have come from more than
// one place.
func ByKey(key, value string) string { return key + "=" + value }

// Resolve returns the workload a command's --workload, --compute and
// --batch name: a built-in in the compute regime asked for, or an
// ASTRA-sim file, whose compute is its own (compute must then be
// ComputeAuto or "", and batch 0). batch 0 is the paper's; a batch given
// with ComputeAuto means the roofline.
func Resolve(name, compute string, batch int64) (*Workload, error) {
	return ResolveGiven(name, compute, batch, ByFlag)
}

// ResolveGiven is Resolve whose messages name compute and batch as given
// says they were given.
func ResolveGiven(name, compute string, batch int64, given Given) (*Workload, error) {
	if compute == "" {
		compute = ComputeAuto
	}
	c := func(v string) string { return given("training.compute", v) }
	b := given("training.batch", strconv.FormatInt(batch, 10))
	if !slices.Contains(ComputeSources(), compute) {
		return nil, fmt.Errorf("%s: use %s", c(strconv.Quote(compute)), strings.Join(ComputeSources(), ", "))
	}
	if batch < 0 || batch > models.MaxBatch {
		return nil, fmt.Errorf("%s: use 1 to %d samples per NPU", b, models.MaxBatch)
	}
	if !slices.Contains(builtinNames, name) {
		var what []string
		if compute != ComputeAuto {
			what = append(what, c(compute))
		}
		if batch != 0 {
			what = append(what, b)
		}
		if len(what) > 0 {
			verb, it := "is", "it"
			if len(what) > 1 {
				verb, it = "are", "them"
			}
			return nil, fmt.Errorf("%s %s for the built-in workloads (%s); a workload file's compute is its own, so drop %s", strings.Join(what, " and "), verb, strings.Join(builtinNames, ", "), it)
		}
		return Load(name)
	}
	switch {
	case compute == ComputePaper && batch != 0:
		return nil, fmt.Errorf("%s with %s: the paper's times are of one batch (one image per NPU for ResNet-50; docs/workloads.md); a batch is for %s", b, c(ComputePaper), c(ComputeRoofline))
	case compute == ComputePaper:
		if _, ok := paperFiles[name]; !ok && slices.Contains(builtinNames, name) {
			return nil, fmt.Errorf("%s: %s has no per-layer times from the paper's simulator (docs/workloads.md, \"GNMT\"); use %s", c(ComputePaper), name, c(ComputeRoofline))
		}
		return Paper(name)
	case compute == ComputeAuto && batch == 0 && paperFiles[name] != "":
		return Paper(name)
	}
	w, err := BuiltinAt(name, batch)
	if err == nil {
		w.Compute = ComputeRoofline
	}
	return w, err
}

// resnetFileLayer matches the layer names of ASTRA-sim 1.0's ResNet-50:
// layer_W_B_convK, W the stage's width, B the block from 1, K 1-3 the
// bottleneck's convolutions and 4 the projection shortcut.
var resnetFileLayer = regexp.MustCompile(`^layer_(64|128|256|512)_([1-9])_conv([1-4])$`)

// resnetName is the torchvision name of an ASTRA-sim ResNet-50 layer, ""
// for a name of another form.
func resnetName(file string) string {
	switch file {
	case "conv1":
		return "conv1"
	case "fc1000":
		return "fc"
	}
	m := resnetFileLayer.FindStringSubmatch(file)
	if m == nil {
		return ""
	}
	stage := map[string]int{"64": 1, "128": 2, "256": 3, "512": 4}[m[1]]
	block, _ := strconv.Atoi(m[2])
	conv := "conv" + m[3]
	if m[3] == "4" {
		conv = "downsample.0"
	}
	return fmt.Sprintf("layer%d.%d.%s", stage, block-1, conv)
}

// ShapeBatch is the batch the shapes of a matched file are taken at: the
// paper's simulator timed one image per NPU (docs/workloads.md, "Why the
// paper's ResNet-50 is one image per NPU").
const ShapeBatch = 1

// MatchShapes gives the timed passes of w their shapes when w is a file of
// an architecture acemu knows (docs/astrasim-workloads.md, "Matching a
// file to an architecture"): today ResNet-50, DATA-parallel, 54 layers with
// ASTRA-sim 1.0's names, each all-reducing 2 or 4 bytes per weight of its
// kernel. Each pass with a time gets its layer's FLOPs and bytes at
// ShapeBatch, and the update delay the SGD step's (2 FLOPs and 6 bytes per
// weight). It returns whether w matched (and sets w.Shapes and w.Batch);
// a workload that does not match is left as it is.
func MatchShapes(w *Workload) (bool, error) {
	if w.Parallelism != ParallelismData || w.CycleHz == 0 {
		return false, nil
	}
	shapes, err := models.Layers("resnet50", ShapeBatch)
	if err != nil {
		return false, err
	}
	if len(w.Layers) != len(shapes) {
		return false, nil
	}
	byName := map[string]models.Shape{}
	for _, s := range shapes {
		byName[s.Name] = s
	}
	matched := make([]models.Shape, len(w.Layers))
	for i, l := range w.Layers {
		s, ok := byName[resnetName(l.Name)]
		if !ok || l.WtGradComm.Type != CommAllReduce || (l.WtGradComm.Bytes != 2*s.Weights && l.WtGradComm.Bytes != 4*s.Weights) {
			return false, nil
		}
		delete(byName, s.Name) // each architecture layer once
		matched[i] = s
	}
	for i := range w.Layers {
		l, s := &w.Layers[i], matched[i]
		for _, p := range []struct {
			w *Work
			s models.Work
		}{{&l.Fwd, s.Fwd}, {&l.InGrad, s.InGrad}, {&l.WtGrad, s.WtGrad}} {
			if p.w.Cycles > 0 {
				p.w.FLOPs, p.w.Bytes = p.s.FLOPs, p.s.Bytes
			}
		}
		if l.UpdateCycles > 0 {
			l.UpdateShape = BuiltinUpdateWork(&Layer{WtGradComm: Comm{Type: CommAllReduce, Bytes: s.Weights * BuiltinBytesPerValue}})
		}
	}
	w.Shapes, w.Batch = "ResNet-50 v1.5 (torchvision)", ShapeBatch
	return true, nil
}
