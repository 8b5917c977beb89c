package topology

import "fmt"

// MaxFileTrees is the most trees a topology file declares: the tree
// all-reduces embed one (tree, tree-overlapped) or two (the double trees).
const MaxFileTrees = 2

// loadTrees checks the trees a file declares (trees: each the parent of
// every NPU in id order, the root its own parent) and keeps them as
// parent arrays with -1 for the root (machine.Machine.Trees).
func (f *File) loadTrees(ts [][]int) error {
	if len(ts) > MaxFileTrees {
		return fmt.Errorf("%s: %d trees; give at most %d (a double tree embeds two)", f.Name, len(ts), MaxFileTrees)
	}
	for i, t := range ts {
		where := fmt.Sprintf("%s: trees[%d]", f.Name, i)
		if len(t) != f.NPUs {
			return fmt.Errorf("%s: %d parents; give the parent of every NPU 0 to %d in id order, the root its own parent", where, len(t), f.NPUs-1)
		}
		parent := make([]int, len(t))
		root := -1
		for n, p := range t {
			switch {
			case p < 0 || p >= f.NPUs:
				return fmt.Errorf("%s: NPU %d's parent %d is not an NPU; give one of 0 to %d (the root its own id)", where, n, p, f.NPUs-1)
			case p == n && root >= 0:
				return fmt.Errorf("%s: NPUs %d and %d are both their own parent; a tree has one root", where, root, n)
			case p == n:
				root, parent[n] = n, -1
			default:
				parent[n] = p
			}
		}
		if root < 0 {
			return fmt.Errorf("%s: no NPU is its own parent; give the root itself as its parent", where)
		}
		for n := range parent {
			// Walk up at most NPUs steps: a longer walk is a cycle.
			x, steps := n, 0
			for x != root {
				if steps++; steps > f.NPUs {
					return fmt.Errorf("%s: NPU %d does not reach the root %d through its parents (they form a cycle); every NPU's parents must lead to the root", where, n, root)
				}
				x = parent[x]
			}
		}
		f.trees = append(f.trees, parent)
	}
	return nil
}

// treeDocs writes trees (machine.Machine.Trees) as a file declares them:
// the root its own parent.
func treeDocs(trees [][]int) [][]int {
	var out [][]int
	for _, t := range trees {
		doc := make([]int, len(t))
		for n, p := range t {
			doc[n] = p
			if p < 0 {
				doc[n] = n
			}
		}
		out = append(out, doc)
	}
	return out
}
