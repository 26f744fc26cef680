/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench/noop: the no-op runtime both sides of the guard-overhead
   measurement execute: the floor is one execve of this. */
int
main (void)
{
  return 0;
}
