// Package verify holds the references the emulator is checked against:
// a functional executor that runs collective programs on real values with no
// notion of time, the invariants every program set must keep (every send
// meets a receive, nothing is reduced twice, nothing is missed), and
// analytical byte-count and bandwidth-bound models written from the paper's
// formulas, independently of the simulator.
package verify
