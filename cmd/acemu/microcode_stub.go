package main

import (
	"fmt"

	"github.com/acemu/acemu/collectives"
)

func loadMicrocode(plan *collectives.Plan, path string) error {
	return fmt.Errorf("--microcode %s: not wired yet", path)
}
