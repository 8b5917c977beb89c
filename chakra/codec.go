package chakra

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"google.golang.org/protobuf/encoding/protowire"
)

// MaxMessageBytes bounds one message of a trace: 64 MiB. A length prefix
// beyond it is refused before anything is read for it, and a message is
// read only as far as the file goes, so a corrupt prefix never makes the
// reader allocate what it claims (docs/chakra.md, "Errors"). [choice] A
// node of the subset acemu reads is some tens of bytes; ASTRA-sim's
// converted PyTorch traces keep nodes of kilobytes (their inputs and
// outputs): 64 MiB leaves room for any node and the metadata's copy of
// a converted text file.
const MaxMessageBytes = 64 << 20

// MaxNodes bounds the nodes of a trace set, all ranks together (and so
// of one rank's file): 10^6, the training loop's bound on layers ×
// iterations (train.MaxLayerIterations) for the same reason: what a run
// keeps grows with it (docs/bad-input.md, "Limits").
const MaxNodes = 1_000_000

// Field numbers of et_def.proto.
const (
	// GlobalMetadata
	fMetaVersion = 1
	fMetaAttr    = 2
	// Node
	fID       = 1
	fName     = 2
	fType     = 3
	fCtrlDeps = 4
	fDataDeps = 5
	fStart    = 6
	fDuration = 7
	fAttr     = 10
	// AttributeProto
	fAttrName = 1
	fDouble   = 3
	fFloat    = 5
	fInt32    = 7
	fInt64    = 9
	fUint32   = 11
	fUint64   = 13
	fSint32   = 15
	fSint64   = 17
	fFixed32  = 19
	fFixed64  = 21
	fSfixed32 = 23
	fSfixed64 = 25
	fBool     = 27
	fBoolList = 28
	fString   = 29
)

// fieldNames names a Node's fields for messages.
var fieldNames = map[protowire.Number]string{fID: "id", fName: "name", fType: "type", fCtrlDeps: "ctrl_deps", fDataDeps: "data_deps",
	fStart: "start_time_micros", fDuration: "duration_micros", 8: "inputs", 9: "outputs", fAttr: "attr"}

// Load reads the trace file at path.
func Load(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a trace from r; name is the file's name for messages. Every
// error names the file, the message (its index from 0 and byte offset),
// the node (its id, where read) and the field.
func Read(r io.Reader, name string) (*Trace, error) {
	br := bufio.NewReader(r)
	t := &Trace{Name: name}
	var off int64
	for i := 0; ; i++ {
		what := "the GlobalMetadata (message 0)"
		if i > 0 {
			what = fmt.Sprintf("node message %d", i)
		}
		b, n, err := readMessage(br, off)
		if err == io.EOF {
			if i == 0 {
				return nil, fmt.Errorf("%s: empty: a Chakra trace starts with a GlobalMetadata message; is this an execution trace (<prefix>.<rank>.et)?", name)
			}
			return t, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s at byte %d: %w", name, what, off, err)
		}
		if i == 0 {
			if t.Metadata, err = decodeMetadata(b); err != nil {
				return nil, fmt.Errorf("%s: %s at byte %d: %w", name, what, off, err)
			}
		} else {
			if len(t.Nodes) == MaxNodes {
				return nil, fmt.Errorf("%s: more than %d nodes (docs/chakra.md, \"Errors\"): split the trace or run fewer iterations of it", name, MaxNodes)
			}
			nd, err := decodeNode(b)
			if err != nil {
				return nil, fmt.Errorf("%s: %s at byte %d: %w", name, what, off, err)
			}
			t.Nodes = append(t.Nodes, nd)
		}
		off += int64(n)
	}
}

// readMessage reads one length-delimited message: its bytes and how many
// bytes it took with its prefix. io.EOF at a clean end.
func readMessage(br *bufio.Reader, off int64) ([]byte, int, error) {
	var l uint64
	var k int
	for shift := uint(0); ; shift += 7 {
		c, err := br.ReadByte()
		if err == io.EOF && k == 0 {
			return nil, 0, io.EOF
		}
		if err == io.EOF {
			return nil, 0, errors.New("the file ends inside a length prefix (truncated)")
		}
		if err != nil {
			return nil, 0, err
		}
		k++
		if k > 10 {
			return nil, 0, errors.New("a length prefix of more than 10 bytes: not a varint (is this a Chakra .et file?)")
		}
		l |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	if l > MaxMessageBytes {
		return nil, 0, fmt.Errorf("a length prefix of %d bytes, more than the %d a message may have (docs/chakra.md, \"Errors\"): the file is corrupt or not a Chakra trace", l, MaxMessageBytes)
	}
	var buf bytes.Buffer // grows with what is there, not with what the prefix claims
	got, err := io.CopyN(&buf, br, int64(l))
	if err == io.EOF {
		return nil, 0, fmt.Errorf("the length prefix says %d bytes but the file ends after %d (truncated)", l, got)
	}
	if err != nil {
		return nil, 0, err
	}
	return buf.Bytes(), k + int(l), nil
}

// field is one field of a message: its number, wire type and, for
// varints and fixed values, its value; for bytes, its bytes.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

// eachField calls f with each field of b in order.
func eachField(b []byte, names map[protowire.Number]string, f func(field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("a field's tag: %w", protowire.ParseError(n))
		}
		b = b[n:]
		fd := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			fd.v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			fd.v, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			fd.v = uint64(v)
		case protowire.BytesType:
			fd.b, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("field %s: %w", fieldName(names, num), protowire.ParseError(n))
		}
		b = b[n:]
		if err := f(fd); err != nil {
			return err
		}
	}
	return nil
}

