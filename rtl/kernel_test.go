package rtl

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

type rec struct {
	at   Cycle
	kind int32
}

type recorder struct{ got []rec }

func (r *recorder) Handle(now Cycle, kind int32, _ int64) { r.got = append(r.got, rec{now, kind}) }

func TestKernelOrdersByCycleThenScheduling(t *testing.T) {
	tests := []struct {
		name  string
		sched []rec // (cycle, kind) in scheduling order, all scheduled at cycle 0
		want  []rec
	}{
		{"same cycle keeps scheduling order", []rec{{5, 1}, {5, 2}, {5, 3}}, []rec{{5, 1}, {5, 2}, {5, 3}}},
		{"earlier cycle first", []rec{{9, 1}, {3, 2}, {6, 3}}, []rec{{3, 2}, {6, 3}, {9, 1}}},
		// 5000 and 3000 are beyond the 1024-cycle wheel: they go to the heap.
		{"far and near mixed", []rec{{5000, 1}, {10, 2}, {3000, 3}, {1023, 4}, {1024, 5}},
			[]rec{{10, 2}, {1023, 4}, {1024, 5}, {3000, 3}, {5000, 1}}},
		{"far ties keep scheduling order", []rec{{4096, 1}, {4096, 2}, {4096, 3}}, []rec{{4096, 1}, {4096, 2}, {4096, 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := NewKernel()
			r := &recorder{}
			for _, s := range tc.sched {
				k.Schedule(s.at, r, s.kind, 0)
			}
			end := k.Run()
			require.Equal(t, tc.want, r.got)
			require.Equal(t, tc.want[len(tc.want)-1].at, end)
			require.Equal(t, uint64(len(tc.want)), k.Events())
			require.Zero(t, k.Pending())
		})
	}
}

// An event in the heap for cycle t was scheduled before any wheel event for
// t, so it must run first. Here kind 1 is scheduled at cycle 0 for 2000 (far:
// 2000-0 >= 1024); at cycle 1500 kind 2 is scheduled for 2000 (near: 500 ahead).
func TestKernelHeapBeforeWheelAtSameCycle(t *testing.T) {
	k := NewKernel()
	r := &recorder{}
	k.Schedule(2000, r, 1, 0)
	k.Schedule(1500, HandlerFunc(func(now Cycle, _ int32, _ int64) {
		k.Schedule(2000, r, 2, 0)
	}), 0, 0)
	k.Run()
	require.Equal(t, []rec{{2000, 1}, {2000, 2}}, r.got)
}

// Events scheduled for the current cycle run in the same cycle, after the
// ones already due.
func TestKernelZeroDelayRunsThisCycle(t *testing.T) {
	k := NewKernel()
	r := &recorder{}
	k.Schedule(7, HandlerFunc(func(now Cycle, _ int32, _ int64) {
		k.After(0, r, 9, 0)
	}), 0, 0)
	k.Schedule(7, r, 8, 0)
	k.Run()
	require.Equal(t, []rec{{7, 8}, {7, 9}}, r.got)
}

// A chain of events 700 cycles apart wraps the 1024-bucket wheel many times.
func TestKernelWrapsWheel(t *testing.T) {
	k := NewKernel()
	var times []Cycle
	var step HandlerFunc
	step = func(now Cycle, _ int32, n int64) {
		times = append(times, now)
		if n > 0 {
			k.After(700, step, 0, n-1)
		}
	}
	k.Schedule(0, step, 0, 9)
	k.Run()
	require.Len(t, times, 10)
	for i, c := range times {
		require.Equal(t, Cycle(700*i), c)
	}
}

func TestKernelRunUntilAndHalt(t *testing.T) {
	k := NewKernel()
	r := &recorder{}
	k.Schedule(10, r, 1, 0)
	k.Schedule(20, r, 2, 0)
	k.Schedule(30, r, 3, 0)
	k.RunUntil(20)
	require.Equal(t, []rec{{10, 1}, {20, 2}}, r.got)
	require.Equal(t, 1, k.Pending())
	k.Schedule(25, HandlerFunc(func(Cycle, int32, int64) { k.Halt() }), 0, 0)
	k.Run()
	require.Equal(t, Cycle(25), k.Now())
	k.Run()
	require.Equal(t, []rec{{10, 1}, {20, 2}, {30, 3}}, r.got)
}

func TestKernelPanicsOnPast(t *testing.T) {
	k := NewKernel()
	k.Schedule(10, HandlerFunc(func(Cycle, int32, int64) {
		require.Panics(t, func() { k.Schedule(9, HandlerFunc(func(Cycle, int32, int64) {}), 0, 0) })
	}), 0, 0)
	k.Run()
}

// benchChains runs b.N events of chains self-rescheduling chains, with
// delays from 1 to 600 cycles (mostly the wheel), each event's class and
// any longer delay given by next, and reports events per second.
func benchChains(b *testing.B, chains int, next func(arg int64, d Cycle) (Class, Cycle)) {
	k := NewKernel()
	var h HandlerFunc
	n := 0
	h = func(now Cycle, kind int32, arg int64) {
		n++
		if n >= b.N {
			k.Halt()
			return
		}
		c, d := next(arg, Cycle(1+(arg*7919)%600))
		k.ScheduleClass(now+d, c, h, kind, arg+1)
	}
	for i := 0; i < chains; i++ {
		c, _ := next(int64(i), 0)
		k.ScheduleClass(Cycle(i%1024), c, h, 0, int64(i))
	}
	b.ResetTimer()
	k.Run()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkKernel: 1024 chains of default-class events, one in 64 far
// (3000 cycles: the heap).
func BenchmarkKernel(b *testing.B) {
	benchChains(b, 1024, func(arg int64, d Cycle) (Class, Cycle) {
		if arg%64 == 0 {
			d = 3000
		}
		return ClassDefault, d
	})
}

// BenchmarkKernelClasses: 4096 chains of events of every class, as a
// network's are (arrivals and credits by port, the endpoints' own events,
// control), so that a cycle's bucket holds many events of classes lower
// than the last one scheduled.
func BenchmarkKernelClasses(b *testing.B) {
	benchChains(b, 4096, func(arg int64, d Cycle) (Class, Cycle) {
		return Class(arg % int64(ClassSystem+1)), d
	})
}

// Within a cycle, lower classes run first, then scheduling order; a far
// (heap) event takes its class's place among the wheel's, and an event
// scheduled for the current cycle while it runs goes before the not yet run
// events of higher classes, never before one that has run.
func TestKernelOrdersByClassWithinACycle(t *testing.T) {
	k := NewKernel()
	r := &recorder{}
	k.ScheduleClass(2000, ClassSystem, r, 1, 0)   // far, runs last at 2000
	k.ScheduleClass(2000, ClassArrive+3, r, 2, 0) // far, runs first
	k.Schedule(1500, HandlerFunc(func(now Cycle, _ int32, _ int64) {
		k.ScheduleClass(2000, ClassControl, r, 3, 0)
		k.Schedule(2000, HandlerFunc(func(now Cycle, _ int32, _ int64) {
			r.Handle(now, 4, 0)
			// Lower class than the control and system events still to run:
			// it runs next, after this one.
			k.ScheduleClass(now, ClassNotice, r, 5, 0)
			// Higher class than this default event but lower than ClassSystem.
			k.ScheduleClass(now, ClassControl, r, 6, 0)
		}), 0, 0)
		k.ScheduleClass(2000, ClassCredit, r, 7, 0)
	}), 0, 0)
	k.Run()
	// At 2000: arrive(2), credit(7), default(4), notice(5) scheduled during
	// 4 goes right after it, control(3), control(6), system(1).
	require.Equal(t, []rec{{2000, 2}, {2000, 7}, {2000, 4}, {2000, 5}, {2000, 3}, {2000, 6}, {2000, 1}}, r.got)
}

// The switches' classes sit between the per-port ranges they extend and
// the classes after them, and ClassSwitch between a component's own events
// and ACE's scheduler: every class before them keeps its place relative to
// every other, so adding them reorders no event that does not use them.
func TestSwitchClassesTakeTheirPlaces(t *testing.T) {
	order := []Class{
		ClassArrive, ClassArrive + ClassPorts - 1, ClassSwitchArrive,
		ClassCredit, ClassCredit + ClassPorts - 1, ClassSwitchCredit,
		ClassNotice, ClassTransmit, ClassTransmit + ClassPorts - 1,
		ClassDefault, ClassSwitch, ClassControl, ClassSystem,
	}
	for i := 1; i < len(order); i++ {
		require.Less(t, order[i-1], order[i], "class %d of the list", i)
	}
	k := NewKernel()
	r := &recorder{}
	for i, c := range []Class{ClassSystem, ClassSwitch, ClassSwitchCredit, ClassCredit + 2, ClassSwitchArrive, ClassArrive + 15} {
		k.ScheduleClass(7, c, r, int32(i), 0)
	}
	k.Run()
	require.Equal(t, []rec{{7, 5}, {7, 4}, {7, 3}, {7, 2}, {7, 1}, {7, 0}}, r.got)
}

// A large bucket (more than lateFrom events) keeps exact (class, order)
// order however its events come: scheduled in random classes from the
// past (appended, or set aside as late and merged), from beyond the
// wheel (the far heap), and for the current cycle while it runs. The
// reference is a plain sort of the events by (class, order scheduled).
func TestKernelLargeBucketsKeepClassOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := range 20 {
		k := NewKernel()
		const at = 3 * wheelSize // reached through the heap, then the wheel
		type ev struct {
			class Class
			seq   int
		}
		var want []ev
		var got []int32
		seq := 0
		add := func(c Class) {
			seq++
			s := seq
			want = append(want, ev{c, s})
			k.ScheduleClass(at, c, HandlerFunc(func(Cycle, int32, int64) { got = append(got, int32(s)) }), 0, 0)
		}
		for range 40 { // far: into the heap
			add(Class(r.IntN(int(ClassSystem) + 1)))
		}
		// From a cycle within the wheel's reach of at: many into the same
		// bucket, of random classes, so that some are set aside as late.
		k.Schedule(at-10, HandlerFunc(func(Cycle, int32, int64) {
			for range 100 + r.IntN(100) {
				add(Class(r.IntN(int(ClassSystem) + 1)))
			}
		}), 0, 0)
		// While the bucket runs, its first event adds events for now; they
		// run after every event of a lower or equal class already there.
		first := true
		k.ScheduleClass(at, 0, HandlerFunc(func(Cycle, int32, int64) {
			if first {
				first = false
				for range 10 {
					add(Class(1 + r.IntN(int(ClassSystem))))
				}
			}
		}), 0, 0)
		k.Run()
		slices.SortStableFunc(want, func(a, b ev) int { return cmp.Compare(a.class, b.class) })
		order := make([]int32, len(want))
		for i, e := range want {
			order[i] = int32(e.seq)
		}
		require.Equal(t, order, got, "trial %d", trial)
	}
}

// stuckRetry reschedules itself every cycle and never gets anywhere.
type stuckRetry struct{ k *Kernel }

func (s stuckRetry) Handle(now Cycle, _ int32, _ int64) { s.k.Schedule(now+1, s, 0, 0) }

// The watchdog: a run whose events go on with no progress reported stops
// after StallEvents events, stalled, with an error saying so; progress
// reported in time keeps it going.
func TestAStalledRunStops(t *testing.T) {
	const limit = 100_000
	k := NewKernel()
	k.SetStallEvents(limit)
	k.Schedule(0, stuckRetry{k}, 0, 0)
	k.Run()
	require.True(t, k.Stalled())
	require.Equal(t, uint64(limit)+1, k.Events())
	require.ErrorContains(t, k.StallError(), "stopped making progress")

	k2 := NewKernel()
	k2.SetStallEvents(limit)
	n := 0
	var h HandlerFunc
	h = func(now Cycle, _ int32, _ int64) {
		n++
		if n%1000 == 0 {
			k2.Progress()
		}
		if n < 3*limit/2 {
			k2.Schedule(now+1, h, 0, 0)
		}
	}
	k2.Schedule(0, h, 0, 0)
	k2.Run()
	require.False(t, k2.Stalled(), "progress every 1000 events keeps a run going past the limit")
	require.NoError(t, k2.StallError())
	require.Equal(t, 3*limit/2, n)
}

// An event due after MaxCycle stops the run with an error, rather than
// letting time arithmetic overflow.
func TestARunPastMaxCycleStops(t *testing.T) {
	k := NewKernel()
	ran := 0
	k.Schedule(0, HandlerFunc(func(now Cycle, _ int32, _ int64) {
		ran++
		k.Schedule(MaxCycle+1, HandlerFunc(func(Cycle, int32, int64) { ran++ }), 0, 0)
	}), 0, 0)
	k.Run()
	require.Equal(t, 1, ran)
	require.ErrorContains(t, k.StallError(), "went past cycle")
}

// An Overflow panic becomes an error where a simulation is run; any other
// panic goes on.
func TestRecoverOverflow(t *testing.T) {
	run := func(v any) (err error) {
		defer RecoverOverflow(&err)
		panic(v)
	}
	require.ErrorContains(t, run(Overflow("x")), "exact time arithmetic overflows (x)")
	require.PanicsWithValue(t, "model bug", func() { _ = run("model bug") })
}

// Events for the same cycle without end are caught too.
func TestASameCycleLivelockStops(t *testing.T) {
	k := NewKernel()
	k.SetStallEvents(1000)
	var h HandlerFunc
	h = func(now Cycle, _ int32, _ int64) { k.Schedule(now, h, 0, 0) }
	k.Schedule(5, h, 0, 0)
	k.Run()
	require.True(t, k.Stalled())
	require.Equal(t, Cycle(5), k.Now())
	require.LessOrEqual(t, k.Events(), uint64(1001))
}

// Watch's onlooker is called before the events of the first cycle that
// has an event at or past each mark (the last call plus every), and the
// run's events are those of a run without it, in the same order.
func TestWatchLooksOnWithoutChangingTheRun(t *testing.T) {
	tests := []struct {
		name  string
		every Cycle
		want  []Cycle
	}{
		// Events every 300 cycles up to 4800, and one at 2000.
		{"every 1000 cycles", 1000, []Cycle{1200, 2400, 3600, 4800}},
		{"every cycle: each event's cycle", 1, []Cycle{300, 600, 900, 1200, 1500, 1800, 2000, 2100, 2400, 2700, 3000, 3300, 3600, 3900, 4200, 4500, 4800}},
		{"longer than the run", 10_000, nil},
		{"0: off", 0, nil},
	}
	run := func(every Cycle, watched *[]Cycle) ([]rec, uint64) {
		k := NewKernel()
		r := &recorder{}
		var tick HandlerFunc
		tick = func(now Cycle, kind int32, _ int64) {
			r.Handle(now, kind, 0)
			if now < 4800 {
				k.Schedule(now+300, tick, kind+1, 0)
			}
		}
		k.Schedule(300, tick, 0, 0)
		k.Schedule(2000, r, 100, 0) // far from cycle 0: the heap
		if watched != nil {
			k.Watch(every, func(now Cycle) {
				require.Equal(t, now, k.Now())
				*watched = append(*watched, now)
			})
		}
		k.Run()
		return r.got, k.Events()
	}
	plain, plainEvents := run(0, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []Cycle
			events, n := run(tc.every, &got)
			require.Equal(t, tc.want, got)
			require.Equal(t, plain, events)
			require.Equal(t, plainEvents, n)
		})
	}
}

