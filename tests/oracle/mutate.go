// SPDX-License-Identifier: GPL-2.0-or-later

// The oracle's fuzz mode: a seeded, deterministic mutator aimed at where
// two decoders can read one file differently (key folding, duplicate
// members, escapes, numbers, TOML's many spellings of one key), mutants
// written in batches, each batch judged by one guard-view run and then by
// the real Go decoders (oracle.go).

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ---- JSON structure, as far as the text allows --------------------------

type span struct{ start, end int } // [start, end) in the text

type member struct {
	key, val span   // the key with its quotes, the value
	obj      span   // the object holding it
	parent   string // the raw key of the member holding that object ("" at the root)
}

type jsonDoc struct {
	members []member
	values  []span // every value, strings included
	numbers []span
	strings []span // string values (not keys)
	arrays  map[string][]span
	objects map[string][]span // by the raw key of their member
	root    span
}

type scanner struct {
	b   []byte
	pos int
	doc *jsonDoc
}

func (s *scanner) ws() {
	for s.pos < len(s.b) && strings.IndexByte(" \t\r\n", s.b[s.pos]) >= 0 {
		s.pos++
	}
}

func (s *scanner) str() bool {
	if s.pos >= len(s.b) || s.b[s.pos] != '"' {
		return false
	}
	for s.pos++; s.pos < len(s.b); s.pos++ {
		switch s.b[s.pos] {
		case '\\':
			s.pos++
		case '"':
			s.pos++
			return true
		}
	}
	return false
}

func (s *scanner) value(parent string, depth int) bool {
	s.ws()
	if s.pos >= len(s.b) || depth > 80 {
		return false
	}
	start := s.pos
	ok := true
	switch c := s.b[s.pos]; {
	case c == '{':
		s.pos++
		for {
			s.ws()
			if s.pos < len(s.b) && s.b[s.pos] == '}' {
				s.pos++
				break
			}
			ks := s.pos
			if !s.str() {
				return false
			}
			key := span{ks, s.pos}
			s.ws()
			if s.pos >= len(s.b) || s.b[s.pos] != ':' {
				return false
			}
			s.pos++
			s.ws()
			vs := s.pos
			if !s.value(string(s.b[ks+1:key.end-1]), depth+1) {
				return false
			}
			s.doc.members = append(s.doc.members, member{key, span{vs, s.pos}, span{start, -1}, parent})
			s.ws()
			if s.pos < len(s.b) && s.b[s.pos] == ',' {
				s.pos++
				continue
			}
			if s.pos < len(s.b) && s.b[s.pos] == '}' {
				s.pos++
				break
			}
			return false
		}
		for i := range s.doc.members {
			if s.doc.members[i].obj.start == start && s.doc.members[i].obj.end < 0 {
				s.doc.members[i].obj.end = s.pos
			}
		}
		s.doc.objects[parent] = append(s.doc.objects[parent], span{start, s.pos})
	case c == '[':
		s.pos++
		for {
			s.ws()
			if s.pos < len(s.b) && s.b[s.pos] == ']' {
				s.pos++
				break
			}
			if !s.value(parent, depth+1) {
				return false
			}
			s.ws()
			if s.pos < len(s.b) && s.b[s.pos] == ',' {
				s.pos++
				continue
			}
			if s.pos < len(s.b) && s.b[s.pos] == ']' {
				s.pos++
				break
			}
			return false
		}
		s.doc.arrays[parent] = append(s.doc.arrays[parent], span{start, s.pos})
	case c == '"':
		ok = s.str()
		s.doc.strings = append(s.doc.strings, span{start, s.pos})
	default:
		for s.pos < len(s.b) && strings.IndexByte(",]} \t\r\n", s.b[s.pos]) < 0 {
			s.pos++
		}
		if c == '-' || (c >= '0' && c <= '9') {
			s.doc.numbers = append(s.doc.numbers, span{start, s.pos})
		}
	}
	s.doc.values = append(s.doc.values, span{start, s.pos})
	return ok
}

