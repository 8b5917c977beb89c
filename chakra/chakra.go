// Package chakra reads and writes MLCommons Chakra execution traces (ET),
// the workload format of ASTRA-sim 2.x: one file per rank, conventionally
// <prefix>.<rank>.et, each a stream of messages of the schema et_def.proto
// (package ChakraProtoMsg), every message preceded by its length as a
// varint: a GlobalMetadata first, then Node messages.
//
// Only the subset acemu runs is decoded (docs/chakra.md): the metadata's
// version and attributes, and a node's id, name, type, control and data
// dependences, start time, duration and attributes. Fields outside it
// (inputs, outputs, attribute values of list kinds other than bool_list)
// are skipped. The package knows the format only; running a trace is
// package chakra/runner's business.
package chakra

import (
	"fmt"
	"strings"
)

// NodeType is a node's kind (et_def.proto's NodeType).
type NodeType int32

// The node types of the schema.
const (
	InvalidNode  NodeType = 0
	MetadataNode NodeType = 1
	MemLoadNode  NodeType = 2
	MemStoreNode NodeType = 3
	CompNode     NodeType = 4
	CommSendNode NodeType = 5
	CommRecvNode NodeType = 6
	CommCollNode NodeType = 7
)

var nodeTypeNames = []string{"INVALID_NODE", "METADATA_NODE", "MEM_LOAD_NODE", "MEM_STORE_NODE", "COMP_NODE", "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE"}

// String is the schema's name of the type.
func (t NodeType) String() string {
	if t >= 0 && int(t) < len(nodeTypeNames) {
		return nodeTypeNames[t]
	}
	return fmt.Sprintf("node type %d", int32(t))
}

// CollectiveType is a COMM_COLL_NODE's comm_type attribute
// (et_def.proto's CollectiveCommType).
type CollectiveType int64

// The collective types of the schema.
const (
	AllReduce          CollectiveType = 0
	Reduce             CollectiveType = 1
	AllGather          CollectiveType = 2
	Gather             CollectiveType = 3
	Scatter            CollectiveType = 4
	Broadcast          CollectiveType = 5
	AllToAll           CollectiveType = 6
	ReduceScatter      CollectiveType = 7
	ReduceScatterBlock CollectiveType = 8
	Barrier            CollectiveType = 9
)

var collNames = []string{"ALL_REDUCE", "REDUCE", "ALL_GATHER", "GATHER", "SCATTER", "BROADCAST", "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"}

// String is the schema's name of the collective.
func (c CollectiveType) String() string {
	if c >= 0 && int(c) < len(collNames) {
		return collNames[c]
	}
	return fmt.Sprintf("collective type %d", int64(c))
}

// CollectiveNames lists the schema's collective names in the order of
// their values.
func CollectiveNames() []string { return append([]string(nil), collNames...) }

// ParseCollective reads a collective's schema name (ALL_REDUCE, …),
// case-insensitively.
func ParseCollective(s string) (CollectiveType, error) {
	for i, n := range collNames {
		if strings.EqualFold(s, n) {
			return CollectiveType(i), nil
		}
	}
	for i, n := range collNames {
		if strings.EqualFold(strings.ReplaceAll(s, "_", ""), strings.ReplaceAll(n, "_", "")) {
			return 0, fmt.Errorf("collective %q: did you mean %s? known: %s", s, collNames[i], strings.Join(collNames, ", "))
		}
	}
	return 0, fmt.Errorf("collective %q: known: %s", s, strings.Join(collNames, ", "))
}

// ValueKind is which of an attribute's values is set.
type ValueKind uint8

// The attribute values the package keeps: the integer kinds (int32,
// int64, uint32, uint64, sint32, sint64, fixed32, fixed64, sfixed32,
// sfixed64) as Int, bool, string, double and float as Float, and
// bool_list; any other (lists of other kinds, bytes) is Other, its value
// skipped.
const (
	NoValue ValueKind = iota
	IntValue
	UintValue
	BoolValue
	StringValue
	FloatValue
	BoolListValue
	OtherValue
)

