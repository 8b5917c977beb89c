package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/rtl"
	"github.com/acemu/acemu/topology"
)

const topologyUsage = `Usage: acemu topology dump --topo LxVxH|dgx1|switch:P0xP1…|FILE [--config FILE] [--set KEY=VALUE ...]

Print a topology in the file format --topo FILE reads (docs/topology.md): its
NPUs, its switches if it has any, and its directed links. A torus's links
carry their raw bandwidth and latency; dgx1's, a switch fabric's and a
file's links of a class carry their class, and their bandwidth and latency
only where they differ from the class's (the platform's links.CLASS.*,
by default links.intra.* or links.inter.*), parallel links as lanes; dgx1's ring, a switch fabric's
tiers and a file's dims are written as dims. Start from a torus, edit the
links, and run a collective on it:

  acemu topology dump --topo 4x2x1 > ring.yaml
  acemu collective --topo ring.yaml --algorithm tree --check-data

--format json writes the same document as JSON, which --topo also reads;
table and csv list the links one per row.

Flags:
`

// runTopology is `acemu topology dump`.
func runTopology(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("topology", pflag.ContinueOnError)
	topo := fs.String("topo", "4x4x4", "torus shape LxVxH, dgx1, a switch fabric switch:P0xP1, or a topology file")
	format := fs.String("format", "yaml", "output: yaml (the file format), "+formats)
	var wide bool
	registerWide(fs, &wide)
	var pf platformFlags
	pf.register(fs)
	fs.Usage = func() { fmt.Fprintf(fs.Output(), "%s%s", topologyUsage, fs.FlagUsages()) }
	if done, code := parseDump(fs, args, "acemu topology dump --topo 4x2x2 > topo.yaml", topologyUsage, stdout, stderr); done {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acemu topology: %v\n", err)
		return 1
	}
	p, err := pf.build(fs)
	if err != nil {
		return fail(err)
	}
	if err := checkFormat(*format, "yaml"); err != nil {
		return fail(err)
	}
	// The file holds nodes and links (raw bandwidth, latency) only.
	if err := unusedParams(p, "acemu topology dump", "ace.", "training.", "afi.", "npu.compute_speed", "links.efficiency", "links.tx_buffer", "links.rx_buffer", "baseline.", "collectives."); err != nil {
		return fail(err)
	}
	spec, err := topology.Parse(*topo)
	if err != nil {
		return fail(err)
	}
	if n := spec.Machine.N(); n < 2 || n > topology.MaxNodes {
		return fail(fmt.Errorf("--topo %s: %d NPUs; a topology file holds 2 to %d nodes, so its dump could not be read back", *topo, n, topology.MaxNodes))
	}
	if err := unusedLinkKeys(p, spec, *topo); err != nil {
		return fail(err)
	}
	settings, err := p.LinkSettings()
	if err != nil {
		return fail(err)
	}
	net, err := spec.Build(rtl.NewKernel(), settings, false)
	if err != nil {
		return fail(err)
	}
	// A torus's dump keeps its plain form: every link's bandwidth and
	// latency, no classes, no dims. Other machines' dims are written
	// unless they are a file's default (one routed dimension, all).
	form, dims, trees := topology.Classed, spec.Machine.Dims, spec.Machine.Trees
	if spec.Kind == "torus" {
		form, dims = topology.Plain, nil
	}
	if *format != "yaml" {
		header, rows, doc, err := topology.Table(net, dims, trees, settings, form)
		if err != nil {
			return fail(fmt.Errorf("--topo %s: %w", *topo, err))
		}
		note := fmt.Sprintf("%d nodes, %d directed links; bandwidth is raw (before links.efficiency), latency in cycles", net.NPUs(), len(net.Links))
		if sw := len(net.Switches()); sw > 0 {
			note = fmt.Sprintf("%d NPUs, %d switches (nodes %d to %d), %d directed links; bandwidth is raw (before links.efficiency), latency in cycles", net.NPUs(), sw, net.NPUs(), net.NPUs()+sw-1, len(net.Links))
		}
		res := result{header: header, rows: rows, doc: doc, notes: []string{note}, wide: wide}
		if err := res.write(stdout, *format); err != nil {
			return fail(err)
		}
		return 0
	}
	b, err := topology.Dump(net, dims, trees, settings, form)
	if err != nil {
		return fail(fmt.Errorf("--topo %s: %w", *topo, err))
	}
	_, _ = stdout.Write(b)
	return 0
}
