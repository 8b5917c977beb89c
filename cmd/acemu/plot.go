package main

import (
	"fmt"
	"os"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/plots"
)

// drawComparison draws a comparison's figures into dir (created if need
// be): utilization.{png,svg} and breakdown.{png,svg}.
func drawComparison(dir string, rep *compare.Report) error {
	return draw(dir, func(dir string) error {
		if _, err := plots.Utilization(rep, dir); err != nil {
			return err
		}
		_, err := plots.Breakdown(rep, dir)
		return err
	})
}

// draw runs f on dir (--plot), created if need be; nothing when dir is "".
func draw(dir string, f func(dir string) error) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	if err := f(dir); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	return nil
}
