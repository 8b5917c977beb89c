package main

import (
	"fmt"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/plots"
)

// drawComparison draws a comparison's figures into dir (created if need
// be): utilization.{png,svg} and breakdown.{png,svg}.
func drawComparison(flag, dir string, rep *compare.Report) error {
	return draw(flag, dir, func(dir string) error {
		if _, err := plots.Utilization(rep, dir); err != nil {
			return err
		}
		_, err := plots.Breakdown(rep, dir)
		return err
	})
}

// draw runs f on dir (given by flag: --plot, or --out), created if need
// be; nothing when dir is "".
func draw(flag, dir string, f func(dir string) error) error {
	if dir == "" {
		return nil
	}
	if err := makeDir(flag, dir); err != nil {
		return err
	}
	if err := f(dir); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}