// Watch with a nil function stops the onlooker.
func TestWatchStops(t *testing.T) {
	k := NewKernel()
	var got []Cycle
	k.Watch(10, func(now Cycle) {
		got = append(got, now)
		if now >= 20 {
			k.Watch(10, nil)
		}
	})
	for c := Cycle(5); c <= 100; c += 5 {
		k.Schedule(c, HandlerFunc(func(Cycle, int32, int64) {}), 0, 0)
	}
	k.Run()
	require.Equal(t, []Cycle{10, 20}, got)
}

// held is the room for events the kernel's buckets, late lists and pool
// hold.
func (k *Kernel) held() int {
	n := 0
	for i := range k.wheel {
		n += cap(k.wheel[i]) + cap(k.late[i])
	}
	for _, f := range k.pool.free {
		for _, b := range f {
			n += cap(b)
		}
	}
	return n
}

// The kernel's memory follows the events in flight, not the run: a burst
// of 1000 events in each of 1024 cycles in turn (each cycle's events
// schedule the next cycle's, so at most 2000 are pending) leaves room for
// a few thousand events, not for 1000 in every bucket of the wheel
// (1024 × 1000, as when each bucket kept the largest array it had needed).
func TestKernelMemoryFollowsEventsInFlight(t *testing.T) {
	const burst, cycles = 1000, wheelSize
	k := NewKernel()
	var h HandlerFunc
	h = func(now Cycle, kind int32, arg int64) {
		if arg == 0 && now < cycles {
			for i := range burst {
				k.Schedule(now+1, h, 0, int64(i))
			}
		}
	}
	k.Schedule(0, h, 0, 0)
	k.Run()
	require.Equal(t, uint64(1+burst*cycles), k.Events())
	// Two bursts pending at once, each in an array of at most twice its
	// events (powers of two), and as much again in the pool.
	require.LessOrEqual(t, k.held(), 4*2*burst*2)
}

