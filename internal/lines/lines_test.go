package lines

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEveryLineEnd(t *testing.T) {
	for _, in := range []string{"a\nb\n\nc", "a\r\nb\r\n\r\nc", "a\rb\r\rc", "a\nb\r\n\rc\r", "a\rb\n\r\nc\n"} {
		sc := bufio.NewScanner(strings.NewReader(in))
		sc.Split(Split)
		var got []string
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		require.NoError(t, sc.Err())
		require.Equal(t, []string{"a", "b", "", "c"}, got, "%q", in)
	}
	// A CR LF split across reads is one line end.
	sc := bufio.NewScanner(&oneByte{s: "a\r\nb"})
	sc.Split(Split)
	var got []string
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	require.Equal(t, []string{"a", "b"}, got)
}

// oneByte reads one byte at a time.
type oneByte struct{ s string }

func (o *oneByte) Read(p []byte) (int, error) {
	if o.s == "" {
		return 0, io.EOF
	}
	p[0] = o.s[0]
	o.s = o.s[1:]
	return 1, nil
}
