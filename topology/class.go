package topology

import (
	"strings"

	"github.com/acemu/acemu/fabric"
)

// linkClass is a class a link may name: its bandwidth and latency are the
// platform's for that class (LinkSettings.Classes), by default one of the
// platform's two link classes, intra- and inter-package.
type linkClass struct {
	name  string
	inter bool // the platform's inter-package link; else its intra-package link
}

// linkClasses are the classes a link may name, with the platform's link
// each stands for: intra and inter are the torus's (links.intra.*,
// links.inter.*); nvlink is the inter-package link, as dgx1 takes it; tier0
// is the intra-package link and tier1 to tier5 the inter-package link, as
// a switch fabric's tiers take them (docs/topology.md).
var linkClasses = func() []linkClass {
	cs := []linkClass{{"intra", false}, {"inter", true}, {"nvlink", true}}
	for t := range tierNames {
		cs = append(cs, linkClass{"tier" + string(rune('0'+t)), t > 0})
	}
	return cs
}()

// classParams returns the platform's link for class name, named by it:
// the class's own when the platform sets it (links.CLASS.*), else the
// intra- or inter-package link the class stands for; ok is false for a
// name that is no class.
func classParams(name string, s LinkSettings) (p fabric.LinkParams, ok bool) {
	for _, c := range linkClasses {
		if c.name == name {
			p = s.Intra
			if c.inter {
				p = s.Inter
			}
			if own, set := s.Classes[name]; set {
				p = own
			}
			p.Name = name
			return p, true
		}
	}
	return p, false
}

// Class is a link class a machine's links may be of, beyond the
// platform's two (intra, inter), and the one of those two it takes its
// bandwidth and latency from unless the platform sets its own.
type Class struct {
	Name  string
	Inter bool // the inter-package link; else the intra-package link
}

// Classes are the link classes beyond intra and inter: nvlink (dgx1's
// NVLinks) and tier0 to tier5 (a switch fabric's tiers), in that order.
func Classes() []Class {
	var out []Class
	for _, c := range linkClasses {
		if c.name != "intra" && c.name != "inter" {
			out = append(out, Class{c.name, c.inter})
		}
	}
	return out
}

// classNames lists the classes, for messages.
func classNames() string {
	var names []string
	for _, c := range linkClasses {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}
