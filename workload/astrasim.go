package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/acemu/acemu/internal/lines"
	"github.com/acemu/acemu/units"
)

// AstraSimCycleHz is the clock of the compute times and update delays in
// ASTRA-sim 1.0 workload files: 1 GHz, so one cycle is one nanosecond of
// full-NPU time. Workloads read from such files carry it as CycleHz; the
// numbers themselves are kept as the file gives them.
const AstraSimCycleHz = 1_000_000_000

// The 1-based fields of an ASTRA-sim 1.0 layer line
// (docs/astrasim-workloads.md, "What each field becomes").
const (
	fieldName = iota + 1
	fieldReserved
	fieldFwdCompute
	fieldFwdCommType
	fieldFwdCommSize
	fieldIGCompute
	fieldIGCommType
	fieldIGCommSize
	fieldWGCompute
	fieldWGCommType
	fieldWGCommSize
	fieldUpdate
	fieldLayerParallelism
)

// layerFieldNames names the fields of a layer line, indexed by field number.
var layerFieldNames = [...]string{
	fieldName:             "name",
	fieldReserved:         "reserved",
	fieldFwdCompute:       "forward compute",
	fieldFwdCommType:      "forward comm type",
	fieldFwdCommSize:      "forward comm size",
	fieldIGCompute:        "input-gradient compute",
	fieldIGCommType:       "input-gradient comm type",
	fieldIGCommSize:       "input-gradient comm size",
	fieldWGCompute:        "weight-gradient compute",
	fieldWGCommType:       "weight-gradient comm type",
	fieldWGCommSize:       "weight-gradient comm size",
	fieldUpdate:           "update delay",
	fieldLayerParallelism: "layer parallelism",
}

// Field names of the two header lines.
const (
	headerFieldParallelism = "parallelism"
	headerFieldLastBottom  = "last bottom-MLP layer"
	countFieldName         = "layer count"
)

// ParseError is a malformed ASTRA-sim workload file: the file, the line and,
// when one field is at fault, the field. Its message reads like a
// compiler's:
//
//	Resnet50_DataParallel.txt:7: field 5 (forward comm size) "12a": not a whole number of bytes
type ParseError struct {
	// File is the name the input was given (a path for LoadAstraSim).
	File string
	// Line is the 1-based line number.
	Line int
	// Field is the 1-based field number within the line (fields are
	// separated by whitespace); 0 when the error is about the line as a
	// whole.
	Field int
	// FieldName says what the field holds ("forward comm size").
	FieldName string
	// Value is the offending token; empty when the field is missing.
	Value string
	// Msg says what is wrong and, where it helps, what is expected.
	Msg string
	// Err is the underlying cause, if any (a strconv error, for instance).
	Err error
}

