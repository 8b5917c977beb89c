-- Wireshark dissector for acemu packet captures (acemu collective --pcap):
-- one record per packet crossing a link, under the user link type 147
-- (DLT_USER0). The header layout is in docs/packet-capture.md.
--
--   tshark -X lua_script:docs/acemu.lua -r run.pcap
--   wireshark -X lua_script:docs/acemu.lua run.pcap
local acemu = Proto("acemu", "acemu simulated packet")

local f = acemu.fields
f.magic = ProtoField.uint16("acemu.magic", "Magic", base.HEX)
f.version = ProtoField.uint8("acemu.version", "Version")
f.substep = ProtoField.uint8("acemu.substep", "Sent by sub-step", base.DEC, { [0] = "none", [1] = "send", [2] = "forward" })
f.link = ProtoField.uint32("acemu.link", "Link")
f.from = ProtoField.uint32("acemu.from", "Hop from NPU")
f.to = ProtoField.uint32("acemu.to", "Hop to NPU")
f.src = ProtoField.uint32("acemu.src", "Source NPU")
f.dst = ProtoField.uint32("acemu.dst", "Destination NPU")
f.coll = ProtoField.uint32("acemu.coll", "Collective")
f.chunk = ProtoField.uint32("acemu.chunk", "Chunk")
f.phase = ProtoField.uint16("acemu.phase", "Phase (from 1)")
f.message = ProtoField.uint32("acemu.message", "Message")
f.packet = ProtoField.uint32("acemu.packet", "Packet in message")
f.bytes = ProtoField.uint32("acemu.bytes", "Payload bytes")
f.cycle = ProtoField.uint64("acemu.cycle", "Start cycle")
f.endcycle = ProtoField.uint64("acemu.end", "Serialisation end cycle")

function acemu.dissector(buf, pinfo, tree)
	if buf:len() < 64 or buf(0, 2):uint() ~= 0x4143 then
		return 0
	end
	pinfo.cols.protocol = "acemu"
	local t = tree:add(acemu, buf(0, 64))
	t:add(f.magic, buf(0, 2))
	t:add(f.version, buf(2, 1))
	t:add(f.substep, buf(3, 1))
	t:add(f.link, buf(4, 4))
	t:add(f.from, buf(8, 4))
	t:add(f.to, buf(12, 4))
	t:add(f.src, buf(16, 4))
	t:add(f.dst, buf(20, 4))
	t:add(f.coll, buf(24, 4))
	t:add(f.chunk, buf(28, 4))
	t:add(f.phase, buf(32, 2))
	t:add(f.message, buf(36, 4))
	t:add(f.packet, buf(40, 4))
	t:add(f.bytes, buf(44, 4))
	t:add(f.cycle, buf(48, 8))
	t:add(f.endcycle, buf(56, 8))
	pinfo.cols.src = "NPU " .. buf(8, 4):uint()
	pinfo.cols.dst = "NPU " .. buf(12, 4):uint()
	pinfo.cols.info = string.format("link %d: %d → %d, chunk %d phase %d message %d packet %d, %d B",
		buf(4, 4):uint(), buf(16, 4):uint(), buf(20, 4):uint(), buf(28, 4):uint(), buf(32, 2):uint(),
		buf(36, 4):uint(), buf(40, 4):uint(), buf(44, 4):uint())
	return 64
end

DissectorTable.get("wtap_encap"):add(wtap.USER0, acemu)
