package chakra

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Set is a trace of every rank: Ranks[r] is rank r's file.
type Set struct {
	// Name is the traces' prefix without its directory (ASTRA-sim 2.x's
	// workload name).
	Name  string
	Ranks []*Trace
}

var rankFile = regexp.MustCompile(`^(.*)\.([0-9]+)\.et$`)

// Prefix returns the prefix of a trace set given as one rank's file
// (<prefix>.<rank>.et) or as the prefix itself (ASTRA-sim 2.x's
// --workload-configuration form, with <prefix>.0.et beside it); ok false
// when path is neither.
func Prefix(path string) (prefix string, ok bool) {
	if m := rankFile.FindStringSubmatch(path); m != nil {
		return m[1], true
	}
	if st, err := os.Stat(path + ".0.et"); err == nil && st.Mode().IsRegular() {
		return path, true
	}
	return "", false
}

// IsTrace reports whether path names a Chakra trace set (Prefix).
func IsTrace(path string) bool {
	_, ok := Prefix(path)
	return ok
}

// LoadSet reads the trace set that path names (Prefix): the files
// <prefix>.0.et, <prefix>.1.et, … up to the first rank without a file.
// npus is the machine's: the set must have a file for every NPU and no
// more.
func LoadSet(path string, npus int) (*Set, error) {
	prefix, ok := Prefix(path)
	if !ok {
		return nil, fmt.Errorf("%s: not a Chakra trace: name one rank's file, <prefix>.<rank>.et, or the prefix with <prefix>.0.et beside it", path)
	}
	s := &Set{Name: filepath.Base(prefix)}
	total := 0
	for r := 0; ; r++ {
		name := prefix + "." + strconv.Itoa(r) + ".et"
		if _, err := os.Stat(name); err != nil {
			if r == 0 {
				return nil, fmt.Errorf("%s: no rank 0 file (%s): a Chakra trace has one file per rank from 0", path, name)
			}
			break
		}
		if r == npus {
			return nil, fmt.Errorf("%s: the trace has more ranks than the machine's %d NPUs (%s exists); run it on a machine of as many NPUs as ranks", path, npus, name)
		}
		t, err := Load(name)
		if err != nil {
			return nil, err
		}
		if total += len(t.Nodes); total > MaxNodes {
			return nil, fmt.Errorf("%s: the trace's ranks up to %s hold %d nodes, more than the %d a run keeps (docs/chakra.md, \"Errors\"); run fewer ranks or iterations", path, name, total, MaxNodes)
		}
		s.Ranks = append(s.Ranks, t)
	}
	if len(s.Ranks) != npus {
		return nil, fmt.Errorf("%s: the trace has %d ranks (%s.0.et to .%d.et) but the machine has %d NPUs; every NPU runs one rank: run it on a machine of %d NPUs (--topo), or give a trace of %d ranks",
			path, len(s.Ranks), prefix, len(s.Ranks)-1, npus, len(s.Ranks), npus)
	}
	return s, nil
}

// Save writes the set's files as <prefix>.<rank>.et and returns rank 0's
// path.
func (s *Set) Save(prefix string) (string, error) {
	prefix = strings.TrimSuffix(prefix, ".et")
	for r, t := range s.Ranks {
		if err := Save(prefix+"."+strconv.Itoa(r)+".et", t); err != nil {
			return "", err
		}
	}
	return prefix + ".0.et", nil
}