// The structure of B; nil when B is not JSON (the byte mutations remain).
func scanJSON(b []byte) *jsonDoc {
	d := &jsonDoc{arrays: map[string][]span{}, objects: map[string][]span{}}
	s := &scanner{b: b, doc: d}
	s.ws()
	if s.pos >= len(b) || b[s.pos] != '{' || !s.value("", 0) {
		return nil
	}
	d.root = d.values[len(d.values)-1]
	return d
}

// ---- the mutations ---------------------------------------------------------

type mutator struct {
	r *rand.Rand
}

func (m *mutator) pick(n int) int { return m.r.Intn(n) }
func (m *mutator) one(xs []string) string {
	return xs[m.pick(len(xs))]
}

func splice(b []byte, s span, with string) []byte {
	out := make([]byte, 0, len(b)+len(with))
	out = append(out, b[:s.start]...)
	out = append(out, with...)
	return append(out, b[s.end:]...)
}

func insert(b []byte, at int, with string) []byte { return splice(b, span{at, at}, with) }

// A spelling of KEY (no quotes, as written) that Go's case-insensitive
// match may take for the same field, or an escaped spelling of KEY itself.
func (m *mutator) foldVariant(key string) string {
	idx := func(c byte) []int {
		var is []int
		for i := 0; i < len(key); i++ {
			if key[i]|0x20 == c {
				is = append(is, i)
			}
		}
		return is
	}
	switch m.pick(7) {
	case 0: // one letter's case
		var is []int
		for i := 0; i < len(key); i++ {
			if (key[i]|0x20) >= 'a' && (key[i]|0x20) <= 'z' {
				is = append(is, i)
			}
		}
		if len(is) > 0 {
			i := is[m.pick(len(is))]
			return key[:i] + string(key[i]^0x20) + key[i+1:]
		}
	case 1:
		return strings.ToUpper(key)
	case 2, 3: // s -> U+017F, raw or escaped
		if is := idx('s'); len(is) > 0 {
			i := is[m.pick(len(is))]
			return key[:i] + m.one([]string{"\u017f", `\u017f`, `\u017F`}) + key[i+1:]
		}
	case 4, 5: // k -> U+212A, raw or escaped
		if is := idx('k'); len(is) > 0 {
			i := is[m.pick(len(is))]
			return key[:i] + m.one([]string{"\u212a", `\u212a`, `\u212A`}) + key[i+1:]
		}
	}
	// The same key with one ASCII letter escaped: an exact name still.
	if len(key) > 0 && key[0] != '\\' {
		i := m.pick(len(key))
		if key[i] >= 'a' && key[i] <= 'z' {
			return key[:i] + fmt.Sprintf(`\u%04x`, key[i]) + key[i+1:]
		}
	}
	return key + "\u017f"
}

var jsonEscapes = []string{`\u0000`, `\ud800`, `\udc00`, `\ud800x`, `\u00a0`, "\u00a0", `\ud83d\ude00`,
	"\xc0\xaf", "\xed\xa0\x80", "\xff", "\xf4\x90\x80\x80", "\xe2\x80\xa8", `\/`, `\"`, `\\`, "\t", `\x41`,
	`\u000a`, `\u0041`, "\xef\xbb\xbf", `\u2028`}

var jsonNumbers = []string{"0", "-1", "1.0", "1e2", "-0", "0.5", "9223372036854775807", "9223372036854775808",
	"-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
	"1e400", "-1e400", "4294967295", "4294967296", "2147483648", "1E+2", "01", "1.", "+1", "0x10",
	"100000000000000000000000000000", "1.7976931348623157e308", "5e-324"}

// A hostile member, under one of the names Go reads it by.
var hooksNames = []string{"hooks", "hooKs", "Hooks", "HOOKS", "hook\u017f", `hook\u017f`, `ho\u006fks`, `hoo\u212as`, "hoo\u212as"}

const hookValue = `{"prestart":[{"path":"/bin/sh","args":["sh","-c","id > /tmp/pwned"]}]}`
const rootBind = `{"destination":"/host","type":"bind","source":"/","options":["rbind","rw"]}`
const noNetNamespaces = `[{"type":"pid"},{"type":"ipc"},{"type":"uts"},{"type":"mount"}]`

