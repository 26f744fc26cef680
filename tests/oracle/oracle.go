// SPDX-License-Identifier: GPL-2.0-or-later

// The differential oracle of tests/oracle.test: does kata-guard's decoding
// of config.json and of Kata's configuration see exactly what the real Go
// decoders see?  runc, containerd and Kata read config.json with
// encoding/json into runtime-spec's types; Kata reads its TOML with
// BurntSushi/toml into its own types (kata.go mirrors them).
//
//	oracle spec|kata < LINES
//	    LINES are tests/oracle/guard-view's, one per file.  For each file
//	    the guard allowed: decode the raw file with the real decoder (an
//	    error means the runtime refuses it too: "oracle-refused"); prune
//	    the guard's tree to what an exact-name reader sees, decode it into
//	    the same Go type with encoding/json, and compare the two values.
//	    In spec mode also what the runtimes derive from the values: each
//	    mount's bind and read-only readings (values.go) against the guard's.
//	oracle fuzz spec|kata -seeds DIR... -n N -seed S -guard GUARD-VIEW -work DIR
//	    the same on N mutants of the seed files (mutate.go), deterministic
//	    for a given seed, in batches of -batch files per guard-view run.
//	    With -rs ORACLE-RS (kata mode) each batch's guard-view lines also
//	    go to the runtime-rs oracle (tests/oracle/rs); the exit status is
//	    then 1 for a disagreement with Go's decoder, 4 for one with
//	    runtime-rs's, 5 for both.
//
// A difference is a disagreement: the file, the first differing path and
// both values are printed, and the exit status is 1.
//
// Built in GOPATH mode from Debian's packages, nothing fetched:
// GO111MODULE=off GOPATH=/usr/share/gocode go build -o oracle tests/oracle/*.go
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// One line of guard-view.
type guardLine struct {
	File    string          `json:"file"`
	Allowed bool            `json:"allowed"`
	Refused string          `json:"refused"`
	Tree    json.RawMessage `json:"tree"`
	// spec mode: what the guard made of each mount (values.go)
	Mounts []*mountReading `json:"mounts"`
}

type counts struct {
	Inputs, Allowed, OracleRefused, Agreed, Disagreements int
	// spec mode: the mounts whose runtime readings were compared
	Mounts int
}

func (c *counts) add(o counts) {
	c.Inputs += o.Inputs
	c.Allowed += o.Allowed
	c.OracleRefused += o.OracleRefused
	c.Agreed += o.Agreed
	c.Disagreements += o.Disagreements
	c.Mounts += o.Mounts
}

func (c counts) String() string {
	s := fmt.Sprintf("inputs %d, guard-allowed %d, oracle-refused %d, agreed %d, disagreements %d",
		c.Inputs, c.Allowed, c.OracleRefused, c.Agreed, c.Disagreements)
	if c.Mounts > 0 {
		s += fmt.Sprintf(", mounts read as runc and Kata read them %d", c.Mounts)
	}
	return s
}

// A disagreement, printed as one block.
type disagreement struct {
	File, Path, Guard, Real string
}

func (d disagreement) String() string {
	return fmt.Sprintf("DISAGREEMENT %s\n  at %s\n  guard sees: %s\n  Go sees:    %s", d.File, d.Path, d.Guard, d.Real)
}

// The mode's Go type, and its real decoder on raw bytes.
type mode struct {
	name   string
	typ    reflect.Type
	decode func(raw []byte, into interface{}) error
	ext    string
}

var modes = map[string]mode{
	"spec": {"spec", reflect.TypeOf(specs.Spec{}), func(raw []byte, into interface{}) error {
		return json.Unmarshal(raw, into)
	}, ".json"},
	"kata": {"kata", reflect.TypeOf(kataConfig{}), func(raw []byte, into interface{}) error {
		_, err := toml.Decode(string(raw), into)
		return err
	}, ".toml"},
}

// ---- pruning -----------------------------------------------------------

