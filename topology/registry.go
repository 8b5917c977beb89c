package topology

import (
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/internal/limited"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
)

// LinkSettings are the platform's link parameters a topology's network is
// built with: the torus's two link classes, and for any topology the
// payload efficiency and buffers.
type LinkSettings struct {
	Torus              torus.LinkConfig
	Efficiency         *big.Rat
	TxBuffer, RxBuffer int
}

// DefaultLinkSettings are Table V's links, payload efficiency (94 %) and
// the buffers of docs/topology.md: the default platform's
// (platform.Platform.LinkSettings, which a test keeps equal to these).
func DefaultLinkSettings() LinkSettings {
	return LinkSettings{Torus: torus.DefaultLinks(), Efficiency: big.NewRat(94, 100), TxBuffer: torus.DefaultTxBuffer, RxBuffer: torus.DefaultRxBuffer}
}

// Spec is a topology a --topo spec named: its shape as endpoints see it,
// how collectives are planned on it, whether one node can stand for all,
// and how its network is built.
type Spec struct {
	Topology Topology
	// Plan numbers the NPUs for collectives (a torus's own shape; N×1×1
	// for a topology that is not one), and Axes are the dimensions the
	// collectives are built over (nil: the torus's).
	Plan torus.Shape
	Axes []collectives.Axis
	// Build returns its network driven by k (folded: one node's links
	// standing for all; only when it can fold).
	Build func(k *rtl.Kernel, l LinkSettings, folded bool) (*fabric.Network, error)
}

// CanFold reports whether the topology has the symmetry folding needs
// (it is a Folder).
func (s *Spec) CanFold() bool {
	_, ok := s.Topology.(Folder)
	return ok
}

// Torus reports whether the topology is the 3D torus (collectives on its
// rings, ACE beside every NPU); the others route every message.
func (s *Spec) Torus() bool { return s.Axes == nil }

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

func init() {
	Register("a torus LxVxH (e.g. 4x4x4)", func(spec string) (*Spec, bool, error) {
		shape, err := torus.Parse(spec)
		if err != nil {
			if strings.ContainsAny(spec, "xX") && !strings.ContainsAny(spec, "/.:") {
				return nil, false, err // meant as a torus: its own error says what is wrong
			}
			return nil, false, nil
		}
		return &Spec{Topology: shape, Plan: shape, Build: func(k *rtl.Kernel, l LinkSettings, folded bool) (*fabric.Network, error) {
			return torus.Build(k, shape, l.Torus, folded)
		}}, true, nil
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
		// One axis of all the NPUs, not a ring of links: messages are routed.
		all := []collectives.Axis{{Name: "all", Short: "a", Size: f.N(), Stride: 1}}
		return &Spec{Topology: f, Plan: torus.Shape{L: f.N(), V: 1, H: 1}, Axes: all, Build: func(k *rtl.Kernel, l LinkSettings, _ bool) (*fabric.Network, error) {
			return f.Build(k, l)
		}}, true, nil
	})
}
