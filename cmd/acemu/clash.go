package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/acemu/acemu/sweep"
)

// fileUse is one file a command reads or writes: the flag that names it,
// as the messages say it ("--workload", "--trace (for ace)"), and its path
// ("" for none); for a file a directory flag writes (--out, --plot), the
// directory given and the file's name in it.
type fileUse struct {
	flag, path string
	dir, name  string
}

// fix says what to give instead: the output flag, without the system a
// per-system file is for, another path (a directory flag another
// directory).
func (u fileUse) fix() string {
	flag, _, _ := strings.Cut(u.flag, " ")
	if u.name != "" {
		return "give " + flag + " another directory"
	}
	return "give " + flag + " another path"
}

// refuseClashes is the one check of every command's files, made before
// its run starts: no output may be an input, and no two outputs one file.
// Two paths are one file when they name it by any route: the same path,
// another spelling of it (../, ./, an absolute path), a symlink to it or a
// hard link of it (an existing file is its device and inode; a file not
// there yet is its directory, symlinks resolved, and its name). An output
// on an input would destroy the input (the run reads it first, and the
// output replaces it); two outputs on one file would keep one and lose
// the other. Inputs may share a file.
func refuseClashes(inputs, outputs []fileUse) error {
	ins := map[string]fileUse{}
	for _, in := range inputs {
		if in.path == "" {
			continue
		}
		if k := fileKey(in.path); ins[k].path == "" {
			ins[k] = in
		}
	}
	outs := map[string]fileUse{}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		k := fileKey(o.path)
		if in, ok := ins[k]; ok {
			return fmt.Errorf("%s and %s name the same file, %s%s; acemu never writes over an input: %s, or move the input",
				in.flag, o.label(), in.path, alsoAs(o.path, in.path), o.fix())
		}
		if prev, ok := outs[k]; ok {
			return fmt.Errorf("%s and %s name the same file, %s%s; give each its own", prev.label(), o.label(), prev.path, alsoAs(o.path, prev.path))
		}
		outs[k] = o
	}
	return nil
}

// label is the flag that writes the file: "--trace (for ace)", "--out's
// result.json".
func (u fileUse) label() string {
	if u.name != "" {
		return u.flag + "'s " + u.name
	}
	return u.flag
}

// alsoAs names the other path of a file named twice, when it differs.
func alsoAs(other, path string) string {
	if filepath.Clean(other) == filepath.Clean(path) {
		return ""
	}
	return " (as " + other + ")"
}

// fileKey is what a path names: for an existing regular file its device
// and inode, so that every path to it (a symlink, a hard link, ../) is one
// key; else (a file not there yet, a device, a pipe) the absolute path
// with every symlink of it that exists resolved.
func fileKey(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			return fmt.Sprintf("inode %d:%d", st.Dev, st.Ino)
		}
	}
	return "path " + resolvePath(path)
}

// resolvePath is path made absolute with its longest existing leading
// part's symlinks (and the ../ after them) resolved as the system does,
// and the rest, not there yet, cleaned.
func resolvePath(path string) string {
	abs := path
	if !filepath.IsAbs(abs) {
		wd, err := os.Getwd()
		if err != nil {
			return filepath.Clean(abs)
		}
		abs = wd + string(filepath.Separator) + abs // not cleaned: a symlink's ../ is the system's
	}
	parts := strings.Split(abs, string(filepath.Separator))
	for n := len(parts); n > 0; n-- {
		head := strings.Join(parts[:n], string(filepath.Separator))
		if head == "" {
			head = string(filepath.Separator)
		}
		if r, err := filepath.EvalSymlinks(head); err == nil {
			return filepath.Join(append([]string{r}, parts[n:]...)...)
		}
	}
	return filepath.Clean(abs)
}

// dirFiles are the files names that flag writes into dir, each named
// "FLAG's NAME"; none when dir is "".
func dirFiles(flag, dir string, names ...string) []fileUse {
	if dir == "" {
		return nil
	}
	var out []fileUse
	for _, n := range names {
		out = append(out, fileUse{flag: flag, path: filepath.Join(dir, n), dir: dir, name: n})
	}
	return out
}

// sweepDirFiles are the files a sweep kept in root/sub (root given by
// flag: --out) may write: its sweep.json (or a kept sweep's kept.json,
// sweep.RunKept) and its points, of which only
// those already there can be an input (points/ holds nothing else a sweep
// would read).
func sweepDirFiles(flag, root, sub string) []fileUse {
	if root == "" {
		return nil
	}
	var out []fileUse
	add := func(name string) {
		rel := filepath.Join(sub, name)
		out = append(out, fileUse{flag: flag, path: filepath.Join(root, rel), dir: root, name: rel})
	}
	add(sweep.SweepFile)
	add(sweep.KeptFile)
	ents, err := os.ReadDir(filepath.Join(root, sub, "points"))
	if err != nil {
		return out // none yet: nothing there to overwrite
	}
	for _, e := range ents {
		add(filepath.Join("points", e.Name()))
	}
	return out
}

// listedFiles are the entries of a comma-separated list flag (--workloads,
// --topos) that name existing files, as inputs; built-in names are not
// files unless a file of that name exists.
func listedFiles(flag string, list []string) []fileUse {
	var out []fileUse
	for _, v := range list {
		if v = strings.TrimSpace(v); existingFile(v) && !slices.ContainsFunc(out, func(u fileUse) bool { return u.path == v }) {
			out = append(out, fileUse{flag: flag, path: v})
		}
	}
	return out
}

// existingFile says whether path names an existing file that is not a
// directory: an input a flag may read.
func existingFile(path string) bool {
	fi, err := os.Stat(path)
	return path != "" && err == nil && !fi.IsDir()
}

// makeParents creates the directory of each output file, and its
// parents, if need be: every output flag does (--trace, --pcap, --links,
// --timeseries, --per-layer; --out and --plot their directories).
func makeParents(outs []fileUse) error {
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		flag, _, _ := strings.Cut(o.flag, " ") // not the system it is for
		if err := makeDir(flag, filepath.Dir(o.path)); err != nil {
			return err
		}
	}
	return nil
}
