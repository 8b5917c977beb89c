package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/acemu/acemu/internal/buildinfo"
	"github.com/acemu/acemu/platform"
)

// FuzzSpec: no sweep file or --set list panics or builds a grid beyond
// MaxPoints; a spec that is accepted is written in canonical values (each
// axis value reads back as itself: Set then Get), survives its own
// sweep.json (decoded, it passes check and encodes the same), and numbers
// its points without gaps or repeats.
func FuzzSpec(f *testing.F) {
	f.Add([]byte("set:\n  ace.sram: [1MiB, 4MiB]\n  ace.fsms: 4..16:4\nworkloads: [dlrm]\ntopologies: [4x2x1]\nsystems: [ace]\n"), "ace.fsms=4..20:4")
	f.Add([]byte("set: {ace.sram: 64KiB..1GiB:1B}\n"), "ace.sram=1MiB..8MiB:x2")
	f.Add([]byte("reference: {ace.fsms: 16}\n"), "npu.compute_speed=0.01..1000:x1.0001")
	f.Add([]byte("{}"), "links.tx_buffer=1..65536:1")
	f.Add([]byte("set: [a]"), "ace.partition=little,paper")
	f.Add([]byte("set:\n  ace.sram: [1024KiB, 4MiB]\n"), "ace.fsms=16,8")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		file, err := ReadFile("fuzz.yaml", data)
		if err != nil {
			return
		}
		s, err := New(Request{Base: platform.Default(), Sets: append(file.Sets, set), Workloads: []string{"dlrm"},
			Topologies: []string{"4x2x1"}, Systems: []string{"ace"}, Reference: file.Reference})
		if err != nil {
			return
		}
		if s.Len() < 1 || s.Len() > MaxPoints {
			t.Fatalf("%d points", s.Len())
		}
		for _, a := range s.Axes {
			q, ok := platform.Lookup(a.Key)
			if !ok {
				t.Fatalf("axis %s: no such parameter", a.Key)
			}
			p := s.basePlatform()
			for _, v := range a.Values {
				if err := p.Set(a.Key, v); err != nil || q.Get(&p) != v {
					t.Fatalf("axis %s: value %q is not canonical (reads back %q, %v)", a.Key, v, q.Get(&p), err)
				}
			}
		}
		var back Spec
		if err := json.Unmarshal(s.encode(), &back); err != nil {
			t.Fatalf("its sweep.json does not decode: %v", err)
		}
		if err := back.check(); err != nil {
			t.Fatalf("its sweep.json fails the check: %v", err)
		}
		if !bytes.Equal(back.encode(), s.encode()) {
			t.Fatal("its sweep.json encodes another spec")
		}
		seen := map[string]bool{}
		for i := 0; i < s.Len(); i++ {
			pt := s.Point(i)
			key := fmt.Sprint(pt.Values, pt.Workload, pt.Topology)
			if seen[key] {
				t.Fatalf("point %d repeats %s", i, key)
			}
			seen[key] = true
		}
	})
}

// FuzzStoredPoint: no point file panics when read back, a refused one's
// message names the file and the fix, and an accepted one, written again
// by acemu, reads back as itself.
func FuzzStoredPoint(f *testing.F) {
	s, err := New(Request{Base: platform.Default(), Sets: []string{"ace.fsms=8,16", "training.iterations=1"},
		Workloads: []string{"dlrm"}, Topologies: []string{"4x2x1"}, Systems: []string{"ace", "ideal"}})
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range []string{"good", "cycles", "hash", "index", "workload", "oldpoint"} {
		b, err := os.ReadFile(filepath.Join("../testdata/badinput/stored", name, "points/000001.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dev := buildinfo.Build{Version: "(devel)", Commit: "unknown"}
	fp := s.fingerprint()
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := decodePoint("000001.json", data, s, fp, dev, "delete it")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "000001.json: ") || !strings.HasSuffix(err.Error(), "; delete it") {
				t.Fatalf("the message does not name the file and the fix: %v", err)
			}
			return
		}
		rec, err := encodePoint(*p, dev)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodePoint("000001.json", rec, s, fp, dev, "delete it")
		if err != nil {
			t.Fatalf("an accepted point does not read back: %v", err)
		}
		if !reflect.DeepEqual(back, p) {
			t.Fatal("an accepted point reads back as another")
		}
	})
}