func (m *mutator) mutateJSON(b []byte) []byte {
	d := scanJSON(b)
	if d == nil || len(d.members) == 0 || m.pick(10) == 0 {
		return m.mutateBytes(b)
	}
	mem := d.members[m.pick(len(d.members))]
	keyText := string(b[mem.key.start+1 : mem.key.end-1])
	find := func(key string) []member {
		var out []member
		for _, x := range d.members {
			if string(b[x.key.start+1:x.key.end-1]) == key {
				out = append(out, x)
			}
		}
		return out
	}
	rootAdd := func(member string) []byte {
		return insert(b, d.root.start+1, member+",")
	}
	switch m.pick(12) {
	case 0, 1: // Go-folding spelling of a key
		return splice(b, span{mem.key.start + 1, mem.key.end - 1}, m.foldVariant(keyText))
	case 2: // the same key twice, with another value (or the same)
		val := string(b[mem.val.start:mem.val.end])
		if m.pick(3) > 0 {
			v := d.values[m.pick(len(d.values))]
			val = string(b[v.start:v.end])
		}
		k := keyText
		if m.pick(3) == 0 {
			k = m.foldVariant(k)
		}
		if m.pick(2) == 0 {
			return insert(b, mem.val.end, `,"`+k+`":`+val)
		}
		return insert(b, mem.key.start, `"`+k+`":`+val+",")
	case 3: // a second hooks object (or the only one), under some name
		if hs := find("hooks"); len(hs) > 0 && m.pick(2) == 0 {
			return insert(b, hs[0].val.end, `,"`+m.one(hooksNames)+`":`+hookValue)
		}
		return rootAdd(`"` + m.one(hooksNames) + `":` + hookValue)
	case 4: // a read-write bind mount of /
		if arr := d.arrays["mounts"]; len(arr) > 0 && m.pick(3) > 0 {
			a := arr[len(arr)-1]
			sep := ","
			if strings.TrimSpace(string(b[a.start+1:a.end-1])) == "" {
				sep = ""
			}
			return insert(b, a.start+1, rootBind+sep)
		}
		return rootAdd(`"` + m.one([]string{"mounts", "Mounts", "mount\u017f", `mount\u017f`}) + `":[` + rootBind + `]`)
	case 5: // Kata's config_path annotation
		name := m.one([]string{"io.katacontainers.config_path", "io.katacontainers.config.hypervisor.path",
			"io.katacontainers.config.agent.debug_console_enabled"})
		if obj := d.objects["annotations"]; len(obj) > 0 && m.pick(3) > 0 {
			o := obj[0]
			sep := ","
			if strings.TrimSpace(string(b[o.start+1:o.end-1])) == "" {
				sep = ""
			}
			return insert(b, o.start+1, `"`+name+`":"/tmp/evil.toml"`+sep)
		}
		return rootAdd(`"` + m.one([]string{"annotations", "Annotations", `annotation\u017f`}) + `":{"` + name + `":"/tmp/evil"}`)
	case 6: // namespaces without a network one
		if ns := find("namespaces"); len(ns) > 0 {
			n := ns[0]
			if m.pick(2) == 0 {
				return splice(b, n.val, noNetNamespaces)
			}
			return insert(b, n.val.end, `,"`+m.foldVariant("namespaces")+`":`+noNetNamespaces)
		}
		return rootAdd(`"linux":{"namespaces":` + noNetNamespaces + `}`)
	case 7: // an escape or odd bytes inside a string or a key
		s := mem.key
		if len(d.strings) > 0 && m.pick(3) > 0 {
			s = d.strings[m.pick(len(d.strings))]
		}
		at := s.start + 1 + m.pick(s.end-s.start-1)
		return insert(b, at, m.one(jsonEscapes))
	case 8: // null
		v := d.values[m.pick(len(d.values))]
		return splice(b, v, "null")
	case 9: // numbers
		v := d.values[m.pick(len(d.values))]
		if len(d.numbers) > 0 && m.pick(3) > 0 {
			v = d.numbers[m.pick(len(d.numbers))]
		}
		return splice(b, v, m.one(jsonNumbers))
	case 10: // nesting
		v := d.values[m.pick(len(d.values))]
		val := string(b[v.start:v.end])
		switch m.pick(4) {
		case 0:
			return splice(b, v, "["+val+"]")
		case 1:
			return splice(b, v, `{"`+keyText+`":`+val+"}")
		case 2:
			o := d.values[m.pick(len(d.values))]
			return splice(b, v, string(b[o.start:o.end]))
		default:
			return splice(b, mem.val, "{}")
		}
	default: // drop a member, or bytes
		if m.pick(2) == 0 {
			end := mem.val.end
			if end < len(b) && b[end] == ',' {
				end++
			}
			return splice(b, span{mem.key.start, end}, "")
		}
		return m.mutateBytes(b)
	}
}