// Attr is an AttributeProto: a name and one value.
type Attr struct {
	Name string
	Kind ValueKind
	// Field is the schema's field number of the value (7 int32_val, 9
	// int64_val, 13 uint64_val, …): it says which kind was written.
	Field int32
	Int   int64  // IntValue
	Uint  uint64 // UintValue (uint32_val, uint64_val, fixed32_val, fixed64_val)
	Bool  bool
	Str   string
	Float float64
	Bools []bool
}

// Metadata is the GlobalMetadata message a trace starts with.
type Metadata struct {
	Version string
	Attrs   []Attr
}

// Node is one Node message.
type Node struct {
	ID                 uint64
	Name               string
	Type               NodeType
	CtrlDeps, DataDeps []uint64
	StartMicros        uint64
	DurationMicros     uint64
	Attrs              []Attr
}

// Trace is one rank's file: its metadata and its nodes in file order.
type Trace struct {
	// Name is the file the trace was read from (for messages).
	Name     string
	Metadata Metadata
	Nodes    []Node
}

// Attr returns the node's attribute called name, if any (the first of
// that name).
func (n *Node) Attr(name string) (Attr, bool) {
	for _, a := range n.Attrs {
		if a.Name == name {
			return a, true
		}
	}
	return Attr{}, false
}

// Deps returns the node's data and control dependences together, data
// first (the runner waits for both alike, as ASTRA-sim 2.x does).
func (n *Node) Deps() []uint64 {
	out := make([]uint64, 0, len(n.DataDeps)+len(n.CtrlDeps))
	out = append(out, n.DataDeps...)
	return append(out, n.CtrlDeps...)
}

// Integer returns an integer attribute's value as a uint64: ok false
// when the node has no such attribute; an error when it is of another
// kind or negative.
func (n *Node) Integer(name string) (v uint64, ok bool, err error) {
	a, ok := n.Attr(name)
	if !ok {
		return 0, false, nil
	}
	switch a.Kind {
	case UintValue:
		return a.Uint, true, nil
	case IntValue:
		if a.Int < 0 {
			return 0, true, fmt.Errorf("attribute %s is %d: must not be negative", name, a.Int)
		}
		return uint64(a.Int), true, nil
	}
	return 0, true, fmt.Errorf("attribute %s holds a %s, not a whole number; write it as int64_val or uint64_val", name, a.Kind)
}

// String names the kind as the schema's value fields do.
func (k ValueKind) String() string {
	return [...]string{"no value", "signed integer", "unsigned integer", "bool", "string", "floating-point number", "bool_list", "value acemu does not read"}[k]
}

// Text returns a string attribute's value; ok false when absent.
func (n *Node) Text(name string) (v string, ok bool, err error) {
	a, ok := n.Attr(name)
	if !ok {
		return "", false, nil
	}
	if a.Kind != StringValue {
		return "", true, fmt.Errorf("attribute %s holds a %s, not a string; write it as string_val", name, a.Kind)
	}
	return a.Str, true, nil
}

// Flag returns a bool attribute's value; ok false when absent.
func (n *Node) Flag(name string) (v bool, ok bool, err error) {
	a, ok := n.Attr(name)
	if !ok {
		return false, false, nil
	}
	if a.Kind != BoolValue {
		return false, true, fmt.Errorf("attribute %s holds a %s, not a bool; write it as bool_val", name, a.Kind)
	}
	return a.Bool, true, nil
}

// IntAttr is an int64_val attribute.
func IntAttr(name string, v int64) Attr {
	return Attr{Name: name, Kind: IntValue, Field: fInt64, Int: v}
}

// UintAttr is a uint64_val attribute.
func UintAttr(name string, v uint64) Attr {
	return Attr{Name: name, Kind: UintValue, Field: fUint64, Uint: v}
}

// BoolAttr is a bool_val attribute.
func BoolAttr(name string, v bool) Attr {
	return Attr{Name: name, Kind: BoolValue, Field: fBool, Bool: v}
}

// StringAttr is a string_val attribute.
func StringAttr(name, v string) Attr {
	return Attr{Name: name, Kind: StringValue, Field: fString, Str: v}
}
