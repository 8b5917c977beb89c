package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acemu/acemu/compare"
	"github.com/acemu/acemu/internal/buildinfo"
)

// storeSchema is the version of a sweep directory's records (sweep.json
// and points/NNNNNN.json): 1 since they record the build that wrote them
// and each point its SHA-256. A record of another version (or of none,
// written before) is refused: its points are run again.
const storeSchema = 1

// storedPoint is a point's file, points/NNNNNN.json: the build that ran
// it, the point, and the SHA-256 of the rest.
type storedPoint struct {
	Schema int             `json:"schema"`
	Build  buildinfo.Build `json:"build"`
	// SHA256 is the SHA-256 of the record's canonical JSON (as
	// json.Marshal writes it) with SHA256 empty.
	SHA256 string      `json:"sha256,omitempty"`
	Point  PointResult `json:"point"`
}

// contentHash is the record's content hash: the SHA-256 of its canonical JSON
// without its SHA-256 field.
func (r storedPoint) contentHash() (string, error) {
	r.SHA256 = ""
	return sha256JSON(r)
}

// sha256JSON is the SHA-256 of v's canonical JSON (as json.Marshal
// writes it), in hex.
func sha256JSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", sha256.Sum256(b)), nil
}

// encodePoint is point p's file as the build b writes it.
func encodePoint(p PointResult, b buildinfo.Build) ([]byte, error) {
	r := storedPoint{Schema: storeSchema, Build: b, Point: p}
	var err error
	if r.SHA256, err = r.contentHash(); err != nil {
		return nil, fmt.Errorf("point %d: %w", p.Index, err)
	}
	out, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("point %d: %w", p.Index, err)
	}
	return out, nil
}

// schemaOf reads a record's schema alone ("schema", 0 when absent), so
// that a record of another version is named as such before its fields
// are read.
func schemaOf(b []byte) (int, error) {
	var v struct {
		Schema int `json:"schema"`
	}
	err := json.Unmarshal(b, &v)
	return v.Schema, err
}

// olderSchema says why a record of version v is refused.
func olderSchema(v int) string {
	if v == 0 {
		return "written by an older acemu, which recorded neither its build nor a content hash"
	}
	return fmt.Sprintf("record version %d, where this acemu reads %d", v, storeSchema)
}

// decodePoint reads point file name (its content b) of the sweep s,
// written by build want, and verifies it: its version, its SHA-256, that
// it is the sweep's point of its file's index, and that its numbers agree
// with one another. fix is what to do about a point that fails.
func decodePoint(name string, b []byte, s *Spec, fp string, want buildinfo.Build, fix string) (*PointResult, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %s; %s", name, fmt.Sprintf(format, a...), fix)
	}
	v, err := schemaOf(b)
	if err != nil {
		return nil, bad("not a point's result (%v)", err)
	}
	if v != storeSchema {
		return nil, bad("%s", olderSchema(v))
	}
	var r storedPoint
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, bad("not a point's result (%v)", err)
	}
	if !r.Build.Same(want) {
		return nil, bad("written by %s, but its directory's sweep.json by %s", r.Build, want)
	}
	p := &r.Point
	if err := s.checkPoint(filepath.Base(name), p, fp); err != nil {
		return nil, bad("%v", err)
	}
	d, err := r.contentHash()
	if err != nil {
		return nil, bad("%v", err)
	}
	if r.SHA256 != d {
		return nil, bad("its content does not match its SHA-256 (edited or damaged since it was written: recorded %.12s, content %.12s)", r.SHA256, d)
	}
	return p, nil
}

// checkPoint checks that p, read from the file named file, is the sweep's
// point of the file's index (fingerprint fp) and that its numbers agree:
// per system the totals are the sums of the iterations', compute plus
// exposed communication, and the means the totals over the iterations;
// the speed-ups and fractions of ideal are the totals' ratios.
func (s *Spec) checkPoint(file string, p *PointResult, fp string) error {
	if p.Index < 0 || p.Index >= s.Len() || file != pointFile(p.Index) {
		return fmt.Errorf("index %d is not this file's point of the sweep's %d", p.Index, s.Len())
	}
	pt := s.Point(p.Index)
	switch {
	case p.Sweep != fp:
		return fmt.Errorf("not the sweep's point %d (of another sweep)", p.Index)
	case !slices.Equal(p.Values, pt.Values):
		return fmt.Errorf("not the sweep's point %d (values %s, where the sweep's are %s)", p.Index, strings.Join(p.Values, ","), strings.Join(pt.Values, ","))
	case p.Workload != pt.Workload:
		return fmt.Errorf("not the sweep's point %d (workload %q, where the sweep's is %q)", p.Index, p.Workload, pt.Workload)
	case p.Topology != pt.Topology:
		return fmt.Errorf("not the sweep's point %d (topology %q, where the sweep's is %q)", p.Index, p.Topology, pt.Topology)
	}
	names := make([]string, len(p.Systems))
	for i, r := range p.Systems {
		names[i] = r.Name
	}
	if !slices.Equal(names, s.Systems) {
		return fmt.Errorf("not the sweep's point %d (systems %s, where the sweep's are %s)", p.Index, strings.Join(names, ","), strings.Join(s.Systems, ","))
	}
	var ideal, aceT int64
	for i := range p.Systems {
		r := &p.Systems[i]
		if err := checkSystem(r); err != nil {
			return fmt.Errorf("%s: %w", r.Name, err)
		}
		switch r.Name {
		case "ideal":
			ideal = r.TotalCycles
		case "ace":
			aceT = r.TotalCycles
		}
	}
	// The ratios, as compare.Run computes them.
	for _, r := range p.Systems {
		got, want := "none", "none" // absent when no ideal system ran
		if r.FractionOfIdeal != nil {
			got = fmt.Sprint(*r.FractionOfIdeal)
		}
		if ideal > 0 && r.TotalCycles > 0 {
			want = fmt.Sprint(float64(ideal) / float64(r.TotalCycles))
		}
		if got != want {
			return fmt.Errorf("%s: fraction of ideal %s, where its total cycles give %s", r.Name, got, want)
		}
	}
	n := 0
	for _, r := range p.Systems {
		if aceT > 0 && r.Name != "ace" {
			n++
			if got, want := p.SpeedupOfACE[r.Name], float64(r.TotalCycles)/float64(aceT); got != want {
				return fmt.Errorf("speed-up of ACE over %s %v, where the total cycles give %v", r.Name, got, want)
			}
		}
	}
	if len(p.SpeedupOfACE) != n {
		return fmt.Errorf("%d speed-ups of ACE, where the systems give %d", len(p.SpeedupOfACE), n)
	}
	return nil
}