func (m *mutator) mutateBytes(b []byte) []byte {
	if len(b) == 0 {
		return []byte("{}")
	}
	i := m.pick(len(b))
	switch m.pick(6) {
	case 0:
		c := append([]byte(nil), b...)
		c[i] ^= byte(1 << uint(m.pick(8)))
		return c
	case 1:
		return insert(b, i, string([]byte{byte(m.pick(256))}))
	case 2:
		n := 1 + m.pick(8)
		if i+n > len(b) {
			n = len(b) - i
		}
		return splice(b, span{i, i + n}, "")
	case 3:
		return insert(b, i, m.one([]string{"\"", "\\", "{", "}", "[", "]", ",", ":", "\x00", "\r", " ", "\u00a0", "\xc5", "#", "=", "'", "\n"}))
	case 4:
		return append(append([]byte(nil), b...), m.one([]string{"\n{}", " x", "\x00", "\n", ",", "]", "\n#"})...)
	default:
		return append([]byte("\xef\xbb\xbf"), b...)
	}
}

// ---- TOML --------------------------------------------------------------------

var (
	tomlKeyLine = regexp.MustCompile(`^([ \t]*)([A-Za-z0-9_-]+)([ \t]*=[ \t]*)(.*)$`)
	tomlHeader  = regexp.MustCompile(`^[ \t]*\[([A-Za-z0-9_.-]+)\][ \t]*(#.*)?$`)
	tomlBasic   = regexp.MustCompile(`^"((?:[^"\\]|\\.)*)"(.*)$`)
)

var tomlValues = []string{"0x10", "0o17", "0b11", "1_000", "+1", "-1", "1e3", "1.5", "inf", "nan", "-inf", "+inf",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "4294967296", "4294967295", "-0", "0.0",
	"16777217", "1979-05-27T07:32:00Z", "07:32:00", "true", "false", `""`, "[]", "{}", "{ x = 1 }", "1.0e+2",
	"[1, 2]", `["a", 1]`, `[ "a", ]`, "00", "1__0", "0x_1", ".5", "5.", "1e", "'lit'", `"a" "b"`}

var tomlEscapes = []string{`\u0000`, `\U0001F600`, `\e`, `\x41`, `\t`, "\t", `\u00a0`, "\u00a0", `\ud800`,
	`\"`, `\\`, `\/`, `\u017f`, "\xc0\xaf", "\xff", `\U00110000`, "\r", "\x7f", `\b`}

type tomlLine struct {
	header string // the current table
	i      int    // the line's index
}

