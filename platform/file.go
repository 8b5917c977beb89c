package platform

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/acemu/acemu/internal/yamlone"
	"go.yaml.in/yaml/v3"
)

// Dump writes p in the configuration file's format (YAML): one section per
// part of the platform, one key per parameter, each with its unit and
// source in a comment. Load reads it back to the same platform, and
// dumping that gives the same bytes.
func (p Platform) Dump() ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	root.HeadComment = "acemu platform configuration (acemu config dump). Every key is optional;\n" +
		"a key left out keeps its default. Units: sizes in B/KiB/MiB/GiB or KB/MB/GB,\n" +
		"bandwidths in GB/s (10^9 B/s), times in cycles of the 1245 MHz NPU clock."
	sections := map[string]*yaml.Node{}
	for _, q := range params {
		if q.Unset(&p) { // an inheriting key left as it is: the key it follows says it
			continue
		}
		parts := strings.Split(q.Key, ".")
		parent := root
		for i, part := range parts[:len(parts)-1] {
			path := strings.Join(parts[:i+1], ".")
			n, ok := sections[path]
			if !ok {
				n = &yaml.Node{Kind: yaml.MappingNode}
				parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: part}, n)
				sections[path] = n
			}
			parent = n
		}
		v := &yaml.Node{Kind: yaml.ScalarNode, Value: q.get(&p), Style: yaml.DoubleQuotedStyle}
		v.LineComment = fmt.Sprintf("%s, %s; %s", q.Doc, q.Unit, q.Source)
		parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: parts[len(parts)-1]}, v)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// maxFile bounds a configuration file: the full dump is under 8 KB.
const maxFile = 1 << 20

// Load applies a configuration file (YAML, or JSON, which is YAML) named
// name to p: every key it gives replaces p's value. Errors name the file,
// the line, the key and what it takes.
func (p *Platform) Load(name string, data []byte) error {
	if len(data) > maxFile {
		return fmt.Errorf("%s: %d bytes; a platform configuration is a few KB (acemu config dump writes one)", name, len(data))
	}
	var doc yaml.Node
	if err := yamlone.Decode(data, &doc, false); err != nil {
		return fmt.Errorf("%s: not YAML or JSON: %w", name, err)
	}
	if doc.Kind == 0 {
		return nil // empty: every default
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("%s: the file must be a mapping of sections (links, afi, ace, training, npu); acemu config dump writes one", name)
	}
	seen := map[string]int{}
	if err := p.walk(name, doc.Content[0], "", seen); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// walk applies a mapping node at prefix.
func (p *Platform) walk(name string, n *yaml.Node, prefix string, seen map[string]int) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if prefix != "" {
			key = prefix + "." + k.Value
		}
		if line, dup := seen[key]; dup {
			return fmt.Errorf("%s:%d: %s is given twice (first on line %d)", name, k.Line, key, line)
		}
		seen[key] = k.Line
		switch v.Kind {
		case yaml.MappingNode:
			if _, ok := Lookup(key); ok {
				return fmt.Errorf("%s:%d: %s takes a value, not a section", name, k.Line, key)
			}
			if err := p.walk(name, v, key, seen); err != nil {
				return err
			}
		case yaml.ScalarNode:
			if err := p.Set(key, v.Value); err != nil {
				return fmt.Errorf("%s:%d: %w", name, k.Line, err)
			}
		default:
			return fmt.Errorf("%s:%d: %s: give one value (a list or alias is not a parameter's value)", name, k.Line, key)
		}
	}
	return nil
}

// Table is the parameters as a Markdown table (key, default, unit, source,
// what it is), the one in docs/model-choices.md.
func Table() string {
	d := Default()
	var b strings.Builder
	b.WriteString("| key | default | unit | source | what |\n|---|---|---|---|---|\n")
	for _, q := range params {
		def := q.get(&d)
		if q.Unset(&d) {
			def = "`" + q.Inherits + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", q.Key, def, q.Unit, q.Source, q.Doc)
	}
	return b.String()
}
