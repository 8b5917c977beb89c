package main

import (
	"os"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/plots"
)

// drawComparison draws a comparison's figures into dir (created if need
// be): utilization.{png,svg} and breakdown.{png,svg}.
func drawComparison(dir string, rep *compare.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := plots.Utilization(rep, dir); err != nil {
		return err
	}
	_, err := plots.Breakdown(rep, dir)
	return err
}
