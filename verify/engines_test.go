package verify

import (
	"math/big"
	"testing"

	"github.com/acemu/acemu/ace"
	"github.com/acemu/acemu/afi"
	"github.com/acemu/acemu/collectives"
	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/npu"
	"github.com/acemu/acemu/observe"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/torus"
	"github.com/stretchr/testify/require"
)

// testEngine is an endpoint's engine as the tests here drive it.
type testEngine interface {
	Issue(now rtl.Cycle, plan *collectives.Plan, done func(now rtl.Cycle)) error
	IssueWith(now rtl.Cycle, plan *collectives.Plan, o afi.IssueOptions) error
	SetOrder(afi.Order)
	Stuck() error
}

// testEndpoints are the endpoints newTestEngine builds.
var testEndpoints = []string{"ideal", "baseline", "ace"}

// newTestEngine builds endpoint's engine on net, the torus network of
// shape: the ideal endpoint, the baseline with CommOpt's 6 SMs and
// 450 GB/s, or ACE laid out for layout; carrying the values of init (nil:
// none) and telling obs.
func newTestEngine(t *testing.T, endpoint string, k *rtl.Kernel, net *fabric.Network, shape torus.Shape, layout *collectives.Plan,
	init func(coll, npu, chunk int) []int64, obs observe.Observer) testEngine {
	t.Helper()
	var data *npu.DataHooks
	if init != nil {
		data = &npu.DataHooks{Init: init}
	}
	var e testEngine
	var err error
	switch endpoint {
	case "ideal":
		cfg := npu.DefaultIdeal()
		cfg.Data, cfg.Observer = data, obs
		e, err = npu.NewIdealEngine(k, net, shape.Machine(), cfg)
	case "baseline":
		cfg := npu.DefaultBaseline(6, big.NewRat(450, 1))
		cfg.Data, cfg.Observer = data, obs
		e, err = npu.NewBaselineEngine(k, net, shape.Machine(), cfg)
	case "ace":
		e, err = ace.NewEngine(k, net, layout, ace.Default(), &ace.Hooks{Init: init, Observer: obs})
	default:
		t.Fatalf("no endpoint %q", endpoint)
	}
	require.NoError(t, err)
	return e
}
