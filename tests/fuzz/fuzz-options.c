/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stdin options decoder: containerd's protobuf Any, or containerd
   2.3's BootstrapParams for the container "c1" in "default" (the first
   input byte, when odd, decodes as a start of another id, for which only
   the Any reading is open). */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "options.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  kg_error_t err = NULL;
  struct runtime_options o;

  memset (&o, 0, sizeof o);
  if (options_decode (data, size, "c1", size > 0 && (data[0] & 0x80) ? "other" : "default", &o,
                      &err)
      < 0)
    {
      FUZZ_ASSERT (err != NULL && err->msg != NULL);
      kg_error_release (&err);
      return 0;
    }
  FUZZ_ASSERT (size <= KG_OPTIONS_MAX);
  /* No bytes, or a BootstrapParams without an options extension. */
  FUZZ_ASSERT ((o.kind == OPTIONS_NONE) == (size == 0 || (o.bootstrap && o.type_url == NULL)));
  if (o.bootstrap)
    FUZZ_ASSERT (size > 0);
  if (o.kind != OPTIONS_NONE)
    FUZZ_ASSERT (o.type_url != NULL);
  if (o.config_path != NULL)
    FUZZ_ASSERT (o.kind == OPTIONS_RUNTIME && o.config_path[0] != '\0');
  if (o.type_url != NULL)
    (void) strlen (o.type_url);
  if (o.inner_type_url != NULL)
    (void) strlen (o.inner_type_url);
  options_release (&o);
  return 0;
}
