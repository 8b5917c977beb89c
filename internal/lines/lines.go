// Package lines splits text into lines ending in LF, CR LF or a lone CR
// (old Mac files), for bufio.Scanner, so that a file saved with any of
// them reads the same.
package lines

import "bytes"

// Split is a bufio.SplitFunc: like bufio.ScanLines, and a lone CR ends a
// line too.
func Split(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		// A CR: with an LF after it, one line end; at the end of what is
		// read so far, wait to see (unless the input ends here).
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if atEOF {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}
