package topology

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFileNumbersAreReadAsWritten refuses a topology file's number that
// YAML would round or read in another base, naming the key, the text and
// the line, in the YAML and JSON forms, and a link without a latency.
func TestFileNumbersAreReadAsWritten(t *testing.T) {
	const ring = "  - {from: 1, to: 0, bandwidth: 10GB/s, latency: 5}\n"
	tests := []struct {
		name, text, msg string // msg "" for a file read
	}{
		{"as written", "nodes: 2\nlinks:\n  - {from: 0, to: 1, bandwidth: 10GB/s, latency: 5}\n" + ring, ""},
		{"latency zero", "nodes: 2\nlinks:\n  - {from: 0, to: 1, bandwidth: 10GB/s, latency: 0}\n" + ring, ""},
		{"class gives latency", "nodes: 2\nlinks:\n  - {from: 0, to: 1, class: inter}\n" + ring, ""},
		{"latency fraction", "nodes: 2\nlinks:\n  - {from: 0, to: 1, bandwidth: 10GB/s, latency: 1.9}\n" + ring,
			`t.yaml: line 3: latency "1.9": "1.9" is not a whole number in decimal digits; write e.g. 16 (digits 0-9 only) (a topology file's latency is a whole number)`},
		{"nodes point", "nodes: 3.0\nlinks:\n" + ring, `t.yaml: line 1: nodes "3.0": "3.0" is not a whole number in decimal digits: no decimal point or exponent; write 3`},
		{"npus hex", "npus: 0x2\nswitches: 1\nlinks:\n" + ring, `line 1: npus "0x2"`},
		{"from octal", "nodes: 2\nlinks:\n  - {from: 00, to: 1, bandwidth: 10GB/s, latency: 5}\n" + ring, `line 3: from "00": "00" has a leading zero`},
		{"to underscore", "nodes: 2\nlinks:\n  - {from: 0, to: 0_1, bandwidth: 10GB/s, latency: 5}\n" + ring, `line 3: to "0_1"`},
		{"lanes exponent", "nodes: 2\nlinks:\n  - {from: 0, to: 1, bandwidth: 10GB/s, latency: 5, lanes: 2e0}\n" + ring, `line 3: lanes "2e0": "2e0" is not a whole number in decimal digits: no decimal point or exponent; write 2`},
		{"switch count point", "npus: 2\nswitches: 1.0\nlinks:\n" + ring, `line 2: switches "1.0"`},
		{"switch ports", "npus: 2\nswitches:\n  - {name: s, ports: 04, latency: 1}\nlinks:\n" + ring, `line 3: ports "04": "04" has a leading zero`},
		{"switch latency", "npus: 2\nswitches:\n  - {name: s, latency: 1.5}\nlinks:\n" + ring, `line 3: latency "1.5"`},
		{"group member", "nodes: 2\nlinks:\n  - {from: 0, to: 1, bandwidth: 10GB/s, latency: 5}\n" + ring + "dims:\n  - {name: x, groups: [[0, 1.0]]}\n",
			`line 6: groups "1.0"`},
		{"plus sign", "nodes: +2\nlinks:\n" + ring, `line 1: nodes "+2": "+2" is not a whole number in decimal digits: no plus sign; write 2`},
		{"json latency", `{"nodes": 2, "links": [{"from": 0, "to": 1, "bandwidth": "10GB/s", "latency": 1.9}, {"from": 1, "to": 0, "bandwidth": "10GB/s", "latency": 5}]}`,
			`line 1: latency "1.9"`},
		{"json exponent", `{"nodes": 2e0, "links": []}`, `line 1: nodes "2e0"`},
		{"no latency", "nodes: 2\nlinks:\n  - {from: 0, to: 1, bandwidth: 10GB/s}\n" + ring,
			"t.yaml: link 1 (0 → 1): no latency: give latency in cycles (latency: 0 for none) or a class"},
		{"no latency json", `{"nodes": 2, "links": [{"from": 0, "to": 1, "bandwidth": "10GB/s", "latency": 5}, {"from": 1, "to": 0, "bandwidth": "10GB/s"}]}`,
			"t.yaml: link 2 (1 → 0): no latency"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Load("t.yaml", []byte(tc.text))
			if tc.msg == "" {
				require.NoError(t, err)
				require.Equal(t, 2, f.NPUs)
				return
			}
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

// TestSwitchFanoutsAreReadAsWritten reads switch:P0xP1's fan-outs by the
// rule of every number.
func TestSwitchFanoutsAreReadAsWritten(t *testing.T) {
	tests := []struct{ spec, msg string }{
		{"switch:4x4", ""},
		{"switch:4x 4", ""},
		{"switch:04x4", `tier 0's fan-out "04" is not a whole number ("04" has a leading zero`},
		{"switch:4x+4", "no plus sign; write 4"},
		{"switch:4x4.0", "no decimal point or exponent; write 4"},
		{"switch:4x99999999999999999999", "tier 1's fan-out 99999999999999999999: give 2 to 4096"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := ParseSwitched(tc.spec)
			if tc.msg == "" {
				require.NoError(t, err)
				require.Equal(t, []int{4, 4}, s.Fanout)
				return
			}
			require.ErrorContains(t, err, tc.msg)
		})
	}
}
