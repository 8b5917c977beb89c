// Package fabric models the network the NPUs talk over: 256 B packets and
// unidirectional point-to-point links with exact serialisation, latency,
// efficiency and credit-based receive buffers, behind a narrow
// endpoint-to-network contract.
//
// The contract (after SST/Merlin): an endpoint sends on an outgoing link
// when the link's transmit buffer has space (Link.Send reports false
// otherwise, and the link calls Endpoint.SpaceAvailable once room frees); the
// link calls Endpoint.PacketArrived on the receiving endpoint when a packet is
// wholly in its receive buffer, and the endpoint takes it with Link.Receive
// when it is ready, which returns the buffer slot's credit to the sender.
//
// Link timing: a packet starts serialising when it heads the transmit buffer,
// the serialiser is free and the sender holds a credit for the receive
// buffer; its last byte leaves after bytes/rate cycles (exact fractions,
// rtl.Serializer); it is wholly received latency cycles later. A credit
// travels back in CreditLatency cycles after the receiver takes the packet.
//
// Switches (Switch, Network.AddSwitch) are network elements between links:
// an input port per arriving link, whose receive buffer is the port's
// FIFO, round-robin arbitration per output, an output port per leaving
// link, whose transmit buffer is the output's queue (docs/switches.md).
package fabric