// The JSON names of struct type T's fields, as encoding/json reads them
// (promoted fields of embedded structs included), with their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name := strings.Split(tag, ",")[0]
		if tag == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Ptr {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				for k, v := range jsonFields(et) {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if f.PkgPath != "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// A non-finite float of the guard's view at a float field: JSON cannot
// carry it, so the pruned tree holds 0 there and the comparison uses this.
type specials map[string]float64

type pruner struct {
	sp specials
	// BurntSushi's rules where they differ from encoding/json's in what
	// reaches a field at all: a value that is not a table, for a field of
	// map type, is dropped without an error (unifyMap: "if tmap == nil
	// { return nil }", in 1.2.0 as in 1.6.0).  Kata then reads nothing
	// there, and so does an exact-name reader of the guard's tree; the
	// guard itself only ever reads more (its scans descend into arrays of
	// tables), never less.
	toml bool
}

// V (the guard's tree, decoded with UseNumber) cut down to what a reader
// matching names exactly would take into type T: of an object read as a
// struct only the members named exactly as a field.  Everything else is
// kept as it is, so that a value of the wrong kind still fails to decode.
func (pr *pruner) prune(v interface{}, t reflect.Type, path string) interface{} {
	for t.Kind() == reflect.Ptr {
		t = t.Elem()
	}
	// The guard-view float marker (kata mode): {"$float": "TEXT"}.
	if m, ok := v.(map[string]interface{}); ok && len(m) == 1 {
		if s, ok := m["$float"].(string); ok {
			return pruneFloat(s, t, path, pr.sp, v)
		}
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]interface{})
		if !ok {
			return v
		}
		fields := jsonFields(t)
		out := map[string]interface{}{}
		for k, val := range m {
			if ft, ok := fields[k]; ok {
				out[k] = pr.prune(val, ft, path+"."+k)
			}
		}
		return out
	case reflect.Map:
		m, ok := v.(map[string]interface{})
		if !ok && pr.toml {
			return nil
		}
		if !ok {
			return v
		}
		out := map[string]interface{}{}
		for k, val := range m {
			out[k] = pr.prune(val, t.Elem(), path+"["+strconv.Quote(k)+"]")
		}
		return out
	case reflect.Slice, reflect.Array:
		a, ok := v.([]interface{})
		if !ok {
			return v
		}
		out := make([]interface{}, len(a))
		for i, val := range a {
			out[i] = pr.prune(val, t.Elem(), path+"["+strconv.Itoa(i)+"]")
		}
		return out
	}
	return v
}

// A TOML float of the guard's view (TEXT: %.17g, nan, inf or -inf) for a
// field of type T.  BurntSushi parses the text as a float64 and converts
// it to the field's kind (reflect.Value.SetFloat rounds to float32), while
// encoding/json would parse the decimal text for a float32 directly: the
// two can round differently, a harness artifact, so the number handed to
// encoding/json is the float32 value itself, written exactly.
func pruneFloat(text string, t reflect.Type, path string, sp specials, orig interface{}) interface{} {
	if t.Kind() != reflect.Float32 && t.Kind() != reflect.Float64 {
		return orig // the wrong kind: fails to decode
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		switch text {
		case "nan":
			f = math.NaN()
		case "inf":
			f = math.Inf(1)
		case "-inf":
			f = math.Inf(-1)
		default:
			return orig
		}
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		sp[path] = f
		return json.Number("0")
	}
	if t.Kind() == reflect.Float32 {
		return json.Number(strconv.FormatFloat(float64(float32(f)), 'g', -1, 32))
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

// ---- comparison ----------------------------------------------------------

// The first path at which A and B (values of one type) differ, or "",
// with A's and B's values there.
// NaN equals NaN; SP gives B's value at float paths the guard's tree could
// not carry in JSON.
func diff(a, b reflect.Value, path string, sp specials) (string, string, string) {
	switch a.Kind() {
	case reflect.Ptr, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path, show(a), show(b)
			}
			return "", "", ""
		}
		if a.Kind() == reflect.Interface && a.Elem().Type() != b.Elem().Type() {
			return path, show(a), show(b)
		}
		return diff(a.Elem(), b.Elem(), path, sp)
	case reflect.Struct:
		t := a.Type()
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).PkgPath != "" {
				continue
			}
			name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
			if name == "" {
				name = t.Field(i).Name
			}
			if p, x, y := diff(a.Field(i), b.Field(i), path+"."+name, sp); p != "" {
				return p, x, y
			}
		}
		return "", "", ""
	case reflect.Map:
		if a.Len() != b.Len() || a.IsNil() != b.IsNil() {
			return path, show(a), show(b)
		}
		keys := a.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			p := path + "[" + strconv.Quote(k.String()) + "]"
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return p, show(a.MapIndex(k)), "(absent)"
			}
			if p, x, y := diff(a.MapIndex(k), bv, p, sp); p != "" {
				return p, x, y
			}
		}
		return "", "", ""
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() || (a.Kind() == reflect.Slice && a.IsNil() != b.IsNil()) {
			return path, show(a), show(b)
		}
		for i := 0; i < a.Len(); i++ {
			if p, x, y := diff(a.Index(i), b.Index(i), path+"["+strconv.Itoa(i)+"]", sp); p != "" {
				return p, x, y
			}
		}
		return "", "", ""
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		if s, ok := sp[path]; ok {
			y = s
			if b.Kind() == reflect.Float32 && !math.IsNaN(s) && !math.IsInf(s, 0) {
				y = float64(float32(s))
			}
		}
		if x == y || (math.IsNaN(x) && math.IsNaN(y)) {
			return "", "", ""
		}
		return path, strconv.FormatFloat(x, 'g', -1, 64), strconv.FormatFloat(y, 'g', -1, 64)
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return path, show(a), show(b)
	}
	return "", "", ""
}

