/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guard config: guard_config_from_toml on whatever parses as TOML. */
#include "config.h"

#include <string.h>

#include "conf.h"
#include "fuzz.h"
#include "toml.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  kg_error_t err = NULL;
  struct toml_value *doc = toml_parse ("config.toml", (const char *) data, size, &err);
  struct guard_config cfg;

  if (doc == NULL)
    {
      kg_error_release (&err);
      return 0;
    }
  memset (&cfg, 0, sizeof cfg);
  if (guard_config_from_toml ("config.toml", doc, &cfg, &err) < 0)
    {
      FUZZ_ASSERT (err != NULL && err->msg != NULL);
      kg_error_release (&err);
    }
  else
    FUZZ_ASSERT (err == NULL);
  guard_config_release (&cfg);
  toml_free (doc);
  return 0;
}
