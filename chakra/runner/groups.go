package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/acemu/acemu/chakra"
)

// LoadGroups reads a communicator-group file in ASTRA-sim 2.x's form: a
// JSON object whose keys are process-group names (a node's pg_name) and
// whose values are the ranks of each group, e.g. {"1": [0, 1, 2, 3],
// "2": [4, 5, 6, 7]}.
func LoadGroups(path string) (map[string][]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	g, err := ParseGroups(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// ParseGroups reads the JSON of LoadGroups.
func ParseGroups(b []byte) (map[string][]int, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var raw map[string][]json.Number
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("process groups: %w; write a JSON object of group names to lists of ranks, e.g. {\"1\": [0, 1], \"2\": [2, 3]}", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("process groups: more after the JSON object; write one object")
	}
	out := map[string][]int{}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		if len(raw[name]) == 0 {
			return nil, fmt.Errorf("process group %q lists no ranks; list at least 2", name)
		}
		for _, v := range raw[name] {
			r, err := strconv.Atoi(string(v))
			if err != nil || r < 0 {
				return nil, fmt.Errorf("process group %q: rank %s is not a whole number ≥ 0", name, v)
			}
			out[name] = append(out[name], r)
		}
	}
	return out, nil
}

// partition is a communicator the AFI runs a collective on: every NPU
// (groups nil), or a partition of the NPUs into equally large groups
// (afi.IssueOptions.Groups), every group combining its own data at once.
type partition struct {
	groups [][]int // nil: every NPU
	names  []string
	of     []int // each rank's group (groupOf), made when first asked
}

// groupOf returns the index of the group rank r is in (0 for every NPU).
func (p *partition) groupOf(r int) int {
	if p.of == nil {
		n := 0
		for _, g := range p.groups {
			n += len(g)
		}
		p.of = make([]int, n)
		for i, g := range p.groups {
			for _, m := range g {
				if m < n {
					p.of[m] = i
				}
			}
		}
	}
	if r < len(p.of) {
		return p.of[r]
	}
	return 0
}

// describe names the partition's groups for messages.
func (p *partition) describe() string {
	if p.groups == nil {
		return "every NPU"
	}
	var parts []string
	for i, g := range p.groups {
		parts = append(parts, fmt.Sprintf("%q %v", p.names[i], g))
	}
	return "process groups " + strings.Join(parts, ", ")
}

// NodeGroups returns, for each collective node of s by rank and node
// index, the listed groups of the communicator it runs on as the run
// would issue it (Collective.Groups; nil: every NPU), from the process
// groups groups (LoadGroups). An error where the run would refuse them.
func NodeGroups(s *chakra.Set, groups map[string][]int) (func(rank, node int) [][]int, error) {
	parts, err := partitions(len(s.Ranks), usedGroups(s), groups)
	if err != nil {
		return nil, err
	}
	return func(rank, node int) [][]int {
		pg, _, err := s.Ranks[rank].Nodes[node].Text("pg_name")
		if p := parts[pg]; err == nil && p != nil {
			return p.groups
		}
		return nil
	}, nil
}

// partitions maps the process groups used to the communicators the AFI
// runs [choice, docs/chakra.md "Process groups"]: a group of every NPU
// is every NPU; any other group is put with the groups of its size, in
// name order, into the first partition it does not overlap, and each
// partition must end up covering every NPU. used lists the pg_names the
// trace uses; groups is the file's. The result maps each used name to
// its partition.
func partitions(npus int, used []string, groups map[string][]int) (map[string]*partition, error) {
	all := &partition{}
	out := map[string]*partition{"": all}
	names := slices.Sorted(maps.Keys(groups))
	for _, name := range names {
		g := groups[name]
		seen := map[int]bool{}
		for _, r := range g {
			if r >= npus {
				return nil, fmt.Errorf("process group %q lists rank %d, but the machine has %d NPUs (ranks 0 to %d); list ranks of the machine, or run on a larger one", name, r, npus, npus-1)
			}
			if seen[r] {
				return nil, fmt.Errorf("process group %q lists rank %d twice; list each rank once", name, r)
			}
			seen[r] = true
		}
	}
	var open []*partition
	covered := map[*partition]map[int]bool{}
	for _, name := range names {
		g := groups[name]
		if len(g) == npus {
			out[name] = all
			continue
		}
		var into *partition
		for _, p := range open {
			if len(p.groups[0]) != len(g) || len(covered[p]) == npus {
				continue
			}
			if !slices.ContainsFunc(g, func(r int) bool { return covered[p][r] }) {
				into = p
				break
			}
		}
		if into == nil {
			into = &partition{}
			covered[into] = map[int]bool{}
			open = append(open, into)
		}
		into.groups = append(into.groups, slices.Clone(g))
		into.names = append(into.names, name)
		for _, r := range g {
			covered[into][r] = true
		}
		out[name] = into
	}
	res := map[string]*partition{"": all}
	for _, name := range used {
		if name == "" {
			continue
		}
		p, ok := out[name]
		if !ok {
			if len(groups) == 0 {
				return nil, fmt.Errorf("process group %q: no process groups given; give the communicator-group file (acemu --comm-groups FILE, ASTRA-sim 2.x's JSON of group names to ranks), or leave pg_name empty for every NPU", name)
			}
			return nil, fmt.Errorf("process group %q is not in the communicator-group file; it lists %s", name, strings.Join(names, ", "))
		}
		if p.groups != nil {
			if len(p.groups[0]) < 2 {
				return nil, fmt.Errorf("process group %q has one rank: nothing to combine; list groups of at least 2 ranks", name)
			}
			if n := len(covered[p]); n != npus {
				return nil, fmt.Errorf("process group %q %v does not fit the machine: the AFI runs a collective on a partition of the %d NPUs into equally large groups, all at once, and the groups of %d ranks in the file (%s) cover %d of them; list groups of that size that cover every NPU (docs/chakra.md, \"Process groups\")",
					name, groups[name], npus, len(groups[name]), strings.Join(p.names, ", "), n)
			}
		}
		res[name] = p
	}
	return res, nil
}