func fieldName(names map[protowire.Number]string, num protowire.Number) string {
	if s, ok := names[num]; ok {
		return fmt.Sprintf("%d (%s)", num, s)
	}
	return fmt.Sprint(num)
}

// wantType refuses a field of the wrong wire type.
func wantType(fd field, typ protowire.Type, what string) error {
	if fd.typ != typ {
		return fmt.Errorf("field %s: wire type %d, want %d (%s)", what, fd.typ, typ, wireName(typ))
	}
	return nil
}

func wireName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "varint"
	case protowire.BytesType:
		return "length-delimited"
	case protowire.Fixed32Type:
		return "fixed32"
	case protowire.Fixed64Type:
		return "fixed64"
	}
	return "group"
}

func decodeMetadata(b []byte) (Metadata, error) {
	var m Metadata
	err := eachField(b, nil, func(fd field) error {
		switch fd.num {
		case fMetaVersion:
			if err := wantType(fd, protowire.BytesType, "1 (version)"); err != nil {
				return err
			}
			m.Version = string(fd.b)
		case fMetaAttr:
			return addAttr(fd, "2 (attr)", &m.Attrs)
		}
		return nil
	})
	return m, err
}

func decodeNode(b []byte) (Node, error) {
	var n Node
	err := eachField(b, fieldNames, func(fd field) error {
		what := fieldName(fieldNames, fd.num)
		switch fd.num {
		case fID, fType, fStart, fDuration:
			if err := wantType(fd, protowire.VarintType, what); err != nil {
				return err
			}
			switch fd.num {
			case fID:
				n.ID = fd.v
			case fType:
				n.Type = NodeType(int32(fd.v))
			case fStart:
				n.StartMicros = fd.v
			default:
				n.DurationMicros = fd.v
			}
		case fName:
			if err := wantType(fd, protowire.BytesType, what); err != nil {
				return err
			}
			n.Name = string(fd.b)
		case fCtrlDeps, fDataDeps:
			deps := &n.DataDeps
			if fd.num == fCtrlDeps {
				deps = &n.CtrlDeps
			}
			switch fd.typ {
			case protowire.VarintType:
				*deps = append(*deps, fd.v)
			case protowire.BytesType: // packed
				for p := fd.b; len(p) > 0; {
					v, k := protowire.ConsumeVarint(p)
					if k < 0 {
						return fmt.Errorf("field %s: packed list: %w", what, protowire.ParseError(k))
					}
					*deps = append(*deps, v)
					p = p[k:]
				}
			default:
				return wantType(fd, protowire.VarintType, what)
			}
		case fAttr:
			return addAttr(fd, what, &n.Attrs)
		}
		return nil
	})
	if err != nil {
		return n, nodeErr(n, err)
	}
	return n, nil
}

