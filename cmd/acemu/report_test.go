package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acemu/acemu/validation"
)

// Every figure acemu reproduce runs by name is in the validation
// registry, which holds the platform keys it does not take.
func TestEveryReproduceFigureIsRegistered(t *testing.T) {
	for _, f := range figures {
		_, ok := validation.Lookup(f.name)
		require.True(t, ok, f.name)
	}
}
