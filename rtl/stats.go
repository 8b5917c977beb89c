package rtl

// Mean returns the mean of xs rounded down, 0 for none: the per-NPU means
// of byte counts that reports print.
func Mean(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	var t int64
	for _, x := range xs {
		t += x
	}
	return t / int64(len(xs))
}