// nodeErr names the node in err, as far as it was read.
func nodeErr(n Node, err error) error {
	if n.Name != "" {
		return fmt.Errorf("node %d (%s): %w", n.ID, n.Name, err)
	}
	return fmt.Errorf("node %d: %w", n.ID, err)
}

// addAttr decodes field fd, an attribute (the field named what), onto
// list.
func addAttr(fd field, what string, list *[]Attr) error {
	if err := wantType(fd, protowire.BytesType, what); err != nil {
		return err
	}
	a, err := decodeAttr(fd.b)
	if err != nil {
		return fmt.Errorf("field %s %d: %w", what, len(*list), err)
	}
	*list = append(*list, a)
	return nil
}

func decodeAttr(b []byte) (Attr, error) {
	var a Attr
	err := eachField(b, nil, func(fd field) error {
		if fd.num == fAttrName {
			if err := wantType(fd, protowire.BytesType, "1 (name)"); err != nil {
				return err
			}
			a.Name = string(fd.b)
			return nil
		}
		if fd.num < fDouble || fd.num > 32 {
			return nil // doc_string, or a field of a later schema
		}
		a.Field = int32(fd.num)
		want := protowire.VarintType
		switch fd.num {
		case fDouble, fFixed64, fSfixed64:
			want = protowire.Fixed64Type
		case fFloat, fFixed32, fSfixed32:
			want = protowire.Fixed32Type
		}
		if fd.num%2 == 0 || fd.num == fString || fd.num == 31 { // lists, string, bytes
			want = protowire.BytesType
		}
		if err := wantType(fd, want, fmt.Sprintf("%d of attribute %q", fd.num, a.Name)); err != nil {
			return err
		}
		switch fd.num {
		case fInt32:
			a.Kind, a.Int = IntValue, int64(int32(fd.v))
		case fInt64:
			a.Kind, a.Int = IntValue, int64(fd.v)
		case fSint32, fSint64:
			a.Kind, a.Int = IntValue, protowire.DecodeZigZag(fd.v)
		case fSfixed32:
			a.Kind, a.Int = IntValue, int64(int32(uint32(fd.v)))
		case fSfixed64:
			a.Kind, a.Int = IntValue, int64(fd.v)
		case fUint32, fUint64, fFixed32, fFixed64:
			a.Kind, a.Uint = UintValue, fd.v
		case fBool:
			a.Kind, a.Bool = BoolValue, fd.v != 0
		case fString:
			a.Kind, a.Str = StringValue, string(fd.b)
		case fDouble:
			a.Kind, a.Float = FloatValue, math.Float64frombits(fd.v)
		case fFloat:
			a.Kind, a.Float = FloatValue, float64(math.Float32frombits(uint32(fd.v)))
		case fBoolList:
			a.Kind = BoolListValue
			a.Bools = nil
			if err := eachField(fd.b, nil, func(v field) error {
				if v.num != 1 {
					return nil
				}
				switch v.typ {
				case protowire.VarintType:
					a.Bools = append(a.Bools, v.v != 0)
				case protowire.BytesType:
					for p := v.b; len(p) > 0; {
						x, k := protowire.ConsumeVarint(p)
						if k < 0 {
							return fmt.Errorf("bool_list of attribute %q: %w", a.Name, protowire.ParseError(k))
						}
						a.Bools = append(a.Bools, x != 0)
						p = p[k:]
					}
				}
				return nil
			}); err != nil {
				return err
			}
		default:
			a.Kind = OtherValue
		}
		return nil
	})
	if err != nil && a.Name != "" {
		return a, fmt.Errorf("attribute %q: %w", a.Name, err)
	}
	return a, err
}

