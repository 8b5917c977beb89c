package workload

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/acemu/acemu/internal/lines"
	"github.com/acemu/acemu/units"
)

// builtinFS holds the built-in workload tables (docs/workloads.md), written
// by `go run ./workload/builtin/gen -out workload/builtin`.
//
//go:embed builtin/*.csv
var builtinFS embed.FS

// BuiltinSource is the Source of every built-in workload.
const BuiltinSource = "built-in"

// BuiltinBytesPerValue is the size of one value in the built-in workloads:
// FP16 activations, weights and gradients (paper, Section V). Their tables
// state it (`# bytes_per_value: 2`) and the loader refuses any other value,
// because BuiltinUpdateWork counts parameters from gradient bytes with it.
const BuiltinBytesPerValue = 2

// builtinNames are the built-in workloads in the paper's order (Section V).
var builtinNames = []string{"resnet50", "gnmt", "dlrm"}

// BuiltinNames returns the names Builtin accepts: "resnet50", "gnmt",
// "dlrm", in the paper's order. It is a fresh slice.
func BuiltinNames() []string { return slices.Clone(builtinNames) }

// Builtin returns the built-in workload called name (one of BuiltinNames),
// read from the table embedded in the binary (workload/builtin/NAME.csv;
// docs/workloads.md gives every rule and source). Each call returns a fresh
// workload the caller may modify.
//
// A row maps to a Layer as docs/workloads.md says: its FLOPs and bytes go to
// Fwd, InGrad and WtGrad (roofline work; Cycles stay 0), an `allreduce`
// becomes WtGradComm = {CommAllReduce, comm_bytes}, an `alltoall` becomes
// both FwdComm and InGradComm = {CommAllToAll, comm_bytes}. The workload's
// Parallelism is the table's `# parallelism:`; for HYBRID_DLRM its
// `# last_bottom_mlp:` is ParallelismArgs[0] (see DLRMLastBottomLayer).
// Source is BuiltinSource and CycleHz 0 (no cycle counts). UpdateCycles
// stays 0: the weight update of a built-in layer is roofline work that the
// training loop takes from BuiltinUpdateWork.
//
// An unknown name is an error that lists the known ones.
func Builtin(name string) (*Workload, error) {
	if !slices.Contains(builtinNames, name) {
		return nil, fmt.Errorf("unknown built-in workload %q: use one of %s (or an ASTRA-sim 1.0 workload file)", name, strings.Join(builtinNames, ", "))
	}
	file := "builtin/" + name + ".csv"
	data, err := builtinFS.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("built-in workload %s: %w", name, err)
	}
	w, err := parseBuiltin(file, data)
	if err != nil {
		return nil, fmt.Errorf("built-in workload %s: %w", name, err)
	}
	if w.Name != name {
		return nil, fmt.Errorf("built-in workload %s: %s names itself %q", name, file, w.Name)
	}
	return w, nil
}

// BuiltinUpdateWork returns the weight-update (optimizer) work of layer l of
// a built-in workload, which the tables do not hold as a row's work
// (docs/workloads.md) and the Layer type has no field for.
//
// [choice; docs/training-loop.md] The update is a plain SGD step over the
// layer's data-parallel parameters, w −= lr·g: it reads the weights and the
// (all-reduced) gradients and writes the weights, P values of
// BuiltinBytesPerValue bytes each, so bytes = 3 × P × 2, and does one
// multiply-add per parameter, FLOPs = 2 × P: memory-bound on the roofline.
// P is derived from the weight-gradient all-reduce, whose size is exactly
// P × BuiltinBytesPerValue in every built-in table (the loader checks it),
// so bytes = 3 × WtGradComm.Bytes and FLOPs = WtGradComm.Bytes.
//
// A layer without a weight-gradient all-reduce has no update work: layers
// with no parameters (DLRM's interaction, GNMT's decoder.embedder, whose
// weight is the encoder's), and DLRM's model-parallel embedding tables,
// whose sparse update is already their wtgrad row (docs/workloads.md).
func BuiltinUpdateWork(l *Layer) Work {
	if l.WtGradComm.Type != CommAllReduce {
		return Work{}
	}
	b := l.WtGradComm.Bytes // = P × BuiltinBytesPerValue
	return Work{FLOPs: b, Bytes: 3 * b}
}

// builtinColumns is the header row every built-in table must have.
var builtinColumns = []string{
	"name", "kind", "fwd_flops", "fwd_bytes", "ingrad_flops", "ingrad_bytes",
	"wtgrad_flops", "wtgrad_bytes", "params", "comm", "comm_bytes",
}

// builtinKinds are the layer kinds a table may use.
var builtinKinds = []string{"conv", "fc", "lstm", "attention", "embedding", "interaction"}

// builtinKey matches the key of a `# key: value` comment. Comment lines
// that are prose (no key, or a key that is not a lower-case identifier,
// such as DLRM's "# bench/run_and_time.sh, ...: 26 tables") are skipped.
var builtinKey = regexp.MustCompile(`^([a-z][a-z0-9_]*): (.*)$`)

