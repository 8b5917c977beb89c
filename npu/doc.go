// Package npu models the accelerator side of a node and the endpoints that
// run collectives on it. This first version holds the ideal endpoint of the
// paper's Table VI: a received message is processed in one cycle at no
// memory cost, so the network alone limits a collective.
//
// The executor here runs the collectives package's programs chunk by chunk:
// a chunk enters a phase on an NPU when it has finished the previous phase
// there (no global barrier), its sends go to the port's queue as soon as
// their dependences are met, and its receives complete when their message
// has arrived and been processed.
package npu
