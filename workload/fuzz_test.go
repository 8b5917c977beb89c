package workload

import (
	"bytes"
	"os"
	"testing"
)

// seedFiles adds the files under dir as seeds (testdata's own workloads),
// and a few broken ones.
func seedFiles(f *testing.F, paths ...string) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])                                    // truncated
		f.Add(bytes.ReplaceAll(b, []byte("\n"), []byte("\r"))) // CR-only line ends
	}
	f.Add([]byte{})
	f.Add([]byte("\x00\x01\x02binary"))
}

// FuzzParseAstraSim: no file panics or takes memory beyond its size's
// worth; a file that parses is a valid workload.
func FuzzParseAstraSim(f *testing.F) {
	seedFiles(f, "../testdata/astrasim/DLRM_HybridParallel.txt", "../testdata/astrasim/Resnet50_DataParallel.txt",
		"../testdata/astrasim/Transformer_HybridParallel_Fwd_In_Bckwd.txt", "../testdata/astrasim/sample_per_layer_parallel_HybridCustomized.txt",
		"../testdata/astrasim/microAllToAll.txt")
	f.Add([]byte("DATA\n1000000000\n"))
	f.Add([]byte("DATA\n1\nl -1 1 ALLREDUCE 99999999999999999999 1 NONE 0 1 NONE 0 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseAstraSim(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("parsed to an invalid workload: %v", err)
		}
	})
}

// FuzzParseBuiltin: the built-in workloads' CSV reader likewise.
func FuzzParseBuiltin(f *testing.F) {
	seedFiles(f, "builtin/resnet50.csv", "builtin/gnmt.csv", "builtin/dlrm.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := parseBuiltin("fuzz.csv", data)
		if err != nil {
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("parsed to an invalid workload: %v", err)
		}
	})
}
