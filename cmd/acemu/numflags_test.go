package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/platform"
)

// intFlagCases are every integer flag of every command, with arguments
// that reach its parsing.
var intFlagCases = []struct {
	cmd  []string // the command and what it needs besides the flag
	flag string
}{
	{[]string{"--topo", "4x2x1"}, "fsms"},
	{[]string{"--topo", "4x2x1"}, "iterations"},
	{[]string{"--topo", "4x2x1"}, "sram-port-bytes"},
	{[]string{"--topo", "4x2x1"}, "workers"},
	{[]string{"collective"}, "comm-sms"},
	{[]string{"collective"}, "fsms"},
	{[]string{"collective"}, "sram-port-bytes"},
	{[]string{"microcode"}, "npu"},
	{[]string{"reproduce", "fig6"}, "fig6-mem"},
	{[]string{"reproduce", "fig5"}, "sram-port-bytes"},
	{[]string{"reproduce", "fig5"}, "workers"},
	{[]string{"sweep"}, "workers"},
}

// TestIntFlagsAreListed checks intFlagCases against the commands' help:
// a new integer flag must join the table below.
func TestIntFlagsAreListed(t *testing.T) {
	intFlag := regexp.MustCompile(`--([a-z0-9-]+) int\b`)
	var want, got []string
	for _, c := range intFlagCases {
		want = append(want, c.cmd[0]+" --"+c.flag)
	}
	for _, cmd := range [][]string{{"--topo"}, {"collective"}, {"microcode"}, {"reproduce"}, {"sweep"}, {"config", "dump"}, {"topology", "dump"}, {"version"}} {
		args := append(slices.Clone(cmd), "--help")
		if cmd[0] == "--topo" {
			args = []string{"--help"}
		}
		_, out, _ := runCLI(args...)
		for _, m := range intFlag.FindAllStringSubmatch(out, -1) {
			got = append(got, cmd[0]+" --"+m[1])
		}
	}
	require.NotEmpty(t, got)
	require.ElementsMatch(t, want, got)
}

// TestIntFlagsReadDecimal gives every integer flag of every command the
// forms pflag's own integer flags read in another sense (010 as 8) or
// take (0x10, 1_6): each is refused, naming the flag and what to write.
func TestIntFlagsReadDecimal(t *testing.T) {
	bad := []struct{ text, msg string }{
		{"010", "leading zero, which some readers take as octal; write 10 (or 8 if octal was meant)"},
		{"0x10", "no base prefix (acemu reads decimal only); write 16"},
		{"0o10", "write 8"},
		{"1_6", "no underscores; write 16"},
		{"1e3", "no decimal point or exponent; write 1000"},
		{"+5", "no plus sign; write 5"},
		{"5.0", "write 5"},
		{"1 6", "not a whole number"},
		{"", "empty"},
	}
	for _, c := range intFlagCases {
		for _, b := range bad {
			t.Run(c.cmd[0]+"/"+c.flag+"="+b.text, func(t *testing.T) {
				args := append(slices.Clone(c.cmd), "--"+c.flag, b.text)
				code, _, errOut := runCLI(args...)
				require.Equal(t, 2, code, "acemu %q", args)
				require.Contains(t, errOut, `for "--`+c.flag+`" flag: `)
				require.Contains(t, errOut, b.msg)
			})
		}
	}
}

// TestDecimalIntValue reads what the integer flags take, and writes it
// back in decimal digits.
func TestDecimalIntValue(t *testing.T) {
	tests := []struct {
		text string
		want int64
		err  string
	}{
		{text: "10", want: 10},
		{text: " 5", want: 5},
		{text: "0", want: 0},
		{text: "-1", want: -1},
		{text: "9223372036854775807", want: 1<<63 - 1},
		{text: "9223372036854775808", err: "beyond what acemu counts"},
		{text: "010", err: "write 10"},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			fs.SetOutput(new(strings.Builder))
			n := intFlag(fs, "n", 7, "")
			m := int64Flag(fs, "m", 7, "")
			require.Equal(t, "int", fs.Lookup("n").Value.Type())
			require.Equal(t, "int64", fs.Lookup("m").Value.Type())
			errN := fs.Parse([]string{"--n", tc.text})
			errM := fs.Parse([]string{"--m", tc.text})
			if tc.err != "" {
				require.ErrorContains(t, errN, tc.err)
				require.ErrorContains(t, errM, tc.err)
				require.Equal(t, 7, *n)
				return
			}
			require.NoError(t, errN)
			require.NoError(t, errM)
			require.Equal(t, int(tc.want), *n)
			require.Equal(t, tc.want, *m)
			require.Equal(t, strings.TrimSpace(tc.text), fs.Lookup("m").Value.String())
		})
	}
}

