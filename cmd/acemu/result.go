package main

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/platform"
)

// result is what a command prints: lead lines, a table (header and rows),
// a summary table, notes, and the document --format json prints.
type result struct {
	lead   []string
	header []string
	rows   [][]string
	// keys is how many leading columns name a row (1 when unset): a table
	// too wide for the terminal is printed in blocks of columns, each
	// repeating them.
	keys int
	// wide prints the tables in one piece, headers on one line, however
	// wide (--wide); otherwise they, the lead lines and the notes fit
	// tableWidth columns.
	wide bool
	// summary, when set, is a second table under the first (before the
	// notes) in the table format; CSV is the first table's rows, JSON the
	// document, and writeOut writes the summary as summary.csv.
	summary *summary
	// full, when set, is the first table in full (header and rows are
	// then a narrower form of it, for a terminal): what CSV holds, and
	// what the table format prints with --wide.
	full  *summary
	notes []string
	doc   any
	// prov, when set, is where the result comes from: the table's last
	// line, and in JSON (an object) its first keys, with the schema's
	// version. CSV holds data only.
	prov *provenance
}

// summary is a second table of a result.
type summary struct {
	header []string
	rows   [][]string
}

// formats are the --format values every command takes.
const formats = "table, csv or json"

// registerWide adds --wide to fs, into wide (result.wide).
func registerWide(fs *pflag.FlagSet, wide *bool) {
	fs.BoolVar(wide, "wide", false, "print tables in one piece, each header on one line, however wide (default: fitted to 100 columns; CSV and JSON are the same either way)")
}

// checkFormat refuses a --format that is not one of formats, nor own: a
// command's format of its own (a file format it writes by default).
func checkFormat(f string, own ...string) error {
	if f == "table" || f == "csv" || f == "json" || slices.Contains(own, f) {
		return nil
	}
	return fmt.Errorf("--format %q: use %s", f, strings.Join(append(own, formats), ", "))
}

// write writes r in format: table (the rows and the notes), csv (the rows
// only: a header line, then one line per row) or json (the document).
// The table format fits tableWidth columns unless r.wide; CSV and JSON are
// the same either way.
func (r result) write(w io.Writer, format string) error {
	switch format {
	case "json":
		doc, err := json.Marshal(r.doc)
		if err != nil {
			return err
		}
		if r.prov != nil && len(doc) > 1 && doc[0] == '{' {
			head, err := json.Marshal(struct {
				Schema int         `json:"schema_version"`
				Acemu  *provenance `json:"acemu"`
			}{schemaVersion, r.prov})
			if err != nil {
				return err
			}
			if string(doc) != "{}" {
				head[len(head)-1] = ','
			} else {
				head = head[:len(head)-1]
			}
			doc = append(head, doc[1:]...)
		}
		var b bytes.Buffer
		if err := json.Indent(&b, doc, "", "  "); err != nil {
			return err
		}
		b.WriteByte('\n')
		_, err = w.Write(b.Bytes())
		return err
	case "csv":
		header, rows := r.header, r.rows
		if r.full != nil {
			header, rows = r.full.header, r.full.rows
		}
		return writeCSV(w, header, rows)
	}
	width := fitWidth(r.wide)
	if err := writeProse(w, r.lead, width); err != nil {
		return err
	}
	header, rows := r.header, r.rows
	if r.wide && r.full != nil {
		header, rows = r.full.header, r.full.rows
	}
	if err := renderTable(w, header, rows, cmp.Or(r.keys, 1), width); err != nil {
		return err
	}
	if s := r.summary; s != nil {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		if err := renderTable(w, s.header, s.rows, 1, width); err != nil {
			return err
		}
	}
	notes := r.notes
	if r.prov != nil {
		notes = append(slices.Clone(notes), r.prov.line())
	}
	return writeProse(w, notes, width)
}

// writeCSV writes a header line and the rows as CSV, a cell that says
// "not applicable" in a table ("-", "–") empty: every cell of acemu's CSV
// is a number, a name or empty.
//
// A cell that is a number with a unit of "×" or "%" (a table's "1.38×")
// is written as the number, the unit moved to its column's header when
// every cell of the column has it (else the row names what it is).
func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	header = slices.Clone(header)
	units := make([]string, len(header))
	for i := range header {
		units[i] = cellUnit(rows, i)
		if units[i] != "" && !strings.HasSuffix(header[i], units[i]) {
			header[i] += " " + units[i]
		}
	}
	_ = cw.Write(header)
	for _, row := range rows {
		out := slices.Clone(row)
		for i, c := range out {
			switch {
			case c == "-" || c == "–":
				out[i] = ""
			default:
				if n, u := numberWithUnit(c); u != "" {
					out[i] = n
				}
			}
		}
		_ = cw.Write(out)
	}
	cw.Flush()
	return cw.Error()
}

// writeOut writes a run's results into dir (--out): result.txt,
// result.csv and result.json, and the platform configuration used,
// platform.yaml, which --config reads back.
func (r result) writeOut(dir string, p platform.Platform) error {
	if err := makeDir("--out", dir); err != nil {
		return err
	}
	type file struct {
		name, format string
		r            result
	}
	files := []file{{"result.txt", "table", r}, {"result.csv", "csv", r}, {"result.json", "json", r}}
	if s := r.summary; s != nil {
		files = append(files, file{"summary.csv", "csv", result{header: s.header, rows: s.rows}})
	}
	for _, f := range files {
		var b bytes.Buffer
		if err := f.r.write(&b, f.format); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		if err := outfile.Write(filepath.Join(dir, f.name), b.Bytes()); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	cfg, err := p.Dump()
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if r.prov != nil {
		cfg = append([]byte("# The platform of a run by "+r.prov.build.String()+"; --config FILE reads it back.\n"), cfg...)
	}
	if err := outfile.Write(filepath.Join(dir, "platform.yaml"), cfg); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// inDir puts a relative path under dir (--out), when dir is given.
func inDir(dir, path string) string {
	if dir == "" || path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// cellUnit is the unit ("×" or "%") every cell of column i ends in after a
// number, "" when not every one does (a cell that says "not applicable"
// does not count).
func cellUnit(rows [][]string, i int) string {
	unit := ""
	for _, row := range rows {
		if i >= len(row) || row[i] == "-" || row[i] == "–" || row[i] == "" {
			continue
		}
		_, u := numberWithUnit(row[i])
		if u == "" || unit != "" && u != unit {
			return ""
		}
		unit = u
	}
	return unit
}

// numberWithUnit splits a cell such as "1.38×" or "12.5 %" into its number
// and unit; unit is "" when c is not a number followed by "×" or "%".
func numberWithUnit(c string) (number, unit string) {
	for _, u := range []string{"×", "%"} {
		if n, ok := strings.CutSuffix(c, u); ok {
			n = strings.TrimSpace(n)
			if _, err := strconv.ParseFloat(n, 64); err == nil {
				return n, u
			}
		}
	}
	return c, ""
}
