package compare

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/train"
)

// The issue policies on every endpoint, end to end (two iterations of the
// five-layer profile on a ring of 4 NPUs; docs/training-loop.md, "Issue
// policies"). With no copies and keys in back-prop order Funnel and DepCha
// issue every all-reduce at the same cycle, once the one before it has
// ended and its gradients exist, and the next forward pass starts when the
// last (layer 0's) has ended, in both: they take the same cycles on each
// endpoint. ConCum with a limit of 1 barriers after every key, which is
// Funnel. Copies only add: Funnel with them is slower than without. The
// report names the policy; baseline-nooverlap is the same under every one.
func TestIssuePoliciesOnEveryEndpoint(t *testing.T) {
	m, err := topology.Parse("4x1x1")
	require.NoError(t, err)
	o := Options{Machine: m, Workload: profile(t, false), Systems: presets(t, "ideal", "baseline-commopt", "ace", "baseline-nooverlap")}
	run := func(p train.IssuePolicy) *Report {
		o.Issue = p
		r, err := Run(o)
		require.NoError(t, err)
		return r
	}
	eager := run(train.IssuePolicy{})
	funnel := run(train.IssuePolicy{Kind: train.IssueFunnel})
	depcha := run(train.IssuePolicy{Kind: train.IssueDepCha})
	concum1 := run(train.IssuePolicy{Kind: train.IssueConCum, Outstanding: 1})
	copies := run(train.IssuePolicy{Kind: train.IssueFunnel, CopyGBps: big.NewRat(1, 1)})
	assert.Empty(t, eager.IssuePolicy)
	assert.Equal(t, "funnel, keys in backward order", funnel.IssuePolicy)
	assert.Equal(t, "funnel, keys in backward order, gradient copies at 1GB/s", copies.IssuePolicy)
	for i, s := range o.Systems {
		assert.Equal(t, funnel.Systems[i].TotalCycles, depcha.Systems[i].TotalCycles, s.Name)
		assert.Equal(t, funnel.Systems[i].TotalCycles, concum1.Systems[i].TotalCycles, s.Name)
		if s.Overlap {
			assert.Greater(t, copies.Systems[i].TotalCycles, funnel.Systems[i].TotalCycles, s.Name)
		} else {
			assert.Equal(t, eager.Systems[i].TotalCycles, funnel.Systems[i].TotalCycles, s.Name)
			assert.Equal(t, eager.Systems[i].TotalCycles, copies.Systems[i].TotalCycles, s.Name)
		}
	}
}