// parseBuiltin reads a built-in table. file names it in errors. The tables
// are generated and embedded, so an error here is a bug in the generator or
// in this loader, reported with the line.
func parseBuiltin(file string, data []byte) (*Workload, error) {
	meta := map[string]string{}
	w := &Workload{Source: BuiltinSource}
	var header bool
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Split(lines.Split) // LF, CR LF or a lone CR
	line := 0
	errf := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		line++
		text := sc.Text() // lines.Split took the line ending off
		switch {
		case strings.TrimSpace(text) == "":
			continue
		case strings.HasPrefix(text, "#"):
			if header {
				return nil, errf("comment after the header row")
			}
			m := builtinKey.FindStringSubmatch(strings.TrimSpace(strings.TrimPrefix(text, "#")))
			if m == nil {
				continue // prose
			}
			if prev, ok := meta[m[1]]; ok {
				meta[m[1]] = prev + " " + m[2] // repeated key (source): one value
			} else {
				meta[m[1]] = m[2]
			}
		case !header:
			if got := strings.Split(text, ","); !slices.Equal(got, builtinColumns) {
				return nil, errf("header row %q: want %q", text, strings.Join(builtinColumns, ","))
			}
			header = true
			if err := builtinMeta(w, meta); err != nil {
				return nil, errf("%v", err)
			}
		default:
			l, err := builtinRow(strings.Split(text, ","))
			if err != nil {
				return nil, errf("%v", err)
			}
			w.Layers = append(w.Layers, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: read: %w", file, err)
	}
	if !header {
		return nil, fmt.Errorf("%s: no header row (%s)", file, strings.Join(builtinColumns, ","))
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return w, nil
}

// builtinMeta applies the `# key: value` facts to w.
func builtinMeta(w *Workload, meta map[string]string) error {
	for _, k := range []string{"workload", "parallelism", "bytes_per_value"} {
		if meta[k] == "" {
			return fmt.Errorf("missing comment `# %s: ...` before the header row", k)
		}
	}
	w.Name = meta["workload"]
	if bpv := meta["bytes_per_value"]; bpv != strconv.Itoa(BuiltinBytesPerValue) {
		return fmt.Errorf("bytes_per_value %q: the built-in workloads are FP16 (%d bytes per value)", bpv, BuiltinBytesPerValue)
	}
	switch p := meta["parallelism"]; p {
	case ParallelismData:
		w.Parallelism = p
	case ParallelismHybridDLRM:
		w.Parallelism = p
		lb := meta["last_bottom_mlp"]
		if _, err := units.ParseInt(lb); err != nil {
			return fmt.Errorf("parallelism %s needs `# last_bottom_mlp: N` (a layer index), got %q", p, lb)
		}
		w.ParallelismArgs = []string{lb}
	default:
		return fmt.Errorf("parallelism %q: a built-in table is %s or %s", p, ParallelismData, ParallelismHybridDLRM)
	}
	return nil
}

// builtinRow reads one layer row (already split on commas).
func builtinRow(f []string) (Layer, error) {
	if len(f) != len(builtinColumns) {
		return Layer{}, fmt.Errorf("%d columns, want %d (%s)", len(f), len(builtinColumns), strings.Join(builtinColumns, ","))
	}
	l := Layer{Name: f[0]}
	if l.Name == "" {
		return Layer{}, fmt.Errorf("empty layer name")
	}
	if !slices.Contains(builtinKinds, f[1]) {
		return Layer{}, fmt.Errorf("layer %s: kind %q: want one of %s", l.Name, f[1], strings.Join(builtinKinds, ", "))
	}
	nums := make([]int64, len(builtinColumns))
	for i := 2; i < len(f); i++ {
		if i == 9 { // comm
			continue
		}
		v, err := units.ParseInt(f[i])
		if err != nil || v < 0 {
			return Layer{}, fmt.Errorf("layer %s: %s %q: want a whole number ≥ 0", l.Name, builtinColumns[i], f[i])
		}
		nums[i] = v
	}
	l.Fwd = Work{FLOPs: nums[2], Bytes: nums[3]}
	l.InGrad = Work{FLOPs: nums[4], Bytes: nums[5]}
	l.WtGrad = Work{FLOPs: nums[6], Bytes: nums[7]}
	params, size := nums[8], nums[10]
	switch comm := f[9]; comm {
	case "none":
		if size != 0 {
			return Layer{}, fmt.Errorf("layer %s: comm none with comm_bytes %d: want 0", l.Name, size)
		}
	case "allreduce":
		// BuiltinUpdateWork counts the parameters from this size.
		if size != params*BuiltinBytesPerValue {
			return Layer{}, fmt.Errorf("layer %s: all-reduce of %d B for %d parameters: want params × %d = %d B", l.Name, size, params, BuiltinBytesPerValue, params*BuiltinBytesPerValue)
		}
		l.WtGradComm = Comm{Type: CommAllReduce, Bytes: size}
	case "alltoall":
		if size == 0 {
			return Layer{}, fmt.Errorf("layer %s: all-to-all of 0 bytes", l.Name)
		}
		l.FwdComm = Comm{Type: CommAllToAll, Bytes: size}
		l.InGradComm = Comm{Type: CommAllToAll, Bytes: size}
	default:
		return Layer{}, fmt.Errorf("layer %s: comm %q: want none, allreduce or alltoall", l.Name, comm)
	}
	return l, nil
}

// Load returns the built-in workload of that name, or else reads name as
// an ASTRA-sim 1.0 workload file.
func Load(name string) (*Workload, error) {
	if slices.Contains(builtinNames, name) {
		return Builtin(name)
	}
	if _, err := os.Stat(name); err != nil {
		return nil, fmt.Errorf("workload %q is neither a built-in workload (%s) nor a readable file: %w", name, strings.Join(builtinNames, ", "), err)
	}
	return LoadAstraSim(name)
}
