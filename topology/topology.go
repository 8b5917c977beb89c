// Package topology is where machines are named and built: a --topo spec
// (a torus LxVxH, dgx1, a switch fabric switch:P0xP1…, a topology file)
// gives a Spec, the machine collectives and endpoints see
// (machine.Machine) and how its network is built. Adding a machine is one
// file here and a Register call.
package topology
