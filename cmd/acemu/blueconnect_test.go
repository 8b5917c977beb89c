package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// blueRun is what these tests read of acemu collective's JSON.
type blueRun struct {
	Cycles int64 `json:"cycles"`
	Bytes  int64 `json:"bytes_sent_per_npu"`
	DataOK *bool `json:"data_ok"`
}

func runBlue(t *testing.T, args ...string) blueRun {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"collective", "--format", "json"}, args...)...)
	require.Equal(t, 0, code, "%v: %s", args, errOut)
	var r blueRun
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	return r
}

// Bytes sent per NPU in timed runs on every endpoint that reports them
// ("BlueConnect: Novel Hierarchical All-Reduce on Multi-tired Network for Deep
// Learning", Section 3): BlueConnect's are the flat ring's, 2(P−1)/P·N,
// whatever the factorisation; two-level's are more (its masters carry the
// whole N among themselves, and the gather and scatter pass blocks along the
// chain; verify.TestBlueConnectBaselinesStepsAndBytes works them out):
//
//	(3,2,2), N = 24576: ring and BlueConnect 2·11/12·N = 45056; two-level 2.5 N = 61440
//	(4,4,4), N = 65536: ring and BlueConnect 2·63/64·N = 129024; two-level 2.71875 N = 178176
//
// N divides into every ring's blocks in both directions, so the counts are
// exact; each run checks its sums too.
func TestBlueConnectBytesOnEveryEndpoint(t *testing.T) {
	tests := []struct {
		topo, size     string
		ring, twoLevel int64
	}{
		{"switch:3x2x2", "24576", 45056, 61440},
		{"3x2x2", "24576", 45056, 61440},
		{"switch:4x4x4", "65536", 129024, 178176},
		{"4x4x4", "65536", 129024, 178176},
	}
	for _, tc := range tests {
		for _, system := range []string{"ideal", "baseline-commopt", "ace"} {
			for alg, want := range map[string]int64{"ring": tc.ring, "blueconnect": tc.ring, "two-level": tc.twoLevel} {
				t.Run(tc.topo+"/"+system+"/"+alg, func(t *testing.T) {
					r := runBlue(t, "--topo", tc.topo, "--size", tc.size, "--system", system, "--algorithm", alg, "--check-data")
					require.Equal(t, want, r.Bytes)
					require.True(t, *r.DataOK)
				})
			}
		}
	}
}

// fig1Links are the BlueConnect paper's Fig. 1 bandwidths on switch:3x2x2
// (Section 2.1): w0 = 32 GB/s (NVLink, "around 32GB/s per lane") for the
// NPU–leaf links, w1 = 100 Gbps = 12.5 GB/s for the leaf uplinks; w2 =
// 200 Gbps = 25 GB/s for the spine uplinks is Table V's inter-package link,
// which tier 2 follows unset. A message is one chunk (--chunk = --message =
// N: the α-β model has no pipelining), so each ring step is one message
// per direction.
var fig1Links = []string{"--topo", "switch:3x2x2", "--set", "links.tier0.bandwidth=32GB/s", "--set", "links.tier1.bandwidth=12.5GB/s"}

// timeOf runs an all-reduce of size on fig1Links with the extra settings
// and returns its cycles.
func timeOf(t *testing.T, alg, size string, extra ...string) int64 {
	t.Helper()
	args := append(append([]string{"--algorithm", alg, "--size", size, "--chunk", size, "--message", size}, fig1Links...), extra...)
	return runBlue(t, args...).Cycles
}

