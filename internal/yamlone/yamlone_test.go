package yamlone

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestOneDocument(t *testing.T) {
	var n yaml.Node
	require.NoError(t, Decode([]byte("a: 1\n"), &n, false))
	require.Equal(t, yaml.DocumentNode, n.Kind)
	var e yaml.Node
	require.NoError(t, Decode(nil, &e, false))
	require.Equal(t, yaml.Kind(0), e.Kind, "empty: nothing decoded")
	require.ErrorContains(t, Decode([]byte("a: 1\n---\nb: 2\n"), &n, false), "line 2: a second document")
	var s struct{ A int }
	require.ErrorContains(t, Decode([]byte("b: 1\n"), &s, true), "field b not found")
	require.Error(t, Decode([]byte("a: [\n"), &n, false))
}
