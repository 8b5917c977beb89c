// Package ace models ACE, the Accelerator Collectives Engine of the paper's
// Section IV (Fig. 7): SRAM in banks and partitions, ALUs, the AFI's TX and
// RX DMA, per-link port buffers, and programmable FSMs with in-order chunk
// queues, executing the collectives package's programs packet by packet.
// docs/ace-model.md explains every resource and choice.
package ace
