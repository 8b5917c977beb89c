package collectives

// Gather copies the values of view range r out of a chunk's values (one
// value per byte of the chunk): what a Send of r carries.
func Gather(vals []int64, view []Range, r Range) []int64 {
	out := make([]int64, 0, r.Len)
	off := r.Off
	for _, v := range view {
		if off >= v.Len {
			off -= v.Len
			continue
		}
		n := min(v.Len-off, r.Len-int64(len(out)))
		out = append(out, vals[v.Off+off:v.Off+off+n]...)
		off = 0
		if int64(len(out)) == r.Len {
			break
		}
	}
	return out
}

// Scatter adds (reduce) or stores src into view range r of a chunk's
// values: what a Recv of r does with its message.
func Scatter(vals []int64, view []Range, r Range, src []int64, reduce bool) {
	off := r.Off
	for _, v := range view {
		if len(src) == 0 {
			return
		}
		if off >= v.Len {
			off -= v.Len
			continue
		}
		n := min(v.Len-off, int64(len(src)))
		dst := vals[v.Off+off : v.Off+off+n]
		if reduce {
			for i := range dst {
				dst[i] += src[i]
			}
		} else {
			copy(dst, src[:n])
		}
		src = src[n:]
		off = 0
	}
}
