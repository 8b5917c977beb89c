package main

import (
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

// progressBars show each system's training progress on stderr: the share
// of its training loop's steps done, and the time left at the pace so
// far.
type progressBars struct {
	p     *mpb.Progress
	bars  map[string]*mpb.Bar
	once  sync.Once // finish's work, done once (the run's end or Ctrl-C)
	shown *time.Timer
}

// newProgressBars returns bars for the systems named, or nil when stderr
// is not a terminal (piped, redirected, in CI): then nothing is shown.
func newProgressBars(stderr io.Writer, names []string) *progressBars {
	f, ok := stderr.(*os.File)
	if !ok || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return nil
	}
	show := make(chan struct{})
	pb := &progressBars{bars: map[string]*mpb.Bar{}, shown: time.AfterFunc(progressDelay, func() { close(show) })}
	pb.p = mpb.New(mpb.WithOutput(f), mpb.WithRenderDelay(show), mpb.WithWidth(30))
	for _, n := range names {
		pb.bars[n] = pb.p.AddBar(0,
			mpb.PrependDecorators(decor.Name(n, decor.WC{W: 20, C: decor.DindentRight})),
			mpb.AppendDecorators(decor.Percentage(decor.WC{W: 5}), decor.Name(" ETA "), decor.AverageETA(decor.ET_STYLE_GO)))
	}
	return pb
}

// update records system's progress (compare.Options.Progress).
func (pb *progressBars) update(system string, done, total int) {
	b := pb.bars[system]
	if b.Current() == 0 { // the total is the same at every step
		b.SetTotal(int64(total), false)
	}
	b.SetCurrent(int64(done))
	if done == total {
		b.SetTotal(int64(total), true) // a bar made without a total completes only so
	}
}

// finish ends the bars, before anything else is written: complete ones
// stay on the terminal; a run that ended before they were shown leaves
// nothing. Nil bars, and bars finished already, do nothing.
func (pb *progressBars) finish() {
	if pb == nil {
		return
	}
	pb.once.Do(pb.end)
}

func (pb *progressBars) end() {
	if pb.shown.Stop() { // never shown
		for _, b := range pb.bars {
			b.Abort(true)
		}
	}
	for _, b := range pb.bars {
		if !b.Completed() {
			b.Abort(false)
		}
	}
	pb.p.Wait()
}
