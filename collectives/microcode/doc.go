// Package microcode is the program text of ACE's FSMs: an instruction set
// for the dataflow programs of package collectives, a line-oriented text
// form, an assembler (Parse), a disassembler (Write), and Install, which
// checks a listing against a plan and makes the plan run it.
//
// In ACE (ISCA 2021, Section IV, Fig. 7–8) each programmable FSM is
// programmed for one phase of a collective and works through a queue of
// chunks; per chunk it moves data between memory (TX and RX DMA), its SRAM
// partition, the ALUs and the port buffers. The microcode of one NPU for one
// chunk length is a Section: that NPU's Program for every phase, framed by
// the data-movement instructions the hardware needs around them:
//
//	dma-in   phase 1, first: the TX DMA loads the chunk from memory into
//	         phase 1's SRAM partition
//	send     packetise a range of the phase's view into an output port buffer
//	recv     take a message from the network into SRAM, adding it on the ALUs
//	         (reduce) or overwriting (store)
//	next     every phase but the last, last: hand the phase's Out ranges to
//	         the next phase's partition
//	dma-out  last phase, after the ops: the RX DMA writes the result to memory
//	signal   last: raise the chunk-complete interrupt to the NPU
//
// A send that depends on a recv of the same bytes is a forward: the data
// just received (and reduced) goes from SRAM straight back out of a port;
// Write marks such sends with a "; forward" comment.
//
// docs/microcode.md describes the text form, with an example listing, and
// how Install checks user programs.
package microcode
