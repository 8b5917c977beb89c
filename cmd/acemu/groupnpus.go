package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/acemu/acemu/units"
)

// groupNPUsExample is --group-npus's example: the 4x4x1 torus's diagonals.
const groupNPUsExample = "0,5,10,15/1,6,11,12/2,7,8,13/3,4,9,14"

// parseGroupNPUs reads --group-npus: groups separated by /, each group's
// NPUs separated by commas in ring order, an item an NPU id or a range a-b
// (a, a+1, …, b; downward when b < a), every id one of the machine's n.
// That the groups are a partition into equal groups is the collective's
// to check (collectives.Config.Groups).
func parseGroupNPUs(s string, n int) ([][]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("--group-npus is empty; list the groups, e.g. %s", groupNPUsExample)
	}
	var groups [][]int
	for gi, g := range strings.Split(s, "/") {
		if strings.TrimSpace(g) == "" {
			return nil, fmt.Errorf("--group-npus %q: group %d is empty; write each group's NPUs comma-separated and the groups /-separated, e.g. %s", s, gi, groupNPUsExample)
		}
		var members []int
		for _, item := range strings.Split(g, ",") {
			item = strings.TrimSpace(item)
			lo, hi, isRange := strings.Cut(item, "-")
			a, err := npuID(s, gi, item, lo, n)
			if err != nil {
				return nil, err
			}
			b := a
			if isRange {
				if b, err = npuID(s, gi, item, hi, n); err != nil {
					return nil, err
				}
			}
			step := 1
			if b < a {
				step = -1
			}
			for id := a; ; id += step {
				members = append(members, id)
				if id == b {
					break
				}
			}
		}
		groups = append(groups, members)
	}
	return groups, nil
}

// npuID reads one end of an item of group gi of --group-npus s.
func npuID(s string, gi int, item, end string, n int) (int, error) {
	id, err := units.ParseInt(end)
	switch {
	case errors.Is(err, strconv.ErrRange) || err == nil && id >= int64(n):
		return 0, fmt.Errorf("--group-npus %q: NPU %s in group %d is not on the machine, whose NPUs are 0 to %d", s, strings.TrimSpace(end), gi, n-1)
	case err != nil:
		return 0, fmt.Errorf("--group-npus %q: %q in group %d is not an NPU id or a range like 0-3: %w", s, item, gi, err)
	case id < 0:
		return 0, fmt.Errorf("--group-npus %q: %q in group %d is not an NPU id or a range like 0-3", s, item, gi)
	}
	return int(id), nil
}
