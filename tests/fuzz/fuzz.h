/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the fuzz harnesses share.  Each tests/fuzz/fuzz-NAME.c defines
 * LLVMFuzzerTestOneInput; it is linked either with libFuzzer
 * (--enable-fuzz, `make fuzz`) or with tests/fuzz/replay.c, a plain main()
 * that feeds it files, so that `make check` replays the seed and regression
 * corpora through every harness in every build.
 *
 * A harness must not leak, print or exit: libFuzzer counts a leak as a
 * crash, and so does the replay build under ASan or valgrind.
 */
#ifndef KG_FUZZ_H
#define KG_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

/* A harness-detected violation of a documented guarantee: abort, which
   libFuzzer reports as a crash (and replay as a failed run). */
#define FUZZ_ASSERT(c)                                                                             \
  do                                                                                               \
    {                                                                                              \
      if (! (c))                                                                                   \
        {                                                                                          \
          fuzz_fail (__FILE__, __LINE__, #c);                                                      \
        }                                                                                          \
    }                                                                                              \
  while (0)

void fuzz_fail (const char *file, int line, const char *what) __attribute__ ((noreturn));

#endif
