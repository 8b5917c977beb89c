package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/acemu/acemu/internal/outfile"
)

// interrupt is what Ctrl-C (or SIGTERM) says before acemu exits with code
// 130: the running command's last words, such as the results that
// finished.
var interrupt struct {
	sync.Mutex
	say func(stderr io.Writer)
}

// onInterrupt sets what Ctrl-C says while a command runs; restore puts
// back what it said before.
func onInterrupt(say func(stderr io.Writer)) (restore func()) {
	interrupt.Lock()
	defer interrupt.Unlock()
	old := interrupt.say
	interrupt.say = say
	return func() {
		interrupt.Lock()
		defer interrupt.Unlock()
		interrupt.say = old
	}
}

// exit ends the process; a variable so that tests can see the code.
var exit = os.Exit

// interruptSignals stop acemu cleanly: Ctrl-C, SIGTERM, and SIGHUP (the
// terminal acemu runs in closing), which would otherwise end it at once
// and leave the temporary files it was writing behind.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// catchInterrupts makes Ctrl-C, SIGTERM and SIGHUP stop acemu cleanly: the
// command's last words (or one line), the files being written removed
// (outfile: a result file is complete or absent), exit code 130.
func catchInterrupts(stderr io.Writer) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, interruptSignals...)
	go func() {
		<-ch
		signal.Reset(interruptSignals...) // a second Ctrl-C ends acemu at once
		interrupt.Lock()                  // held: nothing changes the words now
		fmt.Fprintln(stderr)
		if interrupt.say != nil {
			interrupt.say(stderr)
		} else {
			fmt.Fprintln(stderr, "acemu: interrupted; files being written were removed")
		}
		outfile.AbortAll()
		exit(130)
	}()
}
