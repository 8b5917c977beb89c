package main

import (
	"io"
	"strconv"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/observe"
)

// linksHeader is a --links file's header: its columns and their units.
var linksHeader = []string{"link_id", "src_node", "dst_node", "src_port", "class", "switch_end",
	"bytes", "packets", "busy_cycles", "utilization_pct", "peak_window_pct"}

// linksFile is a --links file (an outputFile): one CSV row per link,
// written from the run's link statistics once it has ended (set).
type linksFile struct {
	f     *outfile.File
	path  string
	stats []fabric.LinkStat // nil until the run ends (set)
}

func linksOutput(f *outfile.File, path string) outputFile { return &linksFile{f: f, path: path} }

// start observes nothing: the rows come from the links' counters when
// the run ends.
func (l *linksFile) start(string, *fabric.Network) (observe.Observers, error) {
	return observe.Observers{}, nil
}

// set gives the file the run's links.
func (l *linksFile) set(stats []fabric.LinkStat) { l.stats = stats }

// close writes the rows, if the run gave them.
func (l *linksFile) close(err *error) {
	if l.stats == nil { // the run did not finish: no file
		l.f.Abort()
		return
	}
	closeOutput(l.f, "--links", l.path, writeLinks(l.f, l.stats), err)
}

// writeLinks writes stats as CSV, one row per link: its id, the nodes it
// leaves and reaches, the sender's port, its class, 1 when either end is
// a switch (else 0), the bytes and packets it carried, its busy cycles,
// their share of the run and the share of its busiest window, in % as
// every CSV of acemu gives a share (the latter empty when windows are not
// tracked).
func writeLinks(w io.Writer, stats []fabric.LinkStat) error {
	res := result{header: linksHeader}
	for _, s := range stats {
		sw := "0"
		if s.SrcSwitch || s.DstSwitch {
			sw = "1"
		}
		busy, _ := s.Busy.Float64()
		peak := ""
		if s.HasPeak {
			peak = strconv.FormatFloat(100*s.Peak, 'f', 4, 64)
		}
		res.rows = append(res.rows, []string{strconv.Itoa(s.ID), strconv.Itoa(s.Src), strconv.Itoa(s.Dst), strconv.Itoa(s.Port), s.Class, sw,
			strconv.FormatInt(s.Bytes, 10), strconv.FormatInt(s.Packets, 10), strconv.FormatFloat(busy, 'f', -1, 64),
			strconv.FormatFloat(100*s.Utilization, 'f', 4, 64), peak})
	}
	return res.write(w, "csv")
}
