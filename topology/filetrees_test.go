package topology

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ring4 is four NPUs in a ring of links, each way.
const ring4 = `nodes: 4
links:
  - {from: 0, to: 1, bandwidth: 100, latency: 10}
  - {from: 1, to: 0, bandwidth: 100, latency: 10}
  - {from: 1, to: 2, bandwidth: 100, latency: 10}
  - {from: 2, to: 1, bandwidth: 100, latency: 10}
  - {from: 2, to: 3, bandwidth: 100, latency: 10}
  - {from: 3, to: 2, bandwidth: 100, latency: 10}
  - {from: 3, to: 0, bandwidth: 100, latency: 10}
  - {from: 0, to: 3, bandwidth: 100, latency: 10}
`

// A file's trees are its machine's, each the parent of every NPU with -1
// for the root (the file writes the root as its own parent).
func TestFileTreesAreTheMachines(t *testing.T) {
	f, err := Load("t.yaml", []byte(ring4+"trees:\n  - [1, 1, 1, 2]\n  - [3, 0, 3, 3]\n"))
	require.NoError(t, err)
	m, err := f.Machine()
	require.NoError(t, err)
	require.Equal(t, [][]int{{1, -1, 1, 2}, {3, 0, 3, -1}}, m.Trees)
	f, err = Load("t.yaml", []byte(ring4))
	require.NoError(t, err)
	m, err = f.Machine()
	require.NoError(t, err)
	require.Nil(t, m.Trees, "no trees: the tree algorithms take NCCL's")
}

// Trees a file cannot mean are refused, naming the tree and the fix.
func TestFileTreesRefused(t *testing.T) {
	for _, tc := range []struct{ name, trees, want string }{
		{"short", "  - [0, 0, 0]\n", "trees[0]: 3 parents; give the parent of every NPU 0 to 3"},
		{"off the machine", "  - [0, 0, 4, 0]\n", "NPU 2's parent 4 is not an NPU"},
		{"two roots", "  - [0, 1, 0, 0]\n", "NPUs 0 and 1 are both their own parent"},
		{"no root", "  - [1, 0, 3, 2]\n", "no NPU is its own parent"},
		{"cycle", "  - [0, 2, 3, 1]\n", "NPU 1 does not reach the root 0 through its parents"},
		{"three trees", "  - [0, 0, 0, 0]\n  - [0, 0, 0, 0]\n  - [0, 0, 0, 0]\n", "3 trees; give at most 2"},
		{"hex", "  - [0, 0, 0x0, 0]\n", `trees "0x0"`},
		{"negative", "  - [-1, 0, 0, 0]\n", "NPU 0's parent -1 is not an NPU; give one of 0 to 3 (the root its own id)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("t.yaml", []byte(ring4+"trees:\n"+tc.trees))
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.True(t, strings.HasPrefix(err.Error(), "t.yaml"), err.Error())
		})
	}
}
