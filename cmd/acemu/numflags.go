package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/acemu/acemu/units"
)

// decimalInt is an integer flag's value read as written: decimal digits
// by units.ParseInt, as --set and --config read counts, where pflag's own
// integer flags read 010 as 8 and take 0x10 and 1_6 for 16 (docs/cli.md,
// "Numbers").
type decimalInt[T int | int64] struct {
	p   *T
	typ string // what the help calls the value: int or int64, as pflag's
}

// Set reads s; a number beyond T is refused.
func (d decimalInt[T]) Set(s string) error {
	n, err := units.ParseInt(s)
	if err != nil {
		return err
	}
	if int64(T(n)) != n {
		return fmt.Errorf("%d is beyond this flag's numbers", n)
	}
	*d.p = T(n)
	return nil
}

// String is the value in decimal digits, which Set reads back.
func (d decimalInt[T]) String() string { return strconv.FormatInt(int64(*d.p), 10) }

// Type is the value's name in the help, int or int64.
func (d decimalInt[T]) Type() string { return d.typ }

// intVar registers an int flag read by units.ParseInt, as fs.IntVar does
// with pflag's reading.
func intVar(fs *pflag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	fs.Var(decimalInt[int]{p, "int"}, name, usage)
}

// intFlag is intVar returning the value's address, as fs.Int does.
func intFlag(fs *pflag.FlagSet, name string, value int, usage string) *int {
	p := new(int)
	intVar(fs, p, name, value, usage)
	return p
}

// int64Flag is intFlag for an int64, as fs.Int64 does.
func int64Flag(fs *pflag.FlagSet, name string, value int64, usage string) *int64 {
	p := new(int64)
	*p = value
	fs.Var(decimalInt[int64]{p, "int64"}, name, usage)
	return p
}
