// Command gen writes the emulator's built-in workloads, ResNet-50, GNMT and
// DLRM, as CSV files with one row per layer at the paper's batch
// (docs/workloads.md; the architectures and rules are package
// workload/models). Run it from the module root:
//
//	go run ./workload/builtin/gen -out workload/builtin
//
// It overwrites resnet50.csv, gnmt.csv and dlrm.csv in the output folder.
// The output is deterministic; a test compares the checked-in CSVs with it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acemu/acemu/workload/models"
)

func main() {
	out := flag.String("out", ".", "folder to write resnet50.csv, gnmt.csv and dlrm.csv into")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintf(os.Stderr, "gen: unexpected arguments %q; usage: gen [-out DIR]\n", flag.Args())
		os.Exit(2)
	}
	for _, name := range models.Names() {
		var b bytes.Buffer
		file, err := models.File(name)
		if err == nil {
			err = models.WriteCSV(&b, name, 0)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "gen: %s: %v\n", name, err)
			os.Exit(1)
		}
		path := filepath.Join(*out, file)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "gen: %v\n", err)
			os.Exit(1)
		}
		fmt.Println("wrote", path)
	}
}
