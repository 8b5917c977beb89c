package units

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	good := []struct {
		in   string
		want int64
	}{
		{"64MiB", 64 << 20},
		{"64 MiB", 64 << 20},
		{"8KiB", 8192},
		{"8kib", 8192},
		{"1GiB", 1 << 30},
		{"64MB", 64_000_000},
		{"8KB", 8000},
		{"1.5GB", 1_500_000_000},
		{"4096", 4096},
		{"4096B", 4096},
		{"0.5KiB", 512},
		{"64M", 64 << 20},
	}
	for _, tc := range good {
		got, err := ParseSize(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	bad := []struct{ in, msg string }{
		{"", "empty"},
		{"abc", "not a number"},
		{"64XB", "not a number"},
		{"0", "at least 1 byte"},
		{"-5MiB", "at least 1 byte"},
		{"0.3B", "at least 1 byte"},
		{"1.0001KB", "whole number"},
		{"2PiB", "not a number"}, // PiB is not a unit
		{"9999TB", "1 PiB"},
		{"NaN", "not a number"},
	}
	for _, tc := range bad {
		_, err := ParseSize(tc.in)
		require.ErrorContains(t, err, tc.msg, tc.in)
	}
}
