// Package yamlone reads YAML (or JSON) input that must be one document: a
// second document ("---") would otherwise be dropped without a word.
package yamlone

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// Decode decodes the one document in data into v (a *yaml.Node or a
// struct; with known, a struct's unknown fields are errors). An empty
// input leaves v as it is.
func Decode(data []byte, v any, known bool) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(known)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	var more yaml.Node
	switch err := dec.Decode(&more); {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("line %d: a second document (after ---); give one document", more.Line)
}
