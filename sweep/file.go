package sweep

import (
	"fmt"
	"strings"

	"github.com/acemu/acemu/internal/yamlone"
	"go.yaml.in/yaml/v3"
)

// maxFile bounds a sweep file: a sweep of many axes is a few KB.
const maxFile = 1 << 20

// File is a sweep file's content (docs/sweeps.md): the parameter settings
// in order (as --set takes them), the lists and the reference.
type File struct {
	Sets []string
	// SetsAt says where each of Sets is in the file, for messages:
	// "NAME:LINE: set".
	SetsAt     []string
	Workloads  []string
	Topologies []string
	Systems    []string
	Reference  []string
}

// ReadFile reads a sweep file (YAML, or JSON) named name. Errors name the
// file, the line and what is wrong.
func ReadFile(name string, data []byte) (File, error) {
	var f File
	if len(data) > maxFile {
		return f, fmt.Errorf("%s: %d bytes; a sweep file is a few KB", name, len(data))
	}
	var doc yaml.Node
	if err := yamlone.Decode(data, &doc, false); err != nil {
		return f, fmt.Errorf("%s: not YAML or JSON: %w", name, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return f, fmt.Errorf("%s: the file must be a mapping with set, workloads, topologies, systems and reference (docs/sweeps.md)", name)
	}
	m := doc.Content[0]
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		at := fmt.Sprintf("%s:%d", name, k.Line)
		if seen[k.Value] {
			return f, fmt.Errorf("%s: %s given twice", at, k.Value)
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "set":
			f.Sets, f.SetsAt, err = settings(name, at, v, true)
		case "reference":
			f.Reference, _, err = settings(name, at, v, false)
		case "workloads":
			f.Workloads, err = scalars(at, k.Value, v)
		case "topologies":
			f.Topologies, err = scalars(at, k.Value, v)
		case "systems":
			f.Systems, err = scalars(at, k.Value, v)
		default:
			err = fmt.Errorf("%s: unknown key %q; use set, workloads, topologies, systems or reference", at, k.Value)
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

// settings reads a mapping of parameter keys to a value, a list of values
// or (lists allowed) a range, as KEY=VALUE strings in the file's order,
// and where each is ("NAME:LINE: set").
func settings(name, at string, n *yaml.Node, lists bool) (out, lines []string, err error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("%s: give a mapping of parameter keys to values (e.g. ace.sram: [1MiB, 4MiB])", at)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		where := fmt.Sprintf("%s:%d: %s", name, k.Line, k.Value)
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag != "!!null":
			if strings.Contains(v.Value, ",") {
				return nil, nil, fmt.Errorf("%s: write a list as [a, b, c]", where)
			}
			out = append(out, k.Value+"="+v.Value)
		case v.Kind == yaml.SequenceNode && lists:
			vals, err := scalars(where, k.Value, v)
			if err != nil {
				return nil, nil, err
			}
			for _, s := range vals {
				if strings.Contains(s, ",") || strings.Contains(s, "..") {
					return nil, nil, fmt.Errorf("%s: %q: a list holds single values", where, s)
				}
			}
			out = append(out, k.Value+"="+strings.Join(vals, ",")) // one value: a setting, as on the command line
		default:
			return nil, nil, fmt.Errorf("%s: give a value%s", where, map[bool]string{true: ", a list or a range", false: ""}[lists])
		}
		lines = append(lines, fmt.Sprintf("%s:%d: set", name, k.Line))
	}
	return out, lines, nil
}

// scalars reads a list of plain values (or one value).
func scalars(at, key string, n *yaml.Node) ([]string, error) {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: %s: give a list, e.g. [a, b]", at, key)
	}
	var out []string
	for _, e := range n.Content {
		if e.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s: %s (line %d): give plain values", at, key, e.Line)
		}
		out = append(out, e.Value)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %s is an empty list; give at least one", at, key)
	}
	return out, nil
}
