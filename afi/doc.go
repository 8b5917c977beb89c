// Package afi is the accelerator fabric interface's command side: the
// NPU–AFI command interface of the ACE paper's Section IV-G. The NPU issues
// a collective (type, size) and gets a handle; the engine behind the AFI
// (ACE, or the ideal or baseline endpoint) runs it and raises the
// completion interrupt. The AFI's data path (TX/RX DMA, port buffers,
// packetisation) is modelled where it runs: in package ace for ACE mode, in
// package npu for the baseline's normal mode, and in package fabric for the
// links and their buffers.
package afi
