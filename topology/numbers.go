package topology

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/acemu/acemu/units"
)

// wholeKeys are the keys of a topology file whose values are whole
// numbers: node numbers, counts and cycles (docs/topology.md).
var wholeKeys = map[string]bool{"nodes": true, "npus": true, "switches": true, "from": true, "to": true,
	"latency": true, "lanes": true, "ports": true, "groups": true, "trees": true}

// checkNumbers refuses, before the file is decoded, a value that is not a
// whole number where one is meant, naming its key, its text and its line:
// YAML would read latency: 1.9 as 1, nodes: 3.0 as 3, 0x10 as 16 and 010
// as 8 or 10 by its version, where acemu reads every number as written
// (units.ParseInt). A switches list, a groups list of lists and text
// values are left to the decoder.
func checkNumbers(n *yaml.Node, key string) error {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if err := checkNumbers(c, key); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if !wholeKeys[k] && k != "links" && k != "dims" && key != "switches" {
				continue
			}
			if err := checkNumbers(n.Content[i+1], k); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		if !wholeKeys[key] || key == "switches" && n.Tag == "!!str" {
			return nil
		}
		if _, err := units.ParseInt(n.Value); err != nil {
			return fmt.Errorf("line %d: %s %q: %w (a topology file's %s is a whole number)", n.Line, key, n.Value, err, key)
		}
	}
	return nil
}