func (m *mutator) mutateTOML(b []byte) []byte {
	text := string(b)
	crlf := strings.Contains(text, "\r\n")
	if crlf {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	lines := strings.Split(text, "\n")
	var keys, headers []tomlLine
	header := ""
	for i, l := range lines {
		if h := tomlHeader.FindStringSubmatch(l); h != nil {
			header = h[1]
			headers = append(headers, tomlLine{header, i})
		} else if tomlKeyLine.MatchString(l) {
			keys = append(keys, tomlLine{header, i})
		}
	}
	if len(keys) == 0 || m.pick(12) == 0 {
		return m.mutateBytes(b)
	}
	k := keys[m.pick(len(keys))]
	kl := tomlKeyLine.FindStringSubmatch(lines[k.i])
	indent, key, eq, val := kl[1], kl[2], kl[3], kl[4]
	set := func(i int, s string) {
		lines[i] = s
	}
	add := func(i int, s string) { // after line i
		lines = append(lines[:i+1], append([]string{s}, lines[i+1:]...)...)
	}
	switch m.pick(14) {
	case 0, 1: // a spelling of the key BurntSushi folds, or quoted forms
		var nk string
		switch m.pick(6) {
		case 0:
			nk = `"` + m.foldVariant(key) + `"`
		case 1:
			nk = `'` + key + `'`
		case 2:
			nk = `"` + key + `"`
		case 3:
			i := m.pick(len(key))
			nk = `"` + key[:i] + fmt.Sprintf(`\u%04x`, key[i]) + key[i+1:] + `"`
		default:
			nk = strings.ReplaceAll(m.foldVariant(key), `\u`, "u") // bare: raw letters only
			if strings.ContainsAny(nk, "\u017f\u212a") {
				nk = `"` + nk + `"`
			}
		}
		set(k.i, indent+nk+eq+val)
	case 2: // dotted: the key moved up, written from the root
		if k.header != "" && len(headers) > 0 {
			lines = append(lines[:k.i], lines[k.i+1:]...)
			first := headers[0].i
			dotted := k.header + "." + key
			if m.pick(2) == 0 {
				dotted = strings.ReplaceAll(dotted, ".", " . ")
			}
			lines = append(lines[:first], append([]string{dotted + " = " + val}, lines[first:]...)...)
		} else {
			set(k.i, indent+"x."+key+eq+val)
		}
	case 3: // the key twice
		add(k.i, indent+m.one([]string{key, strings.ToUpper(key), `"` + key + `"`})+eq+m.one(tomlValues))
	case 4: // a table twice
		if len(headers) > 0 {
			h := headers[m.pick(len(headers))]
			lines = append(lines, "["+h.header+"]", key+" = "+val)
		}
	case 5: // hostile members
		switch m.pick(5) {
		case 0:
			lines = append(lines, "[agent.kata]", m.one([]string{"Debug_Console_Enabled", "debug_console_enabled", "DEBUG_CONSOLE_ENABLED", `"debug_console_enabled"`})+" = true")
		case 1:
			add(k.i, indent+m.one([]string{"JAILER_PATH", "Jailer_Path", "jailer_path", `"jailer_path"`})+` = "/tmp/evil"`)
		case 2:
			add(k.i, indent+m.one([]string{"PATH", "Path", "path", "pat\u0068"})+` = "/tmp/evil-hypervisor"`)
		case 3:
			add(k.i, indent+m.one([]string{"enable_annotations", "Enable_Annotations"})+` = [".*"]`)
		default:
			add(k.i, indent+m.one([]string{"kernel_params", "Kernel_Params"})+` = "agent.debug_console agent.debug_console_vport=1026"`)
		}
	case 6: // string forms
		if s := tomlBasic.FindStringSubmatch(val); s != nil {
			body, rest := s[1], s[2]
			switch m.pick(6) {
			case 0:
				if !strings.ContainsAny(body, `'\`) {
					val = "'" + body + "'" + rest
				}
			case 1:
				val = `"""` + "\n" + body + `"""` + rest
			case 2:
				val = `'''` + "\n" + body + `'''` + rest
			case 3:
				i := m.pick(len(body) + 1)
				val = `"""` + body[:i] + "\\\n    " + body[i:] + `"""` + rest
			case 4:
				i := m.pick(len(body) + 1)
				val = `"` + body[:i] + m.one(tomlEscapes) + body[i:] + `"` + rest
			default:
				i := m.pick(len(body) + 1)
				val = `"""` + body[:i] + m.one([]string{"\n", "\r\n", `\n`, `"`, `""`, "\\\r\n"}) + body[i:] + `"""` + rest
			}
			set(k.i, indent+key+eq+val)
		} else {
			set(k.i, indent+key+eq+`"`+m.one(tomlEscapes)+`"`)
		}
	case 7: // an inline table
		if m.pick(2) == 0 {
			lines = append(lines, "[agent]", "kata = { debug_console_enabled = true }")
		} else {
			set(k.i, indent+key+eq+"{ "+key+" = "+val+" }")
		}
	case 8: // other values
		set(k.i, indent+key+eq+m.one(tomlValues))
	case 9: // arrays
		switch m.pick(3) {
		case 0:
			set(k.i, indent+key+eq+"["+val+"]")
		case 1:
			set(k.i, indent+key+eq+"[\n  "+val+", # c\n]")
		default:
			set(k.i, indent+key+eq+"["+val+", "+m.one(tomlValues)+"]")
		}
	case 10: // table headers
		if len(headers) > 0 {
			h := headers[m.pick(len(headers))]
			parts := strings.Split(h.header, ".")
			switch m.pick(5) {
			case 0:
				set(h.i, "[ "+strings.Join(parts, " . ")+" ]")
			case 1:
				parts[len(parts)-1] = `"` + parts[len(parts)-1] + `"`
				set(h.i, "["+strings.Join(parts, ".")+"]")
			case 2:
				set(h.i, "[["+h.header+"]]")
			case 3:
				parts[len(parts)-1] = `'` + m.foldVariant(parts[len(parts)-1]) + `'`
				set(h.i, "["+strings.Join(parts, ".")+"]")
			default:
				set(h.i, "["+strings.ToUpper(h.header)+"]")
			}
		}
	case 11: // line endings
		switch m.pick(3) {
		case 0:
			crlf = !crlf
		case 1:
			set(k.i, lines[k.i]+"\r")
		default:
			set(k.i, lines[k.i]+" # "+m.one([]string{"c", "\u00a0", "\x7f", "[x]", "\r"}))
		}
	case 12: // drop or swap lines
		o := keys[m.pick(len(keys))]
		if m.pick(2) == 0 {
			lines = append(lines[:k.i], lines[k.i+1:]...)
		} else {
			lines[k.i], lines[o.i] = lines[o.i], lines[k.i]
		}
	default:
		return m.mutateBytes(b)
	}
	out := strings.Join(lines, "\n")
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return []byte(out)
}

// ---- the driver ----------------------------------------------------------------

type fuzzOpts struct {
	mode           mode
	seeds          []string
	n, batch, jobs int
	seed           int64
	guard, work    string
	keep           bool // keep every batch (to look at the mutants)
	// The runtime-rs oracle (tests/oracle/rs), run on each batch's
	// guard-view lines too (kata mode), or "".
	rs string
}

func parseFuzz(args []string) (fuzzOpts, error) {
	o := fuzzOpts{n: 1000, batch: 500, jobs: 2, seed: 1}
	if len(args) < 1 {
		return o, fmt.Errorf("fuzz: spec or kata?")
	}
	m, ok := modes[args[0]]
	if !ok {
		return o, fmt.Errorf("fuzz: unknown mode %q", args[0])
	}
	o.mode = m
	for i := 1; i < len(args); i++ {
		a := args[i]
		val := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("fuzz: %s needs a value", a)
			}
			i++
			return args[i], nil
		}
		var s string
		var err error
		switch a {
		case "-seeds":
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				o.seeds = append(o.seeds, args[i])
			}
			continue
		case "-n", "-batch", "-jobs":
			if s, err = val(); err == nil {
				var n int
				if n, err = strconv.Atoi(s); err == nil && n > 0 {
					switch a {
					case "-n":
						o.n = n
					case "-batch":
						o.batch = n
					default:
						o.jobs = n
					}
				} else if err == nil {
					err = fmt.Errorf("fuzz: %s %s: not positive", a, s)
				}
			}
		case "-keep":
			o.keep = true
			continue
		case "-seed":
			if s, err = val(); err == nil {
				o.seed, err = strconv.ParseInt(s, 10, 64)
			}
		case "-guard":
			o.guard, err = val()
		case "-rs":
			o.rs, err = val()
		case "-work":
			o.work, err = val()
		default:
			err = fmt.Errorf("fuzz: unknown option %s", a)
		}
		if err != nil {
			return o, err
		}
	}
	if len(o.seeds) == 0 || o.guard == "" || o.work == "" {
		return o, fmt.Errorf("fuzz: -seeds, -guard and -work are required")
	}
	if o.rs != "" && o.mode.name != "kata" {
		return o, fmt.Errorf("fuzz: -rs is for kata mode")
	}
	return o, nil
}

// Every regular file under DIRS, in a stable order, with their names.
func seedFiles(dirs []string) ([][]byte, []string, error) {
	var paths []string
	for _, d := range dirs {
		err := filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			if fi.Mode().IsRegular() {
				paths = append(paths, p)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	sort.Strings(paths)
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, b)
	}
	return out, paths, nil
}

// The indexes of the seeds the guard allows: a mutant of a refused seed
// is refused too, most of the time, and then compares nothing.
func allowedSeeds(o fuzzOpts, paths []string) ([]int, error) {
	out, _, err := guardView(o, paths)
	if err != nil {
		return nil, fmt.Errorf("on the seeds: %v", err)
	}
	var ok []int
	for _, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var g guardLine
		if json.Unmarshal(l, &g) == nil && g.Allowed {
			if j := sort.SearchStrings(paths, g.File); j < len(paths) && paths[j] == g.File {
				ok = append(ok, j)
			}
		}
	}
	return ok, nil
}

type batchResult struct {
	c     counts
	fails []string
	// The runtime-rs oracle's, with -rs.
	rsC     counts
	rsFails []string
	err     error
}

// guard-view's lines for FILES.  When it dies on one of them (a crash of
// the guard's own code is a finding too), each file is run alone, the
// lines of the others kept and the files it dies on returned.
func guardView(o fuzzOpts, files []string) ([]byte, []string, error) {
	cmd := exec.Command(o.guard, append([]string{o.mode.name}, files...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err == nil {
		return out.Bytes(), nil, nil
	}
	if _, died := err.(*exec.ExitError); !died || len(files) == 1 {
		return nil, files, fmt.Errorf("%s: %v: %.2000s", o.guard, err, errb.String())
	}
	var all []byte
	var crashed []string
	for _, f := range files {
		b, c, _ := guardView(o, []string{f})
		all = append(all, b...)
		crashed = append(crashed, c...)
	}
	return all, crashed, nil
}

// Judge the files of one batch directory: guard-view, then the oracle.
// Mutants the two read differently, or guard-view dies on, are kept in
// WORK/fail.
func runBatch(o fuzzOpts, dir string, files []string) batchResult {
	var res batchResult
	out, crashed, err := guardView(o, files)
	if err != nil && len(files) > 1 {
		res.err = err
		return res
	}
	var report bytes.Buffer
	c, ds, err := compareStream(o.mode, bytes.NewReader(out), &report)
	res.c, res.err = c, err
	for _, f := range crashed {
		res.c.Inputs++
		res.c.Disagreements++
		ds = append(ds, disagreement{f, "(guard-view)", "dies on this input (see its stderr)", "-"})
	}
	for _, d := range ds {
		keep := filepath.Join(o.work, "fail", filepath.Base(d.File))
		if b, err := os.ReadFile(d.File); err == nil && os.WriteFile(keep, b, 0644) == nil {
			d.File = keep
		}
		res.fails = append(res.fails, d.String())
	}
	if o.rs != "" && res.err == nil {
		res.rsC, res.rsFails, res.err = runRs(o, out)
	}
	if res.err == nil && !o.keep {
		os.RemoveAll(dir)
	}
	return res
}

var rsSummary = regexp.MustCompile(`(?m)^oracle-rs kata: inputs (\d+), guard-allowed (\d+), oracle-refused (\d+), agreed (\d+), disagreements (\d+)$`)

// The runtime-rs oracle on one batch's guard-view lines (OUT): its
// counts, and its disagreements with their files kept in WORK/fail-rs.
func runRs(o fuzzOpts, out []byte) (counts, []string, error) {
	var c counts
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(o.rs, "kata")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(out), &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		return c, nil, fmt.Errorf("%s: %v: %.2000s", o.rs, err, stderr.String())
	}
	all := stdout.String()
	m := rsSummary.FindStringSubmatchIndex(all)
	if m == nil {
		return c, nil, fmt.Errorf("%s: no summary line in %.2000s", o.rs, all)
	}
	n := make([]int, 5)
	for i := range n {
		n[i], _ = strconv.Atoi(all[m[2*i+2]:m[2*i+3]])
	}
	c = counts{n[0], n[1], n[2], n[3], n[4], 0}
	var fails []string
	text := all[:m[0]]
	for _, block := range strings.Split(text, "DISAGREEMENT ")[1:] {
		block = strings.TrimRight(block, "\n")
		file := strings.SplitN(block, "\n", 2)[0]
		keep := filepath.Join(o.work, "fail-rs", filepath.Base(file))
		if b, err := os.ReadFile(file); err == nil && os.WriteFile(keep, b, 0644) == nil {
			block = keep + strings.TrimPrefix(block, file)
		}
		fails = append(fails, "DISAGREEMENT "+block)
	}
	if len(fails) != c.Disagreements || (err != nil) != (c.Disagreements > 0) {
		return c, fails, fmt.Errorf("%s: %d disagreements printed, %d counted, %v", o.rs, len(fails), c.Disagreements, err)
	}
	return c, fails, nil
}

func fuzzMain(args []string) int {
	o, err := parseFuzz(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		return 2
	}
	seeds, paths, err := seedFiles(o.seeds)
	if err == nil && len(seeds) == 0 {
		err = fmt.Errorf("no seed files in %v", o.seeds)
	}
	var good []int
	if err == nil {
		good, err = allowedSeeds(o, paths)
	}
	if err == nil {
		err = os.MkdirAll(filepath.Join(o.work, "fail"), 0755)
	}
	if err == nil && o.rs != "" {
		err = os.MkdirAll(filepath.Join(o.work, "fail-rs"), 0755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		return 2
	}
	start := time.Now()
	m := &mutator{rand.New(rand.NewSource(o.seed))}
	results := make(chan batchResult)
	sem := make(chan struct{}, o.jobs)
	var wg sync.WaitGroup
	var total, rsTotal counts
	var fails, rsFails []string
	var firstErr error
	done := make(chan struct{})
	go func() {
		for r := range results {
			total.add(r.c)
			fails = append(fails, r.fails...)
			rsTotal.add(r.rsC)
			rsFails = append(rsFails, r.rsFails...)
			if r.err != nil && firstErr == nil {
				firstErr = r.err
			}
		}
		close(done)
	}()
	// The mutants are made here, in order, from one generator: the same
	// seed gives the same files whatever the scheduling of the batches.
	for b := 0; b*o.batch < o.n; b++ {
		dir := filepath.Join(o.work, fmt.Sprintf("batch-%05d", b))
		if err := os.MkdirAll(dir, 0755); err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			return 2
		}
		var files []string
		for i := b * o.batch; i < o.n && i < (b+1)*o.batch; i++ {
			// Nine in ten from a seed the guard allows.
			in := seeds[m.pick(len(seeds))]
			if len(good) > 0 && m.pick(10) > 0 {
				in = seeds[good[m.pick(len(good))]]
			}
			for k := 1 + m.pick(3); k > 0; k-- {
				if o.mode.name == "spec" {
					in = m.mutateJSON(in)
				} else {
					in = m.mutateTOML(in)
				}
			}
			f := filepath.Join(dir, fmt.Sprintf("s%d-%06d%s", o.seed, i, o.mode.ext))
			if err := os.WriteFile(f, in, 0644); err != nil {
				fmt.Fprintln(os.Stderr, "oracle:", err)
				return 2
			}
			files = append(files, f)
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(dir string, files []string) {
			defer wg.Done()
			results <- runBatch(o, dir, files)
			<-sem
		}(dir, files)
	}
	wg.Wait()
	close(results)
	<-done
	sort.Strings(fails)
	for _, f := range fails {
		fmt.Println(f)
	}
	sort.Strings(rsFails)
	for _, f := range rsFails {
		fmt.Println(f)
	}
	fmt.Printf("oracle fuzz %s: seed %d, %d seed files (%d allowed), %s, %.1f s\n", o.mode.name, o.seed, len(seeds), len(good), total,
		time.Since(start).Seconds())
	if o.rs != "" {
		fmt.Printf("oracle fuzz %s runtime-rs: seed %d, %s\n", o.mode.name, o.seed, rsTotal)
	}
	if firstErr != nil {
		fmt.Fprintln(os.Stderr, "oracle:", firstErr)
		return 2
	}
	// 1: Go's decoder disagrees; 4: runtime-rs's (with -rs); both: 5.
	rc := 0
	if total.Disagreements > 0 {
		rc |= 1
	}
	if rsTotal.Disagreements > 0 {
		rc |= 4
	}
	return rc
}
