package platform

import (
	"bytes"
	"testing"
)

// FuzzLoad: no configuration file panics; one that loads is valid, and
// its dump loads back to the same dump.
func FuzzLoad(f *testing.F) {
	d, err := Default().Dump()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(d)
	f.Add(d[:len(d)/2])
	f.Add([]byte("ace:\n  sram: 8MiB\n  fsms: 20\n"))
	f.Add([]byte(`{"ace": {"sram": "1MiB"}, "links": {"efficiency": "47/50"}}`))
	f.Add([]byte("ace: [1, 2]\n"))
	f.Add([]byte("npu:\n  compute_speed: 1e999999\n"))
	f.Add([]byte("a: &a [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := Default()
		if err := p.Load("fuzz.yaml", data); err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("loaded an invalid platform: %v", err)
		}
		dump, err := p.Dump()
		if err != nil {
			t.Fatal(err)
		}
		q := Default()
		if err := q.Load("dump.yaml", dump); err != nil {
			t.Fatalf("its dump does not load: %v", err)
		}
		again, _ := q.Dump()
		if !bytes.Equal(dump, again) {
			t.Fatalf("the dump changes on a second round")
		}
	})
}
