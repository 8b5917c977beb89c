// Package afi will hold the accelerator fabric interface: the NPU–AFI
// command queue, TX/RX DMA, port buffers, packetisation and interrupts. It
// has no code yet; links and their port buffers live in package fabric.
package afi
