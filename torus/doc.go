// Package torus describes the L×V×H 3D torus of the ACE platform: the shape,
// NPU coordinates, the rings of each dimension, the links each NPU owns, and
// shortest-way dimension-order (XYZ) routing.
//
// It knows nothing about time or bandwidth; package fabric builds links from
// what this package describes.
package torus
