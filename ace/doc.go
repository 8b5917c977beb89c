// Package ace will hold the ACE engine of the paper's Section IV: SRAM
// partitions, ALUs, programmable FSMs with chunk queues. It has no code yet;
// the collectives run on the ideal endpoint (package npu) until it lands.
package ace
