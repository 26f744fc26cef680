/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing a unit test's input files: one copy for every test.  Each
   aborts when it cannot write (a test that cannot make its input proves
   nothing). */
#ifndef KG_TEST_FILES_H
#define KG_TEST_FILES_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* TEXT into PATH as fopen's "w" writes it: truncated, through a symlink,
   the mode of a file that exists kept. */
static inline void
test_write_text (const char *path, const char *text)
{
  FILE *f = fopen (path, "we");

  if (f == NULL || fputs (text, f) < 0 || fclose (f) != 0)
    {
      fprintf (stderr, "# cannot write %s\n", path);
      abort ();
    }
}

/* TEXT into PATH as a new file of MODE (a file or a symlink that is there
   is removed first, so that the mode is MODE whatever it had). */
static inline void
test_write_file (const char *path, const char *text, mode_t mode)
{
  size_t len = strlen (text);
  int fd;

  unlink (path);
  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 || write (fd, text, len) != (ssize_t) len || close (fd) < 0 || chmod (path, mode) < 0)
    {
      fprintf (stderr, "# cannot write %s\n", path);
      abort ();
    }
}

/* DIR/NAME, allocated (the caller frees). */
static inline char *
test_path (const char *dir, const char *name)
{
  char *path;

  if (asprintf (&path, "%s/%s", dir, name) < 0)
    abort ();
  return path;
}

/* TEXT into DIR/NAME as test_write_text writes it; the path, allocated. */
static inline char *
test_write_in (const char *dir, const char *name, const char *text)
{
  char *path = test_path (dir, name);

  test_write_text (path, text);
  return path;
}

#endif
