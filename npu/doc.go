// Package npu models the accelerator side of a node and the endpoints that
// run collectives on it: the ideal endpoint of the paper's Table VI (a
// received message is processed in one cycle at no memory cost, so the
// network alone limits a collective) and the SM-driven baseline endpoint
// (communication SMs and memory bandwidth pay for every send, receive and
// reduction; docs/baseline-model.md), plus the roofline compute model of
// the NPU.
//
// One executor runs the collectives package's programs chunk by chunk for
// both endpoints: a chunk enters a phase on an NPU when it has finished the
// previous phase there (no global barrier), its sends go to the port's
// queue as soon as their dependences are met, and its receives complete
// when their message has arrived and been processed. The baseline adds the
// costs (baseline.go); the dataflow is the same.
package npu
