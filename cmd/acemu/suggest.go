package main

import (
	"slices"
	"strings"
)

// suggestCommand returns the name among names that name is most likely
// a slip for (a letter missing, extra, changed or two swapped; any case),
// or "" when none is close: at most a third of the name's letters wrong,
// and no more than two.
func suggestCommand(name string, names []string) string {
	lower := strings.ToLower(name)
	best, bestDist := "", 0
	for _, c := range names {
		d := editDistance(lower, c)
		if d > 2 || 3*d > len(c) {
			continue
		}
		if best == "" || d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// commandNames are the subcommands' names in order, and "help" with
// help.
func commandNames(help bool) []string {
	var names []string
	if help {
		names = append(names, "help")
	}
	for c := range commands {
		names = append(names, c)
	}
	slices.Sort(names) // ties go to the first by name
	return names
}

// didYouMean is "; did you mean C?" for the command among names that
// name is close to, or "".
func didYouMean(name string, names []string) string {
	if c := suggestCommand(name, names); c != "" {
		return "; did you mean " + c + "?"
	}
	return ""
}

// editDistance is the Damerau–Levenshtein distance between a and b (its
// optimal-string-alignment form), by runes: the fewest insertions,
// deletions, substitutions and swaps of two neighbours that turn a into b.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j]: the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
