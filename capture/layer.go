package capture

import (
	"encoding/binary"
	"fmt"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// LayerType is the gopacket layer of a capture's header (Header).
var LayerType = gopacket.RegisterLayerType(1245, gopacket.LayerTypeMetadata{Name: "ACEMU", Decoder: gopacket.DecodeFunc(decode)})

func init() {
	// Packets of a capture decode by its link type, so that
	// gopacket.NewPacketSource(reader, reader.LinkType()) reads them.
	layers.LinkTypeMetadata[LinkType] = layers.EnumMetadata{DecodeWith: LayerType, Name: "ACEMU"}
}

// LayerType returns the header's layer type.
func (h *Header) LayerType() gopacket.LayerType { return LayerType }

// LayerContents returns the header's bytes.
func (h *Header) LayerContents() []byte { return h.contents }

// LayerPayload returns what follows the header: nothing in a capture
// (the payload is not captured; the record's length counts it).
func (h *Header) LayerPayload() []byte { return h.payload }

// CanDecode returns the header's layer type.
func (h *Header) CanDecode() gopacket.LayerClass { return LayerType }

// NextLayerType is the payload's: none is decoded.
func (h *Header) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes reads a header from data.
func (h *Header) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < HeaderLen {
		df.SetTruncated()
		return fmt.Errorf("acemu packet header: %d bytes, want %d", len(data), HeaderLen)
	}
	be := binary.BigEndian
	if m := be.Uint16(data[0:]); m != magic {
		return fmt.Errorf("acemu packet header: magic %#04x, want %#04x: not an acemu capture", m, magic)
	}
	if data[2] != Version {
		return fmt.Errorf("acemu packet header: version %d, this reader knows %d", data[2], Version)
	}
	*h = Header{
		Version: data[2], SubStep: data[3],
		Link: be.Uint32(data[4:]), From: be.Uint32(data[8:]), To: be.Uint32(data[12:]),
		Src: be.Uint32(data[16:]), Dst: be.Uint32(data[20:]),
		Collective: be.Uint32(data[24:]), Chunk: be.Uint32(data[28:]), Phase: be.Uint16(data[32:]),
		Message: be.Uint32(data[36:]), Packet: be.Uint32(data[40:]), Bytes: be.Uint32(data[44:]),
		Cycle: be.Uint64(data[48:]), End: be.Uint64(data[56:]),
		contents: data[:HeaderLen], payload: data[HeaderLen:],
	}
	return nil
}

func decode(data []byte, p gopacket.PacketBuilder) error {
	h := &Header{}
	if err := h.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(h)
	return p.NextDecoder(h.NextLayerType())
}
