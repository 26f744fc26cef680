/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The proxy status-line reader, fed as the egress check feeds it: the
 * bytes received so far, growing one read at a time.  Its answer must be
 * consistent across prefixes: once a prefix is refused or complete, every
 * longer one says the same.
 */
#include "config.h"

#include <string.h>

#include "egress.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  int first = 0, status = 0, first_status = -1;
  size_t first_len = 0;

  for (size_t n = 0; n <= size; n++)
    {
      size_t line_len = 0;
      const char *why = NULL;
      int r = egress_parse_status_line ((const char *) data, n, &status, &line_len, &why);

      FUZZ_ASSERT (r >= -1 && r <= 1);
      if (r < 0)
        FUZZ_ASSERT (why != NULL && why[0] != '\0');
      if (r > 0)
        {
          FUZZ_ASSERT (status >= 100 && status <= 599);
          FUZZ_ASSERT (line_len >= 14 && line_len <= n);
          FUZZ_ASSERT (data[line_len - 2] == '\r' && data[line_len - 1] == '\n');
        }
      if (first != 0)
        {
          FUZZ_ASSERT (r == first);
          if (r > 0)
            FUZZ_ASSERT (status == first_status && line_len == first_len);
        }
      else if (r != 0)
        {
          first = r;
          first_status = status;
          first_len = line_len;
        }
    }
  return 0;
}
