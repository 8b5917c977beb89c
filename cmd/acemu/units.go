package main

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// newTable is a table whose headers print as written (tablewriter would
// upper-case them and space out "GB/s").
func newTable(w io.Writer) *tablewriter.Table {
	cfg := tablewriter.NewConfigBuilder().WithHeaderAutoFormat(tw.Off).Build()
	return tablewriter.NewTable(w, tablewriter.WithConfig(cfg))
}
