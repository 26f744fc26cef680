// SPDX-License-Identifier: GPL-2.0-or-later

// The Go side of tests/regex-oracle.test: does kata-guard read an
// enable_annotations list as the Go shim does?  The Go shim matches every
// pattern with regexp.MatchString against the annotation's name without
// io.katacontainers.config.hypervisor. (regexpContains and
// checkAnnotationNameIsValid in src/runtime/pkg/oci/utils.go): unanchored,
// a pattern that does not compile matching nothing.
//
//	regex gen -seed S -n N -hostile FILE
//	    the corpus, one line per case: "NAME PATTERN...", each field hex
//	    after an 'x' (tests/oracle/regex-view's input): every pattern of
//	    FILE (Go-quoted strings, one a line) against every name below, then
//	    N lists of one to three patterns made of grammar and hostile tokens,
//	    deterministic for a seed.
//	regex check < LINES
//	    LINES are regex-view's, "VERDICT NAME PATTERN...".  Where the guard
//	    told (1 or 0), every pattern must compile for Go and the verdict be
//	    Go's; otherwise (-: the guard refuses; t: not a Kata configuration)
//	    there is nothing to hold it to.  A difference is printed and the
//	    exit status is 1.
//
// Standard library only: go build -o regex tests/oracle/regex/main.go
package main

import (
	"bufio"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Kata's hypervisor annotation names the guard asks about (kata.c's
// sensitive lists, policy-resources.c's sizing), some harmless ones, and
// names no Kata annotation has.
var names = []string{
	"path", "jailer_path", "ctlpath", "kernel", "image", "initrd", "firmware",
	"firmware_volume", "virtio_fs_daemon", "entropy_source", "file_mem_backend",
	"vhost_user_store_path", "virtio_fs_extra_args", "guest_hook_path",
	"prefetch_files.list", "default_memory", "default_vcpus", "default_max_vcpus",
	"enable_iommu", "kernel_params", "kernel_verity_params", "cc_init_data",
	"Default_memory", "default_memory\n", "\ndefault_memory", "default_memory ",
	"d\u00e9fault_memory", "default_memory\xff", "", "default-memory", "\u017f",
	"\u212aernel", "path\u0085", "x]", "[a]",
}

var (
	literals = []string{"a", "d", "e", "f", "l", "m", "o", "p", "r", "t", "u", "y", "_", "0", "9", "-", "A", "Z"}
	classes  = []string{"[a-z]", "[^a-z]", "[0-9_]", "[._]", "[A-Z]", "[a-f0-9]", "[^_]", "[m]", "[.]", "[d-m]"}
	words    = []string{"default", "memory", "path", "kernel", "vcpus", "_", "default_memory"}
	grammar  = append(append(append([]string{".", ".", "*", "+", "?", "|", "^", "$", "(", ")", "(", ")"},
		literals...), classes...), words...)
)

var hostile = []string{
	"[[.].]", "[[.a.]]", "[[=a=]]", "[[:alpha:]]", "[[:digit:]_]", "]", "[", "[]a]", "[^]a]",
	"{1}", "{1,}", "{,2}", "{2,1}", "{", "}", "\\", "\\d", "\\w", "\\.", "\\x6b", "\\pL",
	"(?i)", "(?s)", "(?:", "\u00e9", "\n", "\t", " ", "\x7f", "[\u00e9]", "[a-]", "[-a]",
	"[z-a]", "[a-Z]", "[0-z]", "[a--b]", "[a&&b]", "[a~~b]", "**", "*?", "+?", "??", "()",
	"||", "(|a)", "^*", "$*", "\\b", "\\A", "\\z", "#", "\u212a", "\u017f", "\xff", "[[]",
	"[a-z&&[^m]]", "[[a]]", "[\\]]", "[^\n]", "[\\d]",
}

func field(s string) string { return "x" + hex.EncodeToString([]byte(s)) }

func line(name string, pats []string) string {
	f := []string{field(name)}
	for _, p := range pats {
		f = append(f, field(p))
	}
	return strings.Join(f, " ")
}

func randomName(r *rand.Rand) string {
	if r.Intn(2) == 0 {
		return names[r.Intn(len(names))]
	}
	const plain = "abcdefghijklmnopqrstuvwxyz0123456789_._____"
	b := make([]byte, r.Intn(12))
	for i := range b {
		b[i] = plain[r.Intn(len(plain))]
	}
	return string(b)
}

// A pattern of the guard's grammar (kata.c, pattern_portable), made from
// its productions.
func grammarAlts(r *rand.Rand, b *strings.Builder, depth int) {
	for n := 1 + r.Intn(3); n > 0; n-- {
		if depth == 0 && r.Intn(6) == 0 {
			b.WriteString("^")
		}
		for p := 1 + r.Intn(3); p > 0; p-- {
			switch k := r.Intn(10); {
			case k < 5:
				b.WriteString(literals[r.Intn(len(literals))])
			case k < 6:
				b.WriteString(words[r.Intn(len(words))])
			case k < 7:
				b.WriteString(".")
			case k < 9:
				b.WriteString(classes[r.Intn(len(classes))])
			case depth < 3:
				b.WriteString("(")
				grammarAlts(r, b, depth+1)
				b.WriteString(")")
			default:
				b.WriteString("e")
			}
			if q := r.Intn(8); q < 3 {
				b.WriteString([]string{"*", "+", "?"}[q])
			}
		}
		if depth == 0 && r.Intn(6) == 0 {
			b.WriteString("$")
		}
		if n > 1 {
			b.WriteString("|")
		}
	}
}

func randomPattern(r *rand.Rand) string {
	var b strings.Builder
	if r.Intn(2) == 0 {
		grammarAlts(r, &b, 0)
		return b.String()
	}
	for n := 1 + r.Intn(7); n > 0; n-- {
		if r.Intn(4) == 0 {
			b.WriteString(hostile[r.Intn(len(hostile))])
		} else {
			b.WriteString(grammar[r.Intn(len(grammar))])
		}
	}
	return b.String()
}

func gen(seed int64, n int, hostileFile string) error {
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	f, err := os.ReadFile(hostileFile)
	if err != nil {
		return err
	}
	for i, l := range strings.Split(string(f), "\n") {
		if l == "" || l[0] == '#' {
			continue
		}
		p, err := strconv.Unquote(l)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", hostileFile, i+1, err)
		}
		for _, name := range names {
			fmt.Fprintln(out, line(name, []string{p}))
		}
	}
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < n; i++ {
		pats := []string{randomPattern(r)}
		for r.Intn(3) == 0 && len(pats) < 3 {
			pats = append(pats, randomPattern(r))
		}
		fmt.Fprintln(out, line(randomName(r), pats))
	}
	return nil
}

