package collectives

import "github.com/acemu/acemu/machine"

// dims are the dimensions the configuration's machine offers collectives.
func (c Config) dims() []machine.Dim { return c.Machine.Dims }

// DimTier is the tier whose groups are the dimension's.
func DimTier(d machine.Dim) Tier {
	return Tier{Name: d.Name, Size: d.Size, OnRing: d.Ring, dim: &d}
}

// translate is NPU id moved by the displacement d: the machine's
// translation taking NPU 0 to NPU d when it has one (torus addition), else
// (id+d) mod N, the NPUs read as one ring in id order.
func (c Config) translate(id, d int) int {
	if f, ok := c.Machine.Folder(); ok {
		return f.Displace(id, d)
	}
	n := c.Machine.N()
	return (id + d%n + n) % n
}

// inverse is the displacement that undoes d (translate(translate(x, d),
// inverse(d)) is x).
func (c Config) inverse(d int) int {
	if f, ok := c.Machine.Folder(); ok {
		return f.Displacement(d, 0)
	}
	n := c.Machine.N()
	return (n - d%n) % n
}
