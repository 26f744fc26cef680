/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kata.*: the real runtime and the Kata configuration it will load.
 * check_kata () is the family (checks.h); what is here is exposed for the
 * tests.
 */
#ifndef KG_KATA_H
#define KG_KATA_H

#include "toml.h"

/* The first key of table T, at any depth, that is not written as Kata
   writes its keys (lower-case ASCII letters, digits, '_' and '-'), or
   NULL: the guard refuses such a file, because Kata's TOML decoder would
   match the key to a setting of another spelling. */
const struct toml_entry *kata_folded_key (const struct toml_value *t);

#endif