// TestSetAndFlagAgree gives the same text to a flag and to --set for the
// parameter it sets: both read it, to the same value, or both refuse it.
func TestSetAndFlagAgree(t *testing.T) {
	for _, text := range []string{"16", " 16", "010", "0x10", "1_6", "1e3", "+16", "16.0", "16.5", "-16", "", "abc", "99999999999999999999"} {
		for _, flag := range []string{"fsms", "iterations", "sram-port-bytes"} {
			t.Run(flag+"="+text, func(t *testing.T) {
				byFlag := pflag.NewFlagSet("t", pflag.ContinueOnError)
				byFlag.SetOutput(new(strings.Builder))
				registerACEFlags(byFlag)
				intFlag(byFlag, "iterations", platform.Default().Iterations, "")
				var p1 platform.Platform
				err1 := byFlag.Parse([]string{"--" + flag, text})
				if err1 == nil {
					p1, err1 = platformFlags{}.build(byFlag)
				}
				bySet := pflag.NewFlagSet("t", pflag.ContinueOnError)
				p2, err2 := platformFlags{sets: []string{flagKeys[flag] + "=" + text}}.build(bySet)
				require.Equal(t, err1 == nil, err2 == nil, "flag: %v; --set: %v", err1, err2)
				if err1 == nil {
					q, _ := platform.Lookup(flagKeys[flag])
					require.Equal(t, q.Get(&p2), q.Get(&p1))
					require.Equal(t, "16", q.Get(&p1))
				}
			})
		}
	}
}

// TestNumberListsReadDecimal gives the flags that take numbers in a list,
// a range or a parameter's value the forms read in another sense
// elsewhere: each is refused, naming the flag and what to write.
func TestNumberListsReadDecimal(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"reproduce", "fig5", "--topos", "4x2x1", "--mem", "32,0x40"}, `--mem "32,0x40": "0x40" is not a positive whole number ("0x40" is not a whole number in decimal digits: no base prefix`},
		{[]string{"reproduce", "fig6", "--topos", "4x2x1", "--sms", "1,010"}, `--sms "1,010": "010" is not a positive whole number ("010" has a leading zero`},
		{[]string{"reproduce", "fig9a", "--topos", "4x2x1", "--fsms", "4,1_6"}, `--fsms "4,1_6": "1_6" is not a positive whole number ("1_6" is not a whole number in decimal digits: no underscores; write 16)`},
		{[]string{"reproduce", "fig5", "--topos", "4x2x1", "--mem", "32", "--fsms", "1e3"}, `--fsms: ace.fsms = "1e3"`},
		{[]string{"--topo", "4x2x1", "--trace", "x.json", "--trace-npus", "0,0x1"}, `--trace-npus "0,0x1": "0x1" is not a whole number`},
		{[]string{"collective", "--topo", "4x4x1", "--group-npus", "0,5,10,015/1,6,11,12/2,7,8,13/3,4,9,14"}, `"015" has a leading zero, which some readers take as octal; write 15 (or 13 if octal was meant)`},
		{[]string{"collective", "--topo", "4x2x2", "--algorithm", "blueconnect", "--factors", "4x2x+2"}, `--factors "4x2x+2": "+2" is not a whole number in decimal digits: no plus sign; write 2`},
		{[]string{"sweep", "--topo", "4x2x1", "--shard", "01/2"}, `--shard "01/2": give i/n`},
		{[]string{"sweep", "--topo", "4x2x1", "--shard", "0/2.0"}, `no decimal point or exponent; write 2`},
		{[]string{"collective", "--topo", "4x2x1", "--pcap", "x.pcap", "--pcap-filter", "npu=0x1"}, `"0x1" is not a number from 0 or a range A-B: "0x1" is not a whole number`},
		{[]string{"collective", "--topo", "4x2x1", "--pcap", "x.pcap", "--pcap-filter", "cycles=0-1e3"}, `the range's end is not a number: "1e3"`},
		{[]string{"--topo", "4x2x1", "--compute", "roofline", "--batch", "032"}, `--batch: training.batch = "032": "032" has a leading zero`},
		{[]string{"collective", "--topo", "4x2x1", "--system", "ace", "--sram-ports", "0x2"}, `--sram-ports: ace.ports_per_bank = "0x2": use derived, literal or a number of ports from 1 to 64: "0x2" is not a whole number`},
		{[]string{"collective", "--topo", "4x2x1", "--set", "ace.fsms=0x10"}, `--set: ace.fsms = "0x10": "0x10" is not a whole number in decimal digits`},
		{[]string{"sweep", "--topo", "4x2x1", "--set", "ace.fsms=8,0x10"}, `ace.fsms = "0x10": "0x10" is not a whole number`},
		{[]string{"sweep", "--topo", "4x2x1", "--set", "ace.fsms=8..1_6:4"}, `range end: "1_6" is not a whole number in decimal digits: no underscores`},
		{[]string{"sweep", "--topo", "4x2x1", "--set", "ace.fsms=4..16:x02"}, `factor "02": give a number above 1 (e.g. x2): "02" has a leading zero`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Chdir(t.TempDir())
			code, _, errOut := runCLI(tc.args...)
			require.NotEqual(t, 0, code)
			require.Contains(t, errOut, tc.msg)
		})
	}
}
