package microcode

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParse: no listing panics; one that parses writes back (Write) to a
// listing that parses to the same text again.
func FuzzParse(f *testing.F) {
	text := strings.Join(base, "\n") + "\n"
	f.Add(text)
	f.Add(edit(8, "  0: send npu=99999999999999999999 port=local+ data=8+8 match=1 step=0"))
	f.Add(edit(4, "  view 0+9223372036854775807"))
	f.Add(edit(2, "npu 0 chunk 1000000000000"))
	f.Add(strings.ReplaceAll(text, "\n", "\r"))
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		secs, err := Parse("fuzz.ucode", strings.NewReader(s))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := Write(&b, secs); err != nil {
			return // a parsed listing Write's checks refuse: Install refuses it too
		}
		again, err := Parse("again.ucode", bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("written listing does not parse: %v\n%s", err, b.String())
		}
		var b2 bytes.Buffer
		if err := Write(&b2, again); err != nil || b2.String() != b.String() {
			t.Fatalf("listing changes on a second round (%v)", err)
		}
	})
}
