package main

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// newTable is a table whose headers print as written (tablewriter would
// upper-case them and space out "GB/s"), a header line per "\n" in them;
// aligns aligns each column, header and cells, and caps holds the widths,
// padding included, the cells of a column (by index) wrap at, at spaces.
func newTable(w io.Writer, aligns []tw.Align, caps map[int]int) *tablewriter.Table {
	cfg := tablewriter.NewConfigBuilder().WithHeaderAutoFormat(tw.Off).Build()
	cfg.Header.Alignment.PerColumn = aligns
	cfg.Row.Alignment.PerColumn = aligns
	cfg.Row.Formatting.AutoWrap = tw.WrapNormal
	cfg.Row.ColMaxWidths.PerColumn = caps
	return tablewriter.NewTable(w, tablewriter.WithConfig(cfg))
}
