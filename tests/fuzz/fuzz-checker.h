/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The input of tests/fuzz/fuzz-checker.c: one selector byte, then the
 * bytes the checker's parent reads from its child.  Shared with the seed
 * writer (tests/test-codec --seeds DIR), which writes the corpus.
 */
#ifndef KG_FUZZ_CHECKER_H
#define KG_FUZZ_CHECKER_H

/* The selector, modulo FUZZ_CHECKER_MODES. */
#define FUZZ_CHECKER_REPORT 0   /* checker_decode into an empty report */
#define FUZZ_CHECKER_REQUEST 1  /* checker_request_parse, on every prefix */
#define FUZZ_CHECKER_APPEND 2   /* checker_decode into the parent's own report */
#define FUZZ_CHECKER_MODES 3

/* What the parent's report may hold before the checker's is appended:
   the guard config it read (start/wrapper.c and `kata-guard check` add
   it) and a result of its own, an id the checker may not repeat. */
#define FUZZ_CHECKER_PARENT_ID "config"
#define FUZZ_CHECKER_PARENT_FILE "/etc/kata-guard/config.toml"

#endif
