package platform

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCountsAreReadAsWritten sets every parameter that takes a whole
// number (16, not 16.5) to the same texts, by --set and by a configuration file: each is
// read as decimal digits (units.ParseInt), so 16 is 16 and 0x10, 010,
// 1_6, 1e3, +16 and 16.0 are refused with what to write instead.
func TestCountsAreReadAsWritten(t *testing.T) {
	var keys []string
	for _, q := range Params() {
		p, frac := Default(), Default()
		if p.Set(q.Key, "16") == nil && q.Get(&p) == "16" && frac.Set(q.Key, "16.5") != nil {
			keys = append(keys, q.Key)
		}
	}
	require.Subset(t, keys, []string{"ace.fsms", "training.iterations", "ace.port_bytes", "ace.ports_per_bank", "training.batch",
		"links.intra.latency", "links.tx_buffer", "baseline.launch"})
	tests := []struct {
		text string
		msg  string // what the error names; "" when it reads 16
	}{
		{text: "16"},
		{text: " 16 "},
		{text: "0x10", msg: "no base prefix (acemu reads decimal only); write 16"},
		{text: "020", msg: "leading zero, which some readers take as octal; write 20 (or 16 if octal was meant)"},
		{text: "1_6", msg: "no underscores; write 16"},
		{text: "1.6e1", msg: "no decimal point or exponent; write 16"},
		{text: "+16", msg: "no plus sign; write 16"},
		{text: "16.0", msg: "write 16"},
		{text: "16.5", msg: `"16.5" is not a whole number`},
		{text: "99999999999999999999", msg: "out of range"},
	}
	for _, key := range keys {
		for _, tc := range tests {
			t.Run(key+"="+tc.text, func(t *testing.T) {
				p := Default()
				err := p.Set(key, tc.text)
				q, _ := Lookup(key)
				f := Default()
				ferr := f.Load("cfg.yaml", []byte(configText(key, tc.text)))
				if tc.msg == "" {
					require.NoError(t, err)
					require.NoError(t, ferr)
					require.Equal(t, "16", q.Get(&p))
					require.Equal(t, "16", q.Get(&f))
					return
				}
				require.ErrorContains(t, err, tc.msg)
				require.ErrorContains(t, ferr, tc.msg)
				require.ErrorContains(t, ferr, "cfg.yaml:")
			})
		}
	}
}

// configText is a configuration file setting key (a.b or a.b.c) to text,
// quoted so that YAML passes it on as written.
func configText(key, text string) string {
	out, indent := "", ""
	parts := strings.Split(key, ".")
	for i, k := range parts {
		if i == len(parts)-1 {
			return out + indent + k + ": '" + text + "'\n"
		}
		out += indent + k + ":\n"
		indent += "  "
	}
	return out
}
