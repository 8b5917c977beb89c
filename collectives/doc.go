// Package collectives expresses collective algorithms as dataflow: for one
// chunk, one phase and one NPU, an ordered Program of sends and receives with
// explicit dependences, over byte ranges of the phase's view of the chunk.
//
// The package is pure: no time, no hardware. Every endpoint model (ideal,
// ACE, SM-driven baseline) executes the same programs, so a comparison
// between them is the same work on different hardware by construction.
package collectives
