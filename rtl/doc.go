// Package rtl holds the cycle-level building blocks every hardware model in
// acemu stands on: the event kernel (integer cycles, a timing wheel for near
// events and a heap for far ones, a fixed tie-breaking rule), exact
// fractional bandwidth accounting (Rate, Serializer), bounded FIFOs with
// back-pressure, and the statistics sink that counters feed.
//
// Time is an integer count of NPU cycles (1245 MHz by default, see Clock).
// Nothing in this package uses floating point for time or bandwidth.
package rtl
