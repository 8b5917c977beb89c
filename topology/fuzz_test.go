package topology

import (
	"os"
	"strings"
	"testing"

	"github.com/acemu/acemu/rtl"
)

// FuzzLoad: no topology file panics; one that loads has its NPU count in
// range, a route from every NPU to every other, and builds a network.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(line))
	f.Add([]byte(line[:len(line)/2]))
	f.Add([]byte("nodes: 4096\nlinks: []\n"))
	f.Add([]byte("nodes: 2\nlinks:\n  - {from: 0, to: 1, bandwidth: 1e999999GB/s, latency: 1}\n  - {from: 1, to: 0, bandwidth: 0GB/s, latency: -1}\n"))
	f.Add([]byte(`{"nodes": 2, "links": [{"from": 0, "to": 1, "bandwidth": "1GB/s", "latency": 1}, {"from": 1, "to": 0, "bandwidth": "1GB/s", "latency": 1}]}`))
	f.Add([]byte{})
	f.Add([]byte(twoSwitches))
	if b, err := os.ReadFile(gridFile); err == nil {
		f.Add(b)
	}
	f.Add([]byte("npus: 2\nswitches: 1\nlinks:\n  - {from: 0, to: 2, class: tier0, lanes: 2}\n  - {from: 2, to: 1, class: inter}\n  - {from: 1, to: 0, class: nvlink}\n"))
	f.Add([]byte("npus: 2\nswitches: [{name: a, ports: 9, latency: 2}]\nlinks: []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := Load("fuzz.yaml", data)
		if err != nil {
			return
		}
		if fl.N() < 2 || fl.N() > maxNodes {
			t.Fatalf("loaded %d nodes", fl.N())
		}
		for a := 0; a < fl.N(); a++ {
			for b := 0; b < fl.N(); b++ {
				if a == b {
					continue
				}
				if _, ok := fl.NextPort(a, b); !ok {
					t.Fatalf("no route from %d to %d", a, b)
				}
			}
		}
		if fl.N() <= 64 && len(fl.Links) <= 1024 {
			if _, err := fl.Build(rtl.NewKernel(), DefaultLinkSettings()); err != nil && !strings.Contains(err.Error(), "bandwidth") {
				t.Fatalf("a loaded file does not build: %v", err)
			}
		}
	})
}