func show(v reflect.Value) string {
	if !v.IsValid() {
		return "(absent)"
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Sprintf("%#v", v.Interface())
	}
	return string(b)
}

// ---- one guard-view line -------------------------------------------------

// The outcome of one line: its counts and, for a disagreement, what.
func compareLine(m mode, line []byte) (counts, *disagreement, error) {
	var c counts
	var g guardLine

	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&g); err != nil {
		return c, nil, fmt.Errorf("unreadable guard-view line: %v: %.200s", err, line)
	}
	c.Inputs = 1
	if !g.Allowed {
		return c, nil, nil
	}
	c.Allowed = 1
	if len(g.Tree) == 0 || string(g.Tree) == "null" {
		return c, nil, fmt.Errorf("%s: allowed without a tree", g.File)
	}
	raw, err := os.ReadFile(g.File)
	if err != nil {
		return c, nil, err
	}

	// (a) The real decoder on the raw bytes.
	real := reflect.New(m.typ)
	if err := m.decode(raw, real.Interface()); err != nil {
		c.OracleRefused = 1
		return c, nil, nil
	}

	// (b) The guard's tree, as an exact-name reader, into the same type.
	var tree interface{}
	tdec := json.NewDecoder(bytes.NewReader(g.Tree))
	tdec.UseNumber()
	if err := tdec.Decode(&tree); err != nil {
		return c, nil, fmt.Errorf("%s: the guard's tree: %v", g.File, err)
	}
	sp := specials{}
	pr := &pruner{sp, m.name == "kata"}
	pruned, err := json.Marshal(pr.prune(tree, m.typ, ""))
	if err != nil {
		return c, nil, fmt.Errorf("%s: the pruned tree: %v", g.File, err)
	}
	view := reflect.New(m.typ)
	if err := json.Unmarshal(pruned, view.Interface()); err != nil {
		// The real decoder took the file but the guard's values do not
		// fit the fields: the two read different values.
		c.Disagreements = 1
		return c, &disagreement{g.File, "(decoding the guard's view)", err.Error(), "decodes without error"}, nil
	}

	// (c) Compare: json.Marshal of both, and the first differing path.
	rj, rerr := json.Marshal(real.Interface())
	vj, verr := json.Marshal(view.Interface())
	p, x, y := diff(real.Elem(), view.Elem(), "", sp)
	same := p == ""
	if rerr == nil && verr == nil && len(sp) == 0 {
		// Marshal cannot carry NaN; otherwise it is the judge, and the
		// walk only names the place.
		same = bytes.Equal(rj, vj)
		if !same && p == "" {
			p, x, y = "(somewhere)", string(rj), string(vj)
		}
	}
	if same && m.name == "spec" {
		// The same values: do the runtimes derive from them what the
		// guard did?
		spec := real.Interface().(*specs.Spec)
		c.Mounts = len(spec.Mounts)
		if d := compareMounts(g.File, spec, g.Mounts); d != nil {
			c.Disagreements = 1
			return c, d, nil
		}
	}
	if same {
		c.Agreed = 1
		return c, nil, nil
	}
	c.Disagreements = 1
	if p == "" {
		p = "$"
	} else {
		p = "$" + p
	}
	return c, &disagreement{g.File, p, y, x}, nil
}

// Every line of R, compared; disagreements are printed to W.
func compareStream(m mode, r io.Reader, w io.Writer) (counts, []disagreement, error) {
	var total counts
	var found []disagreement

	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		c, d, err := compareLine(m, sc.Bytes())
		if err != nil {
			return total, found, err
		}
		total.add(c)
		if d != nil {
			fmt.Fprintln(w, d)
			found = append(found, *d)
		}
	}
	return total, found, sc.Err()
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: oracle spec|kata < guard-view-lines\n"+
		"       oracle fuzz spec|kata -seeds DIR... -n N -seed S -guard GUARD-VIEW -work DIR [-batch B] [-jobs J] [-keep] [-rs ORACLE-RS]")
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	if os.Args[1] == "fuzz" {
		os.Exit(fuzzMain(os.Args[2:]))
	}
	m, ok := modes[os.Args[1]]
	if !ok || len(os.Args) != 2 {
		usage()
	}
	c, _, err := compareStream(m, os.Stdin, os.Stdout)
	fmt.Printf("oracle %s: %s\n", m.name, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(2)
	}
	if c.Disagreements > 0 {
		os.Exit(1)
	}
}