// Write writes t to w as a Chakra trace: its metadata, then its nodes,
// each length-delimited, fields in number order and those at their
// default left out, as protobuf writes them. Dependences are written
// packed.
func Write(w io.Writer, t *Trace) error {
	bw := bufio.NewWriter(w)
	put := func(msg []byte) error {
		if _, err := bw.Write(protowire.AppendVarint(nil, uint64(len(msg)))); err != nil {
			return err
		}
		_, err := bw.Write(msg)
		return err
	}
	if err := put(encodeMetadata(t.Metadata)); err != nil {
		return err
	}
	for i := range t.Nodes {
		if err := put(encodeNode(&t.Nodes[i])); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Save writes t to the file at path.
func Save(path string, t *Trace) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, t); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// Fields at their default are left out, as proto3 writes them.

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendAttrs(b []byte, num protowire.Number, attrs []Attr) []byte {
	for _, a := range attrs {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendBytes(b, encodeAttr(a))
	}
	return b
}

func encodeMetadata(m Metadata) []byte {
	return appendAttrs(appendString(nil, fMetaVersion, m.Version), fMetaAttr, m.Attrs)
}

func encodeNode(n *Node) []byte {
	b := appendVarint(nil, fID, n.ID)
	b = appendString(b, fName, n.Name)
	b = appendVarint(b, fType, uint64(int64(n.Type)))
	for _, d := range []struct {
		num  protowire.Number
		deps []uint64
	}{{fCtrlDeps, n.CtrlDeps}, {fDataDeps, n.DataDeps}} {
		if len(d.deps) == 0 {
			continue
		}
		var p []byte
		for _, v := range d.deps {
			p = protowire.AppendVarint(p, v)
		}
		b = protowire.AppendTag(b, d.num, protowire.BytesType)
		b = protowire.AppendBytes(b, p)
	}
	b = appendVarint(b, fStart, n.StartMicros)
	b = appendVarint(b, fDuration, n.DurationMicros)
	return appendAttrs(b, fAttr, n.Attrs)
}

// encodeAttr writes an attribute with its value in the field it was
// given (Attr.Field), or the kind's default field (int64_val,
// uint64_val, bool_val, string_val, double_val, bool_list) when none.
func encodeAttr(a Attr) []byte {
	b := appendString(nil, fAttrName, a.Name)
	num, typ := protowire.Number(a.Field), protowire.VarintType
	var v uint64
	switch a.Kind {
	case IntValue:
		v = uint64(a.Int)
		switch num {
		case fInt32, fInt64:
		case fSint32, fSint64:
			v = protowire.EncodeZigZag(a.Int)
		case fSfixed32:
			typ, v = protowire.Fixed32Type, uint64(uint32(a.Int))
		case fSfixed64:
			typ = protowire.Fixed64Type
		default:
			num = fInt64
		}
	case UintValue:
		v = a.Uint
		switch num {
		case fUint32, fUint64:
		case fFixed32:
			typ, v = protowire.Fixed32Type, uint64(uint32(a.Uint))
		case fFixed64:
			typ = protowire.Fixed64Type
		default:
			num = fUint64
		}
	case BoolValue:
		num, v = fBool, protowire.EncodeBool(a.Bool)
	case FloatValue:
		num, typ, v = fDouble, protowire.Fixed64Type, math.Float64bits(a.Float)
	case StringValue:
		b = protowire.AppendTag(b, fString, protowire.BytesType)
		return protowire.AppendString(b, a.Str)
	case BoolListValue:
		var p []byte
		for _, x := range a.Bools {
			p = protowire.AppendVarint(p, protowire.EncodeBool(x))
		}
		l := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), p)
		b = protowire.AppendTag(b, fBoolList, protowire.BytesType)
		return protowire.AppendBytes(b, l)
	default:
		return b
	}
	b = protowire.AppendTag(b, num, typ)
	switch typ {
	case protowire.Fixed32Type:
		return protowire.AppendFixed32(b, uint32(v))
	case protowire.Fixed64Type:
		return protowire.AppendFixed64(b, v)
	}
	return protowire.AppendVarint(b, v)
}
