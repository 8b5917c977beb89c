package topology

import (
	"strings"

	"github.com/acemu/acemu/fabric"
)

// linkClass is a class a topology file's link may name: its bandwidth and
// latency are one of the platform's two link classes (LinkSettings.Torus).
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

// classParams returns the platform's link for class name, named by it;
// ok is false for a name that is no class.
func classParams(name string, s LinkSettings) (p fabric.LinkParams, ok bool) {
	for _, c := range linkClasses {
		if c.name == name {
			p = s.Intra
			if c.inter {
				p = s.Inter
			}
			p.Name = name
			return p, true
		}
	}
	return p, false
}

// classNames lists the classes, for messages.
func classNames() string {
	var names []string
	for _, c := range linkClasses {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}
