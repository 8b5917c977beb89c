package topology

import (
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/internal/limited"
	"github.com/acemu/acemu/machine"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
)

// LinkSettings are the platform's link parameters a machine's network is
// built with: its two link classes, intra- and inter-package (Table V; a
// machine maps its links onto them: the torus's local rings are intra,
// the DGX-1's NVLinks inter, docs/topology.md), and the payload efficiency
// and buffers.
type LinkSettings struct {
	Intra, Inter fabric.LinkParams
	// Classes are the links of the classes the platform sets apart
	// (links.nvlink.*, links.tier1.*, …; Classes); a class not here takes
	// the intra- or inter-package link it stands for.
	Classes            map[string]fabric.LinkParams
	Efficiency         *big.Rat
	TxBuffer, RxBuffer int
}

// DefaultLinkSettings are Table V's links, payload efficiency (94 %) and
// the buffers of docs/topology.md: the default platform's
// (platform.Platform.LinkSettings, which a test keeps equal to these).
func DefaultLinkSettings() LinkSettings {
	d := torus.DefaultLinks()
	return LinkSettings{Intra: d.Intra, Inter: d.Inter, Efficiency: big.NewRat(94, 100), TxBuffer: torus.DefaultTxBuffer, RxBuffer: torus.DefaultRxBuffer}
}

// Spec is a machine a --topo spec named: the machine as collectives and
// endpoints see it (its routing, whether one NPU can stand for all, the
// dimensions collectives are built over), and how its network is built.
type Spec struct {
	// Kind is the kind of machine: torus, dgx1, switch or file.
	Kind    string
	Machine *machine.Machine
	// Build returns its network driven by k (folded: one node's links
	// standing for all; only when it can fold).
	Build func(k *rtl.Kernel, l LinkSettings, folded bool) (*fabric.Network, error)
	// ReadsLinkKey, for a topology file, reports whether its network reads
	// a platform link key (File.ReadsLinkKey); nil for the built-in
	// machines, whose links read them all.
	ReadsLinkKey func(key string, follows func(key string) bool) bool
}

// CanFold reports whether the topology has the symmetry folding needs
// (it is a Folder).
func (s *Spec) CanFold() bool {
	_, ok := s.Machine.Folder()
	return ok
}

// Parser recognises a --topo spec: ok is false when the spec is not its
// kind's (another kind may take it).
type Parser func(spec string) (s *Spec, ok bool, err error)

type kind struct {
	name  string
	parse Parser
}

var kinds []kind

// Register adds a kind of topology; specs are tried against the kinds in
// the order registered.
func Register(name string, p Parser) { kinds = append(kinds, kind{name, p}) }

// Parse finds the topology a --topo spec names.
func Parse(spec string) (*Spec, error) {
	var names []string
	for _, k := range kinds {
		s, ok, err := k.parse(spec)
		if err != nil {
			return nil, err
		}
		if ok {
			return s, nil
		}
		names = append(names, k.name)
	}
	return nil, fmt.Errorf("--topo %q: not a topology; give %s", spec, strings.Join(names, " or "))
}

// Torus is the torus of shape as a Spec (what --topo LxVxH gives).
func Torus(shape torus.Shape) *Spec {
	return &Spec{Kind: "torus", Machine: shape.Machine(), Build: func(k *rtl.Kernel, l LinkSettings, folded bool) (*fabric.Network, error) {
		return torus.Build(k, shape, torus.LinkConfig{Intra: l.Intra, Inter: l.Inter}, folded)
	}}
}

func init() {
	Register("a torus LxVxH (e.g. 4x4x4)", func(spec string) (*Spec, bool, error) {
		shape, err := torus.Parse(spec)
		if err != nil {
			if strings.ContainsAny(spec, "xX") && !strings.ContainsAny(spec, "/.:") {
				return nil, false, err // meant as a torus: its own error says what is wrong
			}
			return nil, false, nil
		}
		return Torus(shape), true, nil
	})
	Register("a topology file (docs/topology.md)", func(spec string) (*Spec, bool, error) {
		st, err := os.Stat(spec)
		if err == nil && st.IsDir() {
			return nil, false, fmt.Errorf("--topo %q is a directory; give a topology file (docs/topology.md) or a torus LxVxH", spec)
		}
		if err != nil {
			if strings.ContainsAny(spec, "/.") {
				return nil, false, fmt.Errorf("--topo %q: no such topology file (a torus is LxVxH, e.g. 4x4x4)", spec)
			}
			return nil, false, nil
		}
		data, err := limited.ReadFile(spec, maxFileBytes, fmt.Sprintf("a topology file of %d nodes at most fits in far less", maxNodes))
		if err != nil {
			return nil, false, fmt.Errorf("--topo: %w", err)
		}
		f, err := Load(spec, data)
		if err != nil {
			return nil, false, fmt.Errorf("--topo: %w", err)
		}
		m, err := f.Machine()
		if err != nil {
			return nil, false, fmt.Errorf("--topo: %w", err)
		}
		return &Spec{Kind: "file", Machine: m, Build: func(k *rtl.Kernel, l LinkSettings, _ bool) (*fabric.Network, error) {
			return f.Build(k, l)
		}, ReadsLinkKey: f.ReadsLinkKey}, true, nil
	})
}

// ErrFile is what RefuseFile's error wraps.
var ErrFile = torus.ErrFile

// RefuseFile is an error, wrapping ErrFile, when spec names a topology
// file (a path, or a .yaml, .yml or .json name), for the commands that
// take only built-in machines; nil otherwise.
func RefuseFile(spec string) error {
	if _, err := torus.Parse(spec); errors.Is(err, torus.ErrFile) {
		return err
	}
	return nil
}
