package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A sweep's points may be given in any order: fig5 and fig6 print the same
// bytes, rows in order of the resource, and the threshold is the least
// resource reaching 90 % of ideal, not the first one listed that does.
func TestReproduceThresholdsDoNotDependOnTheOrderOfTheSweep(t *testing.T) {
	for _, tc := range []struct {
		fig, flag, sorted, permuted, key string
	}{
		{"fig5", "--mem", "128,450,900", "900,128,450", "mem_gbps_to_reach_90pct_of_ideal"},
		{"fig6", "--sms", "2,8,16", "16,2,8", "sms_to_reach_90pct_of_ideal"},
	} {
		for _, format := range []string{"table", "json", "csv"} {
			args := []string{"reproduce", tc.fig, "--topos", "4x2x1", "--size", "128KiB", "--format", format, tc.flag}
			code, want, errOut := runCLI(append(args, tc.sorted)...)
			require.Equal(t, 0, code, errOut)
			code, got, errOut := runCLI(append(args, tc.permuted)...)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, want, got, "%s %s %s", tc.fig, tc.flag, format)
			if format != "json" {
				continue
			}
			var doc struct {
				Rows []struct {
					Mem   int64   `json:"comm_mem_gbps"`
					SMs   int64   `json:"comm_sms"`
					Base  float64 `json:"baseline_network_gbps_per_npu"`
					Ideal float64 `json:"ideal_network_gbps_per_npu"`
				} `json:"rows"`
			}
			var th map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(got), &doc))
			require.NoError(t, json.Unmarshal([]byte(got), &th))
			least := int64(0)
			for _, r := range doc.Rows {
				if v := r.Mem + r.SMs; r.Base >= 0.9*r.Ideal && (least == 0 || v < least) {
					least = v
				}
			}
			require.NotZero(t, least, "the sweep reaches 90 %% of ideal at some point")
			var ths []struct {
				Baseline int64 `json:"baseline"`
			}
			require.NoError(t, json.Unmarshal(th[tc.key], &ths))
			require.Len(t, ths, 1)
			require.Equal(t, least, ths[0].Baseline, "%s: the least point reaching it", tc.fig)
		}
	}
}