// checkSystem checks one system's cycle counts agree with one another.
func checkSystem(r *compare.SystemResult) error {
	if r.Iterations < 1 || r.Iterations != len(r.PerIteration) {
		return fmt.Errorf("%d iterations with %d iteration times", r.Iterations, len(r.PerIteration))
	}
	var sum int64
	for i, c := range r.PerIteration {
		if c < 0 || c > math.MaxInt64-sum {
			return fmt.Errorf("iteration %d takes %d cycles", i, c)
		}
		sum += c
	}
	if r.TotalCycles != sum {
		return fmt.Errorf("total cycles %d, where its iterations add up to %d", r.TotalCycles, sum)
	}
	if r.TotalCompute < 0 || r.TotalCompute > sum || r.TotalExposedComm != sum-r.TotalCompute {
		return fmt.Errorf("compute %d plus exposed communication %d cycles is not its total cycles %d", r.TotalCompute, r.TotalExposedComm, sum)
	}
	n := float64(r.Iterations)
	for _, m := range []struct {
		what        string
		mean, total float64
	}{
		{"iteration", r.IterationCycles, float64(r.TotalCycles)},
		{"compute", r.ComputeCycles, float64(r.TotalCompute)},
		{"exposed communication", r.ExposedCommCycles, float64(r.TotalExposedComm)},
	} {
		if m.mean != m.total/n {
			return fmt.Errorf("%s cycles per iteration %v, where its total over %d iterations gives %v", m.what, m.mean, r.Iterations, m.total/n)
		}
	}
	return nil
}

// storedSweep is a directory's sweep.json: the build that began it, the
// sweep and the shard it holds.
type storedSweep struct {
	Schema int             `json:"schema"`
	Build  buildinfo.Build `json:"build"`
	Shard  string          `json:"shard"`
	Spec   *Spec           `json:"sweep"`
}

// readSweep reads dir's sweep.json, b, refusing one of another version.
// fix is what to do about one that is refused.
func readSweep(dir string, b []byte, fix string) (storedSweep, error) {
	var d storedSweep
	v, err := schemaOf(b)
	if err == nil && v != storeSchema {
		return d, fmt.Errorf("%s: %s; %s", filepath.Join(dir, SweepFile), olderSchema(v), fix)
	}
	if err == nil {
		err = json.Unmarshal(b, &d)
	}
	if err != nil {
		return d, fmt.Errorf("%s is not a sweep's (%v); %s", filepath.Join(dir, SweepFile), err, fix)
	}
	if d.Spec == nil {
		return d, fmt.Errorf("%s is not a sweep's: it has no \"sweep\" (the sweep's axes and base platform); %s", filepath.Join(dir, SweepFile), fix)
	}
	return d, nil
}

// CheckMergeOut refuses out as merge's --out when it is one of the
// directories merged, another sweep's directory (it has a sweep.json) or
// a sweep's points directory: the results written there would sit among
// a sweep's own records.
func CheckMergeOut(out string, dirs []string) error {
	if out == "" {
		return nil
	}
	oi, oerr := os.Stat(out)
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return filepath.Clean(p)
		}
		return a
	}
	for _, d := range dirs {
		same := abs(d) == abs(out)
		if di, err := os.Stat(d); err == nil && oerr == nil {
			same = same || os.SameFile(oi, di)
		}
		if same {
			return fmt.Errorf("merge: --out %s is %s, one of the directories merged; give a directory of its own for the results", out, d)
		}
	}
	if _, err := os.Stat(filepath.Join(out, SweepFile)); err == nil {
		return fmt.Errorf("merge: --out %s is a sweep's directory (it has a sweep.json); give a directory of its own for the results", out)
	} else if !errors.Is(err, os.ErrNotExist) && oerr == nil {
		return fmt.Errorf("merge: --out %s: %w", out, err)
	}
	if filepath.Base(abs(out)) == pointsDir {
		if _, err := os.Stat(filepath.Join(filepath.Dir(abs(out)), SweepFile)); err == nil {
			return fmt.Errorf("merge: --out %s is a sweep's points directory; give a directory of its own for the results", out)
		}
	}
	return nil
}
