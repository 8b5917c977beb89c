// Package train is the emulator's training loop (the ACE paper, Section V;
// docs/training-loop.md): it runs a workload's layers for a number of
// iterations on the event kernel, issuing each pass's collective through a
// Comm and waiting where the schedule needs one finished, and reports the
// paper's metrics, total compute and exposed communication (the cycles the
// loop waits for collectives), per iteration and in all.
//
// Under data parallelism and weak scaling every NPU runs the same
// schedule on the same amount of data, so one loop stands for all of them:
// a collective is issued once, runs on every NPU, and counts as done when
// it is done on every NPU.
//
// Per iteration, the forward pass goes from layer 0 to the last: before a
// layer's forward compute the loop waits for that layer's weight-gradient
// collective from the previous iteration, runs its weight update, then
// computes; back-propagation goes from the last layer to layer 0, computing
// each layer's weight gradient, issuing its all-reduce without waiting
// (unless the system does not overlap, in which case one all-reduce of
// every gradient is issued at the end of back-propagation and waited for),
// then the input gradient. DLRM's embedding all-to-alls follow the paper's
// special rules. docs/training-loop.md gives every rule with its source.
//
// That is the default schedule, ScheduleLayerwise. Config.Schedule can
// instead issue one all-reduce of every weight gradient when back-prop
// ends, which the next forward pass waits for (ScheduleOneShot), or chain
// each layer's update and forward compute to its gradients being final,
// as a ProgressComm reports them (ScheduleOneShotChained: the C-Cube
// paper's gradient queuing, its Layer-Chunk Table in bytes, LayerEnds).
//
// Compute times come from the workload: roofline work (FLOPs and bytes, the
// built-in workloads) through npu.Compute.KernelCycles on the resources
// left to compute, or ASTRA-sim 1.0 times scaled by the rule of
// docs/astrasim-workloads.md.
package train
