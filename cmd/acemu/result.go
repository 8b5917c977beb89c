package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acemu/acemu/internal/outfile"
	"github.com/acemu/acemu/platform"
)

// result is what a command prints: lead lines, a table (header and rows)
// with notes under it, and the document --format json prints.
type result struct {
	lead   []string
	header []string
	rows   [][]string
	notes  []string
	doc    any
}

// formats are the --format values every command takes.
const formats = "table, csv or json"

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
func (r result) write(w io.Writer, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r.doc)
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write(r.header)
		_ = cw.WriteAll(r.rows)
		return cw.Error()
	}
	for _, n := range r.lead {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	t := newTable(w)
	t.Header(r.header)
	if err := t.Bulk(r.rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, n := range r.notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

// writeOut writes a run's results into dir (--out): result.txt,
// result.csv and result.json, and the platform configuration used,
// platform.yaml, which --config reads back.
func (r result) writeOut(dir string, p platform.Platform) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	for _, f := range []struct{ name, format string }{{"result.txt", "table"}, {"result.csv", "csv"}, {"result.json", "json"}} {
		var b bytes.Buffer
		if err := r.write(&b, f.format); err != nil {
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
