// SPDX-License-Identifier: GPL-2.0-or-later

// The value side of the spec oracle: decoding the same bytes is not
// enough when a runtime then reads the decoded strings by rules of its own.
// For each mount of a config.json the guard allowed, what the runtimes
// derive from its options (whether it is a bind mount, whether it ends up
// read-only) is worked out here from Go's decoding of the file, by each
// runtime's rules as read in its source, and held against what the guard
// made of the same mount (guard-view's "mounts").  Only the unsafe
// direction is a disagreement: a mount the guard took for read-only that a
// runtime mounts writable, or one a runtime binds that the guard did not
// judge as a bind.  The guard reading more conservatively (a mount it
// takes for writable, as it does "ro" before "rw") is no finding.

package main

import (
	"fmt"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// What guard-view says the guard made of one mount.
type mountReading struct {
	Bind  bool `json:"bind"`
	RO    bool `json:"ro"`     // behind Kata's shim
	ROOCI bool `json:"ro_oci"` // in front of an OCI runtime
}

// runc (libcontainer/specconv/spec_linux.go, parseMountOptions and its
// tables in initMaps): each option is matched whole against mountFlags
// ("ro" sets MS_RDONLY, "rw" clears it, the last one wins; "bind" and
// "rbind" set MS_BIND) and recAttrFlags ("rro" sets MOUNT_ATTR_RDONLY for
// mount_setattr, "rrw" clears it, the last one wins); anything else is
// filesystem data.  The recursive attributes are applied after the mount,
// so a set or cleared MOUNT_ATTR_RDONLY decides over MS_RDONLY.  A mount of
// type "bind" is bound too (libcontainer/rootfs_linux.go, mountToRootfs,
// case "bind").
func runcMount(m specs.Mount) (bind, ro bool) {
	rdonly, rec := false, 0
	for _, o := range m.Options {
		switch o {
		case "ro":
			rdonly = true
		case "rw":
			rdonly = false
		case "bind", "rbind":
			bind = true
		case "rro":
			rec = 1
		case "rrw":
			rec = -1
		}
	}
	return bind || m.Type == "bind", rec == 1 || (rec == 0 && rdonly)
}

// Kata's shim (src/runtime/pkg/oci/utils.go, newMount, 3.30.0 and
// 4.1.0): ReadOnly when an option is "ro", bind when one is "bind" or
// "rbind"; every other option, "rw" and "rro" included, is passed on
// unread.  A mount of type "bind" is shared as a bind too.
func kataMount(m specs.Mount) (bind, ro bool) {
	for _, o := range m.Options {
		switch o {
		case "ro":
			ro = true
		case "bind", "rbind":
			bind = true
		}
	}
	return bind || m.Type == "bind", ro
}

// The first mount whose values the guard read less safely than a runtime
// does, or nil.  READINGS are guard-view's, one per mount of SPEC.
func compareMounts(file string, spec *specs.Spec, readings []*mountReading) *disagreement {
	if len(readings) != len(spec.Mounts) {
		return &disagreement{file, "$.mounts", fmt.Sprintf("%d mounts", len(readings)),
			fmt.Sprintf("%d mounts", len(spec.Mounts))}
	}
	for i, m := range spec.Mounts {
		g := readings[i]
		if g == nil {
			return &disagreement{file, fmt.Sprintf("$.mounts[%d]", i), "no mount", "a mount"}
		}
		p := fmt.Sprintf("$.mounts[%d].options %q", i, m.Options)
		rb, rro := runcMount(m)
		kb, kro := kataMount(m)
		switch {
		case (rb || kb) && !g.Bind:
			return &disagreement{file, p + " (bind)", "not a bind mount",
				fmt.Sprintf("a bind mount (runc: %v, Kata's newMount: %v)", rb, kb)}
		case g.RO && !kro:
			return &disagreement{file, p + " (read-only, behind Kata's shim)", "read-only",
				"writable to Kata's shim (pkg/oci/utils.go newMount: no option == \"ro\")"}
		case g.ROOCI && !rro:
			return &disagreement{file, p + " (read-only, in front of an OCI runtime)", "read-only",
				"writable to runc (libcontainer/specconv parseMountOptions)"}
		}
	}
	return nil
}
