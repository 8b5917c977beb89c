package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acemu/acemu/fabric"
	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/topology"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// Uses is what decides which platform parameters a comparison (or every
// point of a sweep) reads: its systems, its workloads as they run, and
// whether any of them is a built-in.
type Uses struct {
	Systems   []systems.System
	Workloads []*workload.Workload
	// Builtin: some workload is a built-in (resnet50, gnmt, dlrm), whose
	// compute follows training.compute and training.batch.
	Builtin bool
}

// algorithmComm is the collective each collectives.KEY parameter gives
// the algorithm of.
var algorithmComm = map[string]workload.CommType{
	"collectives.allreduce":      workload.CommAllReduce,
	"collectives.reduce_scatter": workload.CommReduceScatter,
	"collectives.all_gather":     workload.CommAllGather,
	"collectives.all_to_all":     workload.CommAllToAll,
}

// Unused says why the platform parameter key changes nothing for r, ""
// when it may change something: the SM-driven baseline's library
// (baseline.*) without a baseline system; a collective's algorithm
// (collectives.*) that no workload issues; the compute regime and batch
// (training.compute, training.batch) of the built-in workloads with none
// of them; the issue policy and fusion (training.issue_policy, key_order,
// copy, fusion) with no overlapping system or data-parallel workload with
// weight-gradient all-reduces. The caller names the key and the fix. (ACE's keys, ace.*, and
// training.mem_bound_share have their own checks, whose messages say
// more.)
func (r Uses) Unused(key string) string {
	switch {
	case strings.HasPrefix(key, "baseline."):
		if !slices.ContainsFunc(r.Systems, func(s systems.System) bool { return s.Kind == systems.Baseline }) {
			return fmt.Sprintf("it is the SM-driven baseline's library (docs/baseline-model.md), and the systems (%s) include no baseline", systemNames(r.Systems))
		}
	case algorithmComm[key] != workload.CommNone:
		t := algorithmComm[key]
		if !slices.ContainsFunc(r.Workloads, func(w *workload.Workload) bool { return w.Issues(t) }) {
			op := strings.ReplaceAll(strings.TrimPrefix(key, "collectives."), "_", "-")
			article := "a"
			if strings.HasPrefix(op, "a") {
				article = "an"
			}
			return fmt.Sprintf("no workload (%s) issues %s %s", workloadNames(r.Workloads), article, op)
		}
	case key == "training.issue_policy" || key == "training.key_order" || key == "training.copy" || key == "training.fusion":
		if !slices.ContainsFunc(r.Systems, func(s systems.System) bool { return s.Overlap }) {
			return fmt.Sprintf("it orders the weight-gradient all-reduces of systems that overlap them with compute (docs/training-loop.md, \"Issue policies\"), and the systems (%s) include none", systemNames(r.Systems))
		}
		if !slices.ContainsFunc(r.Workloads, func(w *workload.Workload) bool {
			return (w.Parallelism == workload.ParallelismData || w.Parallelism == workload.ParallelismHybridDLRM) && train.OneShotBytes(w) > 0
		}) {
			return fmt.Sprintf("it orders data parallelism's weight-gradient all-reduces, and no workload (%s) is data-parallel with any", workloadNames(r.Workloads))
		}
	case key == "training.compute" || key == "training.batch":
		if !r.Builtin {
			return fmt.Sprintf("it is for the built-in workloads (%s), and the workloads (%s) are files, whose compute is their own",
				strings.Join(workload.BuiltinNames(), ", "), workloadNames(r.Workloads))
		}
	}
	return ""
}

func systemNames(ss []systems.System) string {
	var names []string
	for _, s := range ss {
		names = append(names, s.Name)
	}
	return strings.Join(names, ",")
}

// workloadNames names each workload once (a built-in may be given in
// each of its regimes).
func workloadNames(ws []*workload.Workload) string {
	var names []string
	for _, w := range ws {
		if !slices.Contains(names, w.Name) {
			names = append(names, w.Name)
		}
	}
	return strings.Join(names, ",")
}

// IsClassLinkKey reports whether key is a link class's bandwidth or
// latency (links.intra.bandwidth, links.nvlink.latency, …).
func IsClassLinkKey(key string) bool {
	return strings.HasPrefix(key, "links.") && (strings.HasSuffix(key, ".bandwidth") || strings.HasSuffix(key, ".latency"))
}

// ReadsLinkKey reports whether a link of the machine spec takes the link
// class key that p sets: its network, built with p and with p but for key
// (at its default, or following its base class), differs in some link.
// A torus LxVx1 of one package has no inter-package link, dgx1's links
// are all nvlink, a switch fabric of one tier has tier0 links only
// (docs/topology.md). A network that does not build is taken to read it:
// the run reports why.
func ReadsLinkKey(p platform.Platform, spec *topology.Spec, key string) bool {
	with, err := machineLinks(p, spec)
	if err != nil {
		return true
	}
	without, err := machineLinks(platformWithout(p, key), spec)
	return err != nil || !slices.Equal(with, without)
}

// HasLinkClass reports whether a link of spec's network, built with p's
// links, is of class (fabric.LinkParams.Name: intra, inter, nvlink,
// tier0, …).
func HasLinkClass(p platform.Platform, spec *topology.Spec, class string) bool {
	ls, err := machineLinks(p, spec)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(ls, func(l fabric.LinkParams) bool { return l.Name == class })
}

// machineLinks are the parameters of the links of spec's network built
// with p's links: one node's where one can stand for all.
func machineLinks(p platform.Platform, spec *topology.Spec) ([]fabric.LinkParams, error) {
	ls, err := p.LinkSettings()
	if err != nil {
		return nil, err
	}
	net, err := spec.Build(rtl.NewKernel(), ls, spec.CanFold())
	if err != nil {
		return nil, err
	}
	out := make([]fabric.LinkParams, len(net.Links))
	for i, l := range net.Links {
		out[i] = l.Params
	}
	return out, nil
}

// platformWithout is p with key at its default (a class's key unset, to
// follow its base class's).
func platformWithout(p platform.Platform, key string) platform.Platform {
	out := platform.Default()
	for _, q := range platform.Params() {
		if q.Key != key && !q.Unset(&p) {
			_ = out.Set(q.Key, q.Get(&p)) // p's own values, each set before
		}
	}
	return out
}