// Error formats e as "file:line: field N (name) "value": message".
func (e *ParseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	if e.Field > 0 {
		fmt.Fprintf(&b, "field %d (%s)", e.Field, e.FieldName)
		if e.Value != "" {
			fmt.Fprintf(&b, " %q", e.Value)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying cause, or nil.
func (e *ParseError) Unwrap() error { return e.Err }

// LoadAstraSim reads the ASTRA-sim 1.0 workload file at path; see
// ParseAstraSim. Errors name the path.
func LoadAstraSim(path string) (*Workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load ASTRA-sim workload: %w", err)
	}
	defer f.Close()
	return ParseAstraSim(f, path)
}

// ParseAstraSim reads an ASTRA-sim 1.0 text workload
// (docs/astrasim-workloads.md) from r. name is the file's name for error
// messages and, without directory and ".txt", the workload's Name.
//
// The layout is line-based: line 1 holds the parallelism keyword and
// optional extra tokens (kept in ParallelismArgs; HYBRID_DLRM must give the
// index of its last bottom-MLP layer), line 2 the number of layers, then
// one line per layer with 12 whitespace-separated fields (13 for
// HYBRID_CUSTOMIZED). Tabs or spaces separate fields; trailing whitespace,
// CR LF line ends, a missing final newline and whitespace-only lines (which
// ASTRA-sim's token reader skips too) are accepted.
//
// The numbers are kept as written: compute times and update delays go to
// Work.Cycles and Layer.UpdateCycles in nanoseconds (CycleHz =
// AstraSimCycleHz), sizes to Comm.Bytes. A file of an architecture acemu
// knows gets its passes' shapes beside their times (MatchShapes). Field 2 (reserved, -1 in practice)
// must be a whole number and is otherwise ignored.
//
// Malformed input gives a *ParseError naming the file, the line and the
// field: a wrong number of fields, an unknown parallelism or collective, a
// number that is not a whole number or is negative, a size on a NONE
// collective, fewer or more layer lines than declared, an empty file. A
// read failure is returned wrapped with the file name.
func ParseAstraSim(r io.Reader, name string) (*Workload, error) {
	p := &astraParser{file: name}
	w := &Workload{
		Name:    strings.TrimSuffix(filepath.Base(name), ".txt"),
		Source:  "astrasim:" + name,
		CycleHz: AstraSimCycleHz,
	}

	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxAstraLine)
	sc.Split(lines.Split) // LF, CR LF or a lone CR
	var (
		headerLine, countLine int   // 0 until read
		count                 int64 // declared layers
		lastLayerLine         int
	)
	for sc.Scan() {
		p.line++
		text := sc.Text()
		if p.line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF") // a UTF-8 byte-order mark
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		switch {
		case headerLine == 0:
			headerLine = p.line
			if err := p.header(w, f); err != nil {
				return nil, err
			}
		case countLine == 0:
			countLine = p.line
			n, err := p.count(f)
			if err != nil {
				return nil, err
			}
			count = n
			if err := p.checkDLRM(w, headerLine, count); err != nil {
				return nil, err
			}
			w.Layers = make([]Layer, 0, min(count, 1<<16))
		case int64(len(w.Layers)) == count:
			return nil, p.errf(0, "", "extra layer line %q: the layer count on line %d (field 1) is %d, and this would be layer %d",
				f[0], countLine, count, count+1)
		default:
			l, err := p.layer(w.Parallelism == ParallelismHybridCustomized, f)
			if err != nil {
				return nil, err
			}
			w.Layers = append(w.Layers, l)
			lastLayerLine = p.line
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d bytes; a workload line is a few dozen", name, p.line+1, maxAstraLine)
		}
		return nil, fmt.Errorf("%s: read after line %d: %w", name, p.line, err)
	}

	switch {
	case headerLine == 0:
		p.line = 1
		return nil, p.errfField(1, headerFieldParallelism, "", "missing: the file is empty; line 1 must start with a parallelism keyword; known: %s", strings.Join(Parallelisms(), ", "))
	case countLine == 0:
		p.line = headerLine + 1
		return nil, p.errfField(1, countFieldName, "", "missing: the file ends after the parallelism line; line %d must hold the number of layers", p.line)
	case int64(len(w.Layers)) < count:
		p.line = countLine
		found := "no layer lines"
		if len(w.Layers) > 0 {
			found = fmt.Sprintf("only %d layer lines (the last is line %d)", len(w.Layers), lastLayerLine)
		}
		return nil, p.errfField(1, countFieldName, strconv.FormatInt(count, 10),
			"declares %d layers but the file has %s", count, found)
	}

	if err := w.Validate(); err != nil {
		// The parser checks everything Validate does; this is a backstop.
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// Every reader of a file (the comparator, sweeps, figures) gets the
	// same shapes, so a file runs the same wherever it is given.
	if _, err := MatchShapes(w); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return w, nil
}

// astraParser carries the position for error messages.
type astraParser struct {
	file string
	line int
}

// errf returns a ParseError at the current line for layer field field (0
// for the whole line).
func (p *astraParser) errf(field int, value, format string, args ...any) *ParseError {
	name := ""
	if field > 0 && field < len(layerFieldNames) {
		name = layerFieldNames[field]
	}
	return p.errfField(field, name, value, format, args...)
}

// errfField is errf with an explicit field name (for the header lines).
func (p *astraParser) errfField(field int, fieldName, value, format string, args ...any) *ParseError {
	return &ParseError{File: p.file, Line: p.line, Field: field, FieldName: fieldName, Value: value, Msg: fmt.Sprintf(format, args...)}
}

// header reads the parallelism line.
func (p *astraParser) header(w *Workload, f []string) error {
	kw := f[0]
	if !slices.Contains(Parallelisms(), kw) {
		msg := "unknown parallelism; known: " + strings.Join(Parallelisms(), ", ")
		for _, k := range Parallelisms() {
			if strings.EqualFold(k, kw) {
				msg = fmt.Sprintf("unknown parallelism (keywords are upper case: did you mean %s?); known: %s", k, strings.Join(Parallelisms(), ", "))
			}
		}
		return p.errfField(1, headerFieldParallelism, kw, "%s", msg)
	}
	w.Parallelism = kw
	if len(f) > 1 {
		w.ParallelismArgs = slices.Clone(f[1:])
	}
	if kw == ParallelismHybridDLRM {
		if len(f) < 2 {
			return p.errfField(2, headerFieldLastBottom, "", "missing: %s needs the index of the last bottom-MLP layer (e.g. %q)", kw, kw+" 4")
		}
		if _, err := units.ParseInt(f[1]); err != nil {
			pe := p.errfField(2, headerFieldLastBottom, f[1], "not a whole number: %v; %s needs the index of the last bottom-MLP layer", err, kw)
			pe.Err = err
			return pe
		}
	}
	return nil
}

// checkDLRM checks a HYBRID_DLRM header's layer index against the declared
// layer count, reporting at the header line.
func (p *astraParser) checkDLRM(w *Workload, headerLine int, count int64) error {
	if w.Parallelism != ParallelismHybridDLRM {
		return nil
	}
	k, _ := units.ParseInt(w.ParallelismArgs[0]) // checked by header
	if k < 0 || k > count-2 {
		pe := &ParseError{File: p.file, Line: headerLine, Field: 2, FieldName: headerFieldLastBottom, Value: w.ParallelismArgs[0],
			Msg: fmt.Sprintf("out of range: with %d layers (line %d) it must be in 0..%d, so that a top-MLP layer follows it", count, p.line, count-2)}
		return pe
	}
	return nil
}

// maxAstraLine bounds a line of a workload file.
const maxAstraLine = 1 << 20

// MaxCommBytes bounds a collective's size in a workload file, as sizes
// on the command line are (units.MaxSize: 1 PiB).
const MaxCommBytes = units.MaxSize

// count reads the layer-count line.
func (p *astraParser) count(f []string) (int64, error) {
	n, err := units.ParseInt(f[0])
	if err != nil {
		pe := p.errfField(1, countFieldName, f[0], "not a whole number of layers: %v", err)
		pe.Err = err
		return 0, pe
	}
	if n < 1 {
		return 0, p.errfField(1, countFieldName, f[0], "must be at least 1")
	}
	if n > MaxLayers {
		return 0, p.errfField(1, countFieldName, f[0], "more than %d layers; a training step's collectives and chunks take tens of KB per layer, so acemu takes at most %d", MaxLayers, MaxLayers)
	}
	if len(f) > 1 {
		return 0, p.errfField(2, "extra", f[1], "unexpected: the layer-count line holds only the number of layers")
	}
	return n, nil
}

// layer reads one layer line.
func (p *astraParser) layer(customized bool, f []string) (Layer, error) {
	want := fieldUpdate
	if customized {
		want = fieldLayerParallelism
	}
	if len(f) < want {
		return Layer{}, p.errf(len(f)+1, "", "missing: layer %q has %d fields, want %d", f[0], len(f), want)
	}
	if len(f) > want {
		msg := fmt.Sprintf("unexpected: layer %q has %d fields, want %d", f[0], len(f), want)
		if !customized && len(f) == fieldLayerParallelism {
			msg += fmt.Sprintf(" (a 13th field, the layer's parallelism, is for %s workloads only)", ParallelismHybridCustomized)
		}
		return Layer{}, p.errf(want+1, f[want], "%s", msg)
	}

	l := Layer{Name: f[fieldName-1]}
	if _, err := units.ParseInt(f[fieldReserved-1]); err != nil {
		pe := p.errf(fieldReserved, f[fieldReserved-1], "not a whole number: %v; the reserved field holds -1", err)
		pe.Err = err
		return Layer{}, pe
	}
	var err error
	passes := []struct {
		work                  *int64
		comm                  *Comm
		compute, ctype, csize int
	}{
		{&l.Fwd.Cycles, &l.FwdComm, fieldFwdCompute, fieldFwdCommType, fieldFwdCommSize},
		{&l.InGrad.Cycles, &l.InGradComm, fieldIGCompute, fieldIGCommType, fieldIGCommSize},
		{&l.WtGrad.Cycles, &l.WtGradComm, fieldWGCompute, fieldWGCommType, fieldWGCommSize},
	}
	for _, ps := range passes {
		if *ps.work, err = p.number(f, ps.compute, "cycles (ns)"); err != nil {
			return Layer{}, err
		}
		ct, cerr := ParseCommType(f[ps.ctype-1])
		if cerr != nil {
			pe := p.errf(ps.ctype, f[ps.ctype-1], "%s", unknownCommType(f[ps.ctype-1]))
			pe.Err = cerr
			return Layer{}, pe
		}
		ps.comm.Type = ct
		if ps.comm.Bytes, err = p.number(f, ps.csize, "bytes"); err != nil {
			return Layer{}, err
		}
		if ct == CommNone && ps.comm.Bytes != 0 {
			return Layer{}, p.errf(ps.csize, f[ps.csize-1], "a pass whose comm type (field %d) is NONE must have size 0", ps.ctype)
		}
		if ct != CommNone && ps.comm.Bytes == 0 {
			return Layer{}, p.errf(ps.csize, f[ps.csize-1], "a %s of 0 bytes: give its size, or NONE (field %d) for no collective", ct, ps.ctype)
		}
		if ps.comm.Bytes > MaxCommBytes {
			return Layer{}, p.errf(ps.csize, f[ps.csize-1], "more than %d bytes (1 PiB), beyond any collective acemu can run", int64(MaxCommBytes))
		}
	}
	if l.UpdateCycles, err = p.number(f, fieldUpdate, "cycles (ns)"); err != nil {
		return Layer{}, err
	}
	if customized {
		lp := f[fieldLayerParallelism-1]
		if !slices.Contains(LayerParallelisms(), lp) {
			return Layer{}, p.errf(fieldLayerParallelism, lp, "unknown layer parallelism; known: %s", strings.Join(LayerParallelisms(), ", "))
		}
		l.Parallelism = lp
	}
	return l, nil
}

// number reads field i of f as a count of unit that must be 0 or more.
func (p *astraParser) number(f []string, i int, unit string) (int64, error) {
	s := f[i-1]
	v, err := units.ParseInt(s)
	if err != nil {
		msg := "not a whole number of " + unit + ": " + err.Error()
		if errors.Is(err, strconv.ErrRange) {
			msg = "not a whole number of " + unit + " (out of the 64-bit range)"
		}
		pe := p.errf(i, s, "%s", msg)
		pe.Err = err
		return 0, pe
	}
	if v < 0 {
		return 0, p.errf(i, s, "negative; %s must be 0 or more", unit)
	}
	return v, nil
}
