package fabric

// PacketBytes is the packet (and flit) size of the ACE platform, Table V.
const PacketBytes = 256

// Message is a unit the endpoints exchange: a run of packets from Src to Dst.
// The tags identify the message to its receiver (like MPI tags); the fabric
// never reads them.
type Message struct {
	Src, Dst int32 // NPU ids
	Bytes    int64 // payload bytes
	Packets  int32 // number of packets: ceil(Bytes/PacketBytes)
	// Tags for the receiving endpoint: collective, chunk, phase, operation.
	Coll, Chunk, Phase, Op int32
	// Sub is the sending endpoint's sub-step that sends the message, where
	// it has sub-steps (ACE): SubNone, SubSend or SubForward. For traces.
	Sub uint8
	// Values carries the message's data when a run checks data, one value
	// per payload byte (see verify.InitialValue); nil otherwise.
	Values []int64
}

// NewMessage returns a message of n bytes from src to dst, cut into packets
// of at most PacketBytes.
func NewMessage(src, dst int, n int64) *Message {
	m := MakeMessage(src, dst, n)
	return &m
}

// MakeMessage is NewMessage as a value, for a sender that keeps its
// messages inside its own records (one allocation, not two).
func MakeMessage(src, dst int, n int64) Message {
	return Message{Src: int32(src), Dst: int32(dst), Bytes: n, Packets: int32(PacketCount(n))}
}

// The sub-steps that send a message (Message.Sub).
const (
	SubNone    uint8 = iota // the endpoint has no sub-steps (ideal, baseline)
	SubSend                 // ACE reads the data from its SRAM into the port
	SubForward              // ACE passes on what a receive brings, as it comes
)

// PacketCount returns how many packets carry n bytes (at least one).
func PacketCount(n int64) int64 {
	if n <= 0 {
		return 1
	}
	return (n + PacketBytes - 1) / PacketBytes
}

// Packet is the unit the network carries: up to PacketBytes of a message.
type Packet struct {
	Msg   *Message
	Index int32 // position in the message, from 0
	Bytes int32 // payload bytes in this packet
	// Shift is, on a folded network (NewFoldedNetwork), the displacement
	// the packet has travelled since it left its source, which the
	// receiving endpoint adds to as it takes the packet in: the packet's
	// message addresses NPUs in the frame of its source, and the NPU the
	// packet has reached stands for all of them. Zero on a full network.
	Shift int32
}

// PacketOf returns packet i of m.
func PacketOf(m *Message, i int32) Packet {
	return Packet{Msg: m, Index: i, Bytes: PayloadOf(m.Bytes, i)}
}

// PayloadOf returns the payload bytes of packet i of a message of n bytes.
func PayloadOf(n int64, i int32) int32 {
	return int32(min(n-int64(i)*PacketBytes, PacketBytes))
}

// Last reports whether p is the last packet of its message.
func (p Packet) Last() bool { return p.Index == p.Msg.Packets-1 }
