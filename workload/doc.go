// Package workload holds the emulator's model of a training workload: an
// ordered list of layers, each with the work of its three passes (forward,
// input gradient, weight gradient), the collective each pass issues, and a
// weight-update delay (the ACE paper, Section V; docs/training-loop.md).
//
// The model does not depend on a file format. A pass's work is given one of
// two ways (see Work):
//
//   - as FLOPs and memory bytes, which the training loop turns into cycles by
//     the NPU's roofline on the resources left to compute (npu.Compute); the
//     emulator's built-in workloads do this;
//   - as a time in cycles of a stated clock (Workload.CycleHz), taken as
//     given; ASTRA-sim 1.0 workload files do this, in nanoseconds of
//     full-NPU time.
//
// ParseAstraSim and LoadAstraSim read ASTRA-sim 1.0 text workload files
// (docs/astrasim-workloads.md)
// unchanged, CRLF line ends and trailing tabs included. Malformed input is
// reported as a *ParseError naming the file, the line and the field. The
// parser converts nothing: the files' nanoseconds stay in Work.Cycles with
// CycleHz = 1 GHz, and the rule that scales them to the emulator's 1245 MHz
// NPU and to the resources left to compute belongs to the training loop
// (a proposed rule is in docs/astrasim-workloads.md).
package workload
