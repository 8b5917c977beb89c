package measure

import (
	"fmt"
	"math"

	"github.com/acemu/acemu/libra"
)

// Fit is Eq (5) and Eq (6) fitted to the measured points (LIBRA,
// §III-A), reported beside the tabulated curves the programmes use:
// the share of compute left to computation, b/g = α1 − α2·r, and the
// transmission rates x = ĉ/(t − a) of the all-reduce beside computation
// (P) and alone (Q), γ1 − γ2·exp(−γ3·r^0.6), with ĉ the bytes an NPU
// sent (Curves.Sent) and r in SMs.
type Fit struct {
	Alpha1 float64 `json:"alpha1"`
	Alpha2 float64 `json:"alpha2"`
	P      Gammas  `json:"p"`
	Q      Gammas  `json:"q"`
}

// Gammas are γ1–γ3 of Eq (6) (γ4 = libra.Gamma4) and the fit's largest
// relative error in the all-reduce's time over the points.
type Gammas struct {
	Gamma1   float64 `json:"gamma1"`
	Gamma2   float64 `json:"gamma2"`
	Gamma3   float64 `json:"gamma3"`
	MaxError float64 `json:"max_relative_error"`
}

// Fit fits Eq (5) by least squares, and Eq (6) by least squares in γ1
// and γ2 for each γ3 of a fixed grid (601 values from 10^-4 to 10^2,
// evenly in its logarithm), the best kept (the first of equals). It
// needs two points or more.
func (c *Curves) Fit() (Fit, error) {
	if len(c.Points) < 2 {
		return Fit{}, fmt.Errorf("fitting Eq (5) and (6) needs two allocations or more; %d measured", len(c.Points))
	}
	var r, rho, xp, xq, tp, tq []float64
	for _, p := range c.Points {
		r = append(r, float64(p.SMs))
		rho = append(rho, float64(c.Alone)/float64(p.Overlapped))
		tp = append(tp, float64(p.CommOverlapped-c.Startup))
		tq = append(tq, float64(p.CommAlone-c.Startup))
		xp = append(xp, float64(c.Sent)/tp[len(tp)-1])
		xq = append(xq, float64(c.Sent)/tq[len(tq)-1])
	}
	a, b := line(r, rho)
	f := Fit{Alpha1: a, Alpha2: -b}
	f.P = gammas(r, xp, tp, float64(c.Sent))
	f.Q = gammas(r, xq, tq, float64(c.Sent))
	return f, nil
}

// line is the least-squares y = a + b·x.
func line(x, y []float64) (a, b float64) {
	n := float64(len(x))
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		sxy += x[i] * y[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return sy / n, 0
	}
	b = (n*sxy - sx*sy) / d
	return (sy - b*sx) / n, b
}

// gammas fits x = γ1 − γ2·exp(−γ3·r^γ4) over the grid of γ3, and reports
// the largest relative error of sent/x against the times t.
func gammas(r, x, t []float64, sent float64) Gammas {
	best := Gammas{MaxError: math.Inf(1)}
	bestSSE := math.Inf(1)
	e := make([]float64, len(r))
	for i := 0; i <= 600; i++ {
		g3 := math.Pow(10, -4+float64(i)/100)
		for k := range r {
			e[k] = -math.Exp(-g3 * math.Pow(r[k], libra.Gamma4))
		}
		g1, g2 := line(e, x) // x = γ1 + γ2·(−exp(…))
		var sse, worst float64
		for k := range r {
			fx := g1 + g2*e[k]
			sse += (fx - x[k]) * (fx - x[k])
			if fx > 0 {
				worst = max(worst, math.Abs(sent/fx-t[k])/t[k])
			} else {
				worst = math.Inf(1)
			}
		}
		if sse < bestSSE {
			bestSSE = sse
			best = Gammas{Gamma1: g1, Gamma2: g2, Gamma3: g3, MaxError: worst}
		}
	}
	return best
}