// The ranking of BlueConnect, two-level and the flat ring in acemu's timed
// runs follows the α-β model's in both of its regimes (the BlueConnect
// paper's Eqs. (3), (4) and (6) for Fig. 1's p = (3,2,2), w = (32, 12.5,
// 25) GB/s; the per-stream share of an uplink is w_t over the learners
// under it, which acemu's single shared uplink per switch models). acemu
// is packet-level with store-and-forward switches, not α-β, so only the
// order is asserted.
//
// (a) Latency regime, α = 10 µs, N = 96 KB (the paper's 1 MB scaled down,
// the α terms still dominant):
//
//	flat ring (Eq. 3)   22α + 2·(11/12)·N/w1                          = 220 + 14.08 = 234.1 µs
//	two-level (Eq. 4)   2T_c(3) + 2T_r(3) + 2T_c(4, N, w1)             = 35.70 + 44.00 + 51.52 = 131.2 µs
//	  (with rings for T_c, as acemu builds it: 14α + 4·(2/3)·N/w0 + 2·(3/4)·N/w1 = 159.5 µs)
//	BlueConnect (Eq. 6) 2[(2α + (2/3)N/w0) + (α + (N/6)/(w1/3)) + (α + (N/12)/(w1/3))] = 95.5 µs
//
// so BlueConnect < two-level < flat ring. α is a message's latency: each
// NPU–leaf link takes α/2 = 6225 cycles (5 µs at 1245 MHz; a message
// crosses two), the links above 1 cycle, and each link's receive buffer
// holds 4096 packets (1 MiB), more than the bandwidth-delay product (two
// latencies of 6225 cycles at 32 GB/s·0.94 ≈ 301 KB), so that latency
// adds α without throttling the link by credits, as α-β assumes.
//
// (b) Bandwidth regime, α ≈ 0 (every link 1 cycle), N = 1.2 MB (the
// paper's 100 MB scaled down):
//
//	flat ring    2·(11/12)·N/w1                                  = 176 µs
//	BlueConnect  2[(2/3)N/w0 + (N/6)/(w1/3) + (N/12)/(w1/3)]     = 2(25 + 48 + 24) = 194 µs
//	two-level    4·(2/3)·N/w0 + 2·(3/4)·N/w1                     = 100 + 144 = 244 µs
//
// so flat ring < BlueConnect < two-level: at these bandwidths (w0 < 4·w1)
// BlueConnect's intra-node stages cost more than the flat ring saves.
func TestBlueConnectRankingFollowsTheAlphaBetaModel(t *testing.T) {
	latency := []string{"--set", "links.tier0.latency=6225", "--set", "links.tier1.latency=1", "--set", "links.tier2.latency=1", "--set", "links.rx_buffer=4096"}
	bandwidth := []string{"--set", "links.tier0.latency=1", "--set", "links.tier1.latency=1", "--set", "links.tier2.latency=1"}
	tests := []struct {
		regime string
		size   string
		extra  []string
		order  []string // fastest first
	}{
		{"latency", "96KB", latency, []string{"blueconnect", "two-level", "ring"}},
		{"bandwidth", "1.2MB", bandwidth, []string{"ring", "blueconnect", "two-level"}},
	}
	for _, tc := range tests {
		t.Run(tc.regime, func(t *testing.T) {
			var times []int64
			for _, alg := range tc.order {
				times = append(times, timeOf(t, alg, tc.size, tc.extra...))
			}
			for i := 1; i < len(times); i++ {
				require.Less(t, times[i-1], times[i], "%s before %s in the %s regime (cycles %v)", tc.order[i-1], tc.order[i], tc.regime, times)
			}
		})
	}
}

// acemu reproduce blueconnect-fig3 --quick on small fabrics prints a row
// per fabric with the model's bandwidth terms beside acemu's; Fig. 1's
// fabric (switch:3x2x2, tiers 32/12.5/25 GB/s) has the model's 1 MB
// values of TestBlueConnectModelByHand scaled by 1/100: 0.147, 0.203 and
// 0.162 ms. Its own flags are refused where they do not apply.
func TestReproduceBlueConnectFig3Quick(t *testing.T) {
	code, out, errOut := runCLI("reproduce", "blueconnect-fig3", "--quick", "--topos", "switch:4x2,switch:3x2x2", "--format", "csv")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	require.Equal(t, "fabric,GPUs,tier GB/s,Ring ms,GLOO ms,BLC ms,model Ring ms,model GLOO ms,model BLC ms", lines[0])
	require.True(t, strings.HasPrefix(lines[2], "switch:3x2x2,12,32/12.5/25,"), lines[2])
	require.True(t, strings.HasSuffix(lines[2], ",0.147,0.203,0.162"), lines[2])

	requireRefused(t, 1, "ccube-fig13 has no quick subset", "reproduce", "ccube-fig13", "--quick")
	requireRefused(t, 1, "give --quick or --size, not both", "reproduce", "blueconnect-fig3", "--quick", "--size", "2MB", "--topos", "switch:4")
	requireRefused(t, 1, "switch fabric", "reproduce", "blueconnect-fig3", "--quick", "--topos", "4x4x4")
	requireRefused(t, 1, "--systems", "reproduce", "blueconnect-fig3", "--quick", "--systems", "ace")
}
