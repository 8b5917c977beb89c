package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progressDelay is how long a run goes before its progress bars appear:
// a run shorter than that shows none.
const progressDelay = 2 * time.Second

// progressBars show progress on stderr, one bar each: a system's share
// of its run's simulated cycles (of an estimate), or the share of a
// sweep's runs finished; beside it the time left at the pace so far.
// A bar that has not started yet reads "waiting", one that has ended
// "done"; when the run ends, every bar is removed from the terminal.
type progressBars struct {
	p     *mpb.Progress
	bars  map[string]*progressBar
	once  sync.Once // finish's work, done once (the run's end or Ctrl-C)
	shown *time.Timer
}

// progressBar is one bar and what its decorator shows.
type progressBar struct {
	bar *mpb.Bar

	mu          sync.Mutex
	started     time.Time // the first update (zero: waiting)
	done, total int64
}

// progressQueued says the bars' work may wait its turn (systems queue for
// --workers): a bar reads "waiting" until its first update. Otherwise the
// work runs from the start and its first update may come late (a sweep
// reports runs as they finish).
type progressQueued bool

// Whether bars' work waits its turn.
const (
	barsRunning progressQueued = false // running from the start
	barsQueued  progressQueued = true  // "waiting" until the first update
)

// newProgressBars returns bars for the names given, or nil when stderr
// is not a terminal (piped, redirected, in CI): then nothing is shown.
func newProgressBars(stderr io.Writer, names []string, queued progressQueued) *progressBars {
	f, ok := stderr.(*os.File)
	if !ok || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return nil
	}
	return startBars(f, progressDelay, names, queued)
}

// startBars returns bars drawn on out once delay has passed; opts are
// added to the container's (tests draw on a buffer).
func startBars(out io.Writer, delay time.Duration, names []string, queued progressQueued, opts ...mpb.ContainerOption) *progressBars {
	show := make(chan struct{})
	pb := &progressBars{bars: map[string]*progressBar{}, shown: time.AfterFunc(delay, func() { close(show) })}
	pb.p = mpb.New(append([]mpb.ContainerOption{mpb.WithOutput(out), mpb.WithRenderDelay(show), mpb.WithWidth(30)}, opts...)...)
	now := time.Now()
	for _, n := range names {
		b := &progressBar{}
		if !queued {
			b.started = now
		}
		b.bar = pb.p.AddBar(0,
			mpb.PrependDecorators(decor.Name(n, decor.WC{W: 20, C: decor.DindentRight})),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return b.status(time.Now()) })))
		pb.bars[n] = b
	}
	return pb
}

// status is what the bar says beside it at now: "waiting", "done", or
// the share done and, after its first second, the time left at the pace
// so far.
func (b *progressBar) status(now time.Time) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.started.IsZero():
		return "waiting"
	case b.total > 0 && b.done >= b.total:
		return "done"
	case b.total <= 0:
		return "  0 %"
	}
	s := fmt.Sprintf("%3d %%", 100*b.done/b.total)
	// The pace is worth a forecast once the work has gone on a second.
	if spent := now.Sub(b.started); b.done > 0 && spent >= time.Second {
		left := time.Duration(float64(spent) * float64(b.total-b.done) / float64(b.done))
		s += " ETA " + left.Round(time.Second).String()
	}
	return s
}

// update records progress: done of total (compare.Options.Progress gives
// simulated cycles, a sweep runs). Nil bars do nothing.
func (pb *progressBars) update(name string, done, total int64) {
	if pb == nil {
		return
	}
	b := pb.bars[name]
	b.mu.Lock()
	if b.started.IsZero() {
		b.started = time.Now()
	}
	newTotal := total != b.total
	b.done, b.total = done, total
	b.mu.Unlock()
	if newTotal {
		b.bar.SetTotal(total, false) // never complete: finish removes the bars
	}
	b.bar.SetCurrent(done)
}

// finish removes the bars from the terminal, before anything else is
// written; a run that ended before they were shown leaves nothing. Nil
// bars, and bars finished already, do nothing.
func (pb *progressBars) finish() {
	if pb == nil {
		return
	}
	pb.once.Do(pb.end)
}

func (pb *progressBars) end() {
	pb.shown.Stop()
	for _, b := range pb.bars {
		b.bar.Abort(true)
	}
	pb.p.Wait()
}