// Events of one cycle and class scheduled one right after another
// (Scheduled up by one) run next to each other; only an event of a lower
// class the first schedules for its own cycle runs between them
// (Interposed), and Resume's event runs after it, in the first's place,
// before the second. At cycle 10, A (kind 1) and B (kind 2) are
// scheduled back to back; A schedules X (kind 3) as each case says and,
// when X is interposed, resumes with R (kind 4).
func TestKernelInterposedAndResume(t *testing.T) {
	tests := []struct {
		name       string
		x          func(k *Kernel, r *recorder)
		interposed bool
		want       []rec
	}{
		{"nothing scheduled", func(*Kernel, *recorder) {}, false, []rec{{10, 1}, {10, 2}}},
		{"the same class, this cycle: after B", func(k *Kernel, r *recorder) { k.Schedule(10, r, 3, 0) }, false,
			[]rec{{10, 1}, {10, 2}, {10, 3}}},
		{"a higher class, this cycle", func(k *Kernel, r *recorder) { k.ScheduleClass(10, ClassControl, r, 3, 0) }, false,
			[]rec{{10, 1}, {10, 2}, {10, 3}}},
		{"a lower class, the next cycle", func(k *Kernel, r *recorder) { k.ScheduleClass(11, ClassArrive, r, 3, 0) }, false,
			[]rec{{10, 1}, {10, 2}, {11, 3}}},
		{"a lower class, this cycle: interposed, R in A's place", func(k *Kernel, r *recorder) { k.ScheduleClass(10, ClassCredit, r, 3, 0) }, true,
			[]rec{{10, 1}, {10, 3}, {10, 4}, {10, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := NewKernel()
			r := &recorder{}
			var interposed bool
			k.Schedule(10, HandlerFunc(func(now Cycle, _ int32, _ int64) {
				r.Handle(now, 1, 0)
				tc.x(k, r)
				if interposed = k.Interposed(); interposed {
					k.Resume(r, 4, 0)
				}
			}), 0, 0)
			before := k.Scheduled()
			k.Schedule(10, r, 2, 0)
			require.Equal(t, before+1, k.Scheduled())
			k.Run()
			require.Equal(t, tc.interposed, interposed)
			require.Equal(t, tc.want, r.got)
			require.Zero(t, k.Pending())
		})
	}
}

// Far events (beyond the wheel) run in (cycle, class, order scheduled)
// order however many wait in the heap and however they were scheduled,
// some from cycles reached on the way, whose own far events join the
// heap. The reference is a plain sort of the events by that key.
func TestKernelFarEventsRunInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 11))
	for trial := range 10 {
		k := NewKernel()
		type ev struct {
			at    Cycle
			class Class
			seq   int
		}
		var want []ev
		var got []int
		seq := 0
		var add func(at Cycle, c Class)
		add = func(at Cycle, c Class) {
			seq++
			s := seq
			want = append(want, ev{at, c, s})
			k.ScheduleClass(at, c, HandlerFunc(func(now Cycle, _ int32, _ int64) {
				got = append(got, s)
				if s%7 == 0 { // schedules more, far from now
					for range 3 {
						add(now+wheelSize+Cycle(r.IntN(100)), Class(r.IntN(int(ClassSystem)+1)))
					}
				}
			}), 0, 0)
		}
		for range 300 {
			add(wheelSize+Cycle(r.IntN(200)), Class(r.IntN(int(ClassSystem)+1)))
		}
		k.Run()
		slices.SortFunc(want, func(a, b ev) int {
			return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.class, b.class), cmp.Compare(a.seq, b.seq))
		})
		order := make([]int, len(want))
		for i, e := range want {
			order[i] = e.seq
		}
		require.Equal(t, order, got, "trial %d", trial)
	}
}
