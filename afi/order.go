package afi

import (
	"fmt"
	"strings"
)

// Order is which of the collectives in flight goes first when their chunks
// compete for the network, SRAM or SMs: the one priority rule every
// endpoint and command shares.
type Order int

const (
	// LIFO serves the most recently issued collective first: the ACE
	// paper's default (Section V), so the first layers' gradients, needed
	// first in the next forward pass, win. It is the zero value.
	LIFO Order = iota
	// FIFO serves the oldest collective first.
	FIFO
)

// ParseOrder reads "lifo" or "fifo", in any case.
func ParseOrder(s string) (Order, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "lifo":
		return LIFO, nil
	case "fifo":
		return FIFO, nil
	}
	return LIFO, fmt.Errorf("collective priority %q: use lifo or fifo", s)
}

// String is "lifo" or "fifo".
func (o Order) String() string {
	if o == FIFO {
		return "fifo"
	}
	return "lifo"
}
