package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acemu/acemu/platform"
	"github.com/acemu/acemu/systems"
	"github.com/acemu/acemu/train"
	"github.com/acemu/acemu/workload"
)

// PlatformOptions are the options of a comparison on platform p (its
// links, AFI, ACE and training parameters); the caller adds the shape,
// workload and systems.
func PlatformOptions(p platform.Platform) (Options, error) {
	links, err := p.LinkSettings()
	if err != nil {
		return Options{}, err
	}
	micro, err := train.ParseMicro(p.Micro)
	if err != nil {
		return Options{}, err
	}
	return Options{Micro: micro, Iterations: p.Iterations, Order: p.Order, ACE: p.ACE, Library: p.Library, Memory: p.Memory,
		Links: links, ChunkBytes: p.ChunkBytes, MessageBytes: p.MessageBytes,
		MemBoundShare: p.MemBoundShare, ComputeSpeed: p.ComputeSpeed, Algorithms: p.AlgorithmMap(), Issue: p.Issue, Fusion: p.Fusion}, nil
}

// PlatformWorkload is the workload name (a built-in or an ASTRA-sim file)
// in platform p's compute regime (training.compute, training.batch;
// workload.Resolve).
func PlatformWorkload(p platform.Platform, name string) (*workload.Workload, error) {
	return PlatformWorkloadGiven(p, name, workload.ByKey)
}

// PlatformWorkloadGiven is PlatformWorkload whose messages name
// training.compute and training.batch as given says they were given.
func PlatformWorkloadGiven(p platform.Platform, name string, given workload.Given) (*workload.Workload, error) {
	w, err := workload.ResolveGiven(name, p.Compute, p.Batch, given)
	if err != nil {
		return nil, fmt.Errorf("--workload %s: %w", name, err)
	}
	return w, nil
}

// PlatformSystems looks up Table VI's systems by name, ACE's memory share
// set to p's (ace.mem_bw); an unknown name or an empty list is an error.
func PlatformSystems(names []string, p platform.Platform) ([]systems.System, error) {
	var ss []systems.System
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return nil, fmt.Errorf("%s given twice; name each system once", n)
		}
		s, err := systems.Lookup(n)
		if err != nil {
			return nil, err
		}
		if s.Kind == systems.Baseline && s.CommSMs == 0 {
			return nil, fmt.Errorf("%s: this system takes its communication SMs and memory from --comm-sms and --comm-mem-bw, which only acemu collective has; here use Table VI's baseline-nooverlap, baseline-commopt or baseline-compopt", n)
		}
		if s, err = s.WithACEMemory(p.ACE.CommMemGBps); err != nil {
			return nil, fmt.Errorf("ace.mem_bw: %w", err)
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
		ss = append(ss, s)
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("no systems given: use some of %s", strings.Join(systems.Names(), ", "))
	}
	return ss, nil
}
