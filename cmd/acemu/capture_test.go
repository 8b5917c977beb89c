package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acemu/acemu/capture"
	"github.com/google/gopacket"
	"github.com/google/gopacket/pcapgo"
	"github.com/stretchr/testify/require"
)

// countCapture reads a capture file back through the gopacket layer and
// counts its packets.
func countCapture(t *testing.T, path string) int {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	require.NoError(t, err)
	n := 0
	for p := range gopacket.NewPacketSource(r, r.LinkType()).Packets() {
		require.NotNil(t, p.Layer(capture.LayerType))
		n++
	}
	return n
}

// --pcap writes a capture and changes nothing the command prints; with
// several systems each gets its own file.
func TestPcapLeavesTheOutputAlone(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args  []string
		files []string
	}{
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--full"}, []string{"run.pcap"}},
		{[]string{"collective", "--topo", "4x2x2", "--size", "1MiB", "--system", "ace"}, []string{"run.pcap"}},
		{[]string{"--workload", "dlrm", "--topo", "4x2x1", "--systems", "ideal,ace", "--iterations", "1"}, []string{"run.ideal.pcap", "run.ace.pcap"}},
	} {
		code, plain, _ := runCLI(tc.args...)
		require.Equal(t, 0, code)
		code, captured, errOut := runCLI(append(tc.args, "--pcap", filepath.Join(dir, "run.pcap"))...)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, plain, captured, "%v", tc.args)
		for _, f := range tc.files {
			require.Positive(t, countCapture(t, filepath.Join(dir, f)), f)
		}
	}
}

func TestPcapErrors(t *testing.T) {
	code, _, errOut := runCLI("collective", "--topo", "4x1x1", "--pcap", filepath.Join(t.TempDir(), "x.pcap"), "--pcap-filter", "npu=a")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `--pcap-filter: packet filter term "npu=a"`)
	code, _, errOut = runCLI("--workload", "dlrm", "--topo", "4x1x1", "--pcap", "/nonexistent/dir/x.pcap")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "--pcap: open /nonexistent/dir/x.baseline-nooverlap.pcap")
}