func unfield(s string) (string, error) {
	if !strings.HasPrefix(s, "x") {
		return "", fmt.Errorf("field %q", s)
	}
	b, err := hex.DecodeString(s[1:])
	return string(b), err
}

func check() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	var lines, told, enabled, refused, notToml, bad int
	for in.Scan() {
		f := strings.Split(in.Text(), " ")
		lines++
		if len(f) < 3 {
			fmt.Printf("unreadable regex-view line %d: %q\n", lines, in.Text())
			return 1
		}
		v := f[0]
		name, err := unfield(f[1])
		pats := []string{}
		for _, p := range f[2:] {
			s, e := unfield(p)
			if e != nil {
				err = e
			}
			pats = append(pats, s)
		}
		if err != nil {
			fmt.Printf("unreadable regex-view line %d: %v\n", lines, err)
			return 1
		}
		switch v {
		case "-":
			refused++
			continue
		case "t":
			notToml++
			continue
		case "0", "1":
		default:
			fmt.Printf("unreadable regex-view verdict %q on line %d\n", v, lines)
			return 1
		}
		told++
		if v == "1" {
			enabled++
		}
		goVerdict, why := false, ""
		for _, p := range pats {
			re, err := regexp.Compile(p)
			if err != nil {
				why = fmt.Sprintf("; Go does not compile %q: %v", p, err)
				continue
			}
			if re.MatchString(name) {
				goVerdict = true
			}
		}
		if why != "" || goVerdict != (v == "1") {
			bad++
			if bad <= 20 {
				fmt.Printf("disagreement: name %q, enable_annotations %q: the guard says %s, Go's regexp %v%s\n",
					name, pats, map[string]string{"0": "off", "1": "enabled"}[v],
					map[bool]string{false: "off", true: "enabled"}[goVerdict], why)
			}
		}
	}
	if err := in.Err(); err != nil {
		fmt.Printf("reading regex-view's lines: %v\n", err)
		return 1
	}
	fmt.Printf("oracle-regex go: %d cases: the guard told %d (%d enabled), refused %d, not TOML %d; %d disagreements\n",
		lines, told, enabled, refused, notToml, bad)
	if bad > 0 {
		return 1
	}
	return 0
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: regex gen -seed S -n N -hostile FILE | regex check")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "gen":
		fs := flag.NewFlagSet("gen", flag.ExitOnError)
		seed := fs.Int64("seed", 1, "the generator's seed")
		n := fs.Int("n", 20000, "generated cases")
		h := fs.String("hostile", "", "the hand-written patterns")
		fs.Parse(os.Args[2:])
		if err := gen(*seed, *n, *h); err != nil {
			fmt.Fprintln(os.Stderr, "regex gen:", err)
			os.Exit(2)
		}
	case "check":
		os.Exit(check())
	default:
		fmt.Fprintln(os.Stderr, "usage: regex gen -seed S -n N -hostile FILE | regex check")
		os.Exit(2)
	}
}
