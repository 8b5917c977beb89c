// Package memsys models one NPU's memory as a shared server: every client
// (a compute kernel, communication SMs, a DMA engine) moves bytes through
// it at once, and between events each active client moves at a constant
// rate given by weighted max-min fair sharing with per-client limits. It is
// the building block for compute–communication contention (the ACE paper,
// Section III: an all-reduce slowed by a concurrent GEMM or embedding
// lookup); which weights and limits model a GPU's memory system is the
// caller's policy (docs/memory-system.md).
//
// Time is exact: rates are rationals in bytes per cycle and progress is
// kept as a rational. Allocations change only at whole cycles (when a job
// is submitted or observed to finish): a job that ends inside a cycle is
// observed at the end of that cycle, and the rest of that cycle's bytes go
// to the client's next job, so no bandwidth is lost or invented.
package memsys

import (
	"fmt"
	"math/big"

	"github.com/acemu/acemu/rtl"
)

// System is one memory shared by its clients.
type System struct {
	k       *rtl.Kernel
	rate    *big.Rat // bytes per cycle
	clients []*Client
	last    rtl.Cycle // progress is accounted up to here
	gen     int64     // generation of the one pending completion event
	pending bool
}

// New returns a memory of rate bytes per cycle (positive) driven by k.
func New(k *rtl.Kernel, rate *big.Rat) (*System, error) {
	if rate == nil || rate.Sign() <= 0 {
		return nil, fmt.Errorf("memory rate must be positive")
	}
	return &System{k: k, rate: new(big.Rat).Set(rate), last: k.Now()}, nil
}

// Client is one user of the memory: its jobs are served one at a time, in
// the order submitted.
type Client struct {
	s      *System
	name   string
	weight *big.Rat // its share relative to the others' when all want more
	limit  *big.Rat // the most it can move per cycle (nil: no limit of its own)
	jobs   []job
	alloc  *big.Rat // current rate
	moved  *big.Rat // bytes of the head job moved
	total  *big.Rat // bytes moved over the run
}

type job struct {
	bytes int64
	done  func(now rtl.Cycle)
}

// Client adds a client with a positive weight and an optional limit in
// bytes per cycle (nil: none).
func (s *System) Client(name string, weight, limit *big.Rat) (*Client, error) {
	if weight == nil || weight.Sign() <= 0 {
		return nil, fmt.Errorf("memory client %s: weight must be positive", name)
	}
	if limit != nil && limit.Sign() <= 0 {
		return nil, fmt.Errorf("memory client %s: limit must be positive (or none)", name)
	}
	c := &Client{s: s, name: name, weight: new(big.Rat).Set(weight), alloc: new(big.Rat), moved: new(big.Rat), total: new(big.Rat)}
	if limit != nil {
		c.limit = new(big.Rat).Set(limit)
	}
	s.clients = append(s.clients, c)
	return c, nil
}

// Submit queues a job of bytes bytes (positive) at cycle now (the kernel's
// current cycle); done is called at the cycle the job is observed to
// finish.
func (c *Client) Submit(now rtl.Cycle, bytes int64, done func(now rtl.Cycle)) error {
	s := c.s
	if bytes <= 0 {
		return fmt.Errorf("memory client %s: a job of %d bytes; give a positive size", c.name, bytes)
	}
	if now != s.k.Now() || now < s.last {
		return fmt.Errorf("memory client %s: job submitted at cycle %d, not the current cycle %d", c.name, now, s.k.Now())
	}
	s.advance(now)
	c.jobs = append(c.jobs, job{bytes: bytes, done: done})
	s.reschedule(now)
	return nil
}

// Rate returns the client's current rate in bytes per cycle (a copy).
func (c *Client) Rate() *big.Rat { return new(big.Rat).Set(c.alloc) }

// Moved returns the bytes the client has moved up to the last event (a
// copy).
func (c *Client) Moved() *big.Rat { return new(big.Rat).Set(c.total) }

// Busy reports whether the client has a job in service.
func (c *Client) Busy() bool { return len(c.jobs) > 0 }

// advance accounts every active client's progress from s.last to now.
func (s *System) advance(now rtl.Cycle) {
	if now <= s.last {
		return
	}
	dt := big.NewRat(int64(now-s.last), 1)
	for _, c := range s.clients {
		if len(c.jobs) == 0 || c.alloc.Sign() == 0 {
			continue
		}
		d := new(big.Rat).Mul(c.alloc, dt)
		c.moved.Add(c.moved, d)
		c.total.Add(c.total, d)
	}
	s.last = now
}

// allocate shares the memory among the clients with jobs (Share).
func (s *System) allocate() {
	var open []*Client
	var claims []Claim
	for _, c := range s.clients {
		c.alloc.SetInt64(0)
		if len(c.jobs) > 0 {
			open = append(open, c)
			claims = append(claims, Claim{Weight: c.weight, Limit: c.limit})
		}
	}
	for i, r := range Share(s.rate, claims) {
		open[i].alloc.Set(r)
	}
}

// reschedule reallocates and schedules the next completion.
func (s *System) reschedule(now rtl.Cycle) {
	s.allocate()
	var next *big.Rat
	for _, c := range s.clients {
		if len(c.jobs) == 0 || c.alloc.Sign() == 0 {
			continue
		}
		left := new(big.Rat).Sub(big.NewRat(c.jobs[0].bytes, 1), c.moved)
		t := new(big.Rat).Quo(left, c.alloc)
		if next == nil || t.Cmp(next) < 0 {
			next = t
		}
	}
	s.gen++
	if next == nil {
		return
	}
	// Observed at the first whole cycle at or after the finish (this very
	// cycle when a job submitted now is already covered).
	d := max(rtl.CeilRat(next), 0)
	s.k.Schedule(now+rtl.Cycle(d), s, 0, s.gen)
}

// Handle observes the jobs that finished by now, hands each client's extra
// bytes of the cycle to its next job, calls the done functions and
// reallocates.
func (s *System) Handle(now rtl.Cycle, _ int32, gen int64) {
	if gen != s.gen {
		return // superseded by a later submission
	}
	s.advance(now)
	var done []func(rtl.Cycle)
	for _, c := range s.clients {
		for len(c.jobs) > 0 && c.moved.Cmp(big.NewRat(c.jobs[0].bytes, 1)) >= 0 {
			c.moved.Sub(c.moved, big.NewRat(c.jobs[0].bytes, 1))
			if c.jobs[0].done != nil {
				done = append(done, c.jobs[0].done)
			}
			c.jobs = c.jobs[1:]
		}
		if len(c.jobs) == 0 {
			// Memory the client was given past its last job is unused.
			c.total.Sub(c.total, c.moved)
			c.moved.SetInt64(0)
		}
	}
	s.reschedule(now)
	for _, f := range done {
		f(now)
	}
}
