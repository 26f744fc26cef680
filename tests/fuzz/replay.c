/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A plain main() for a fuzz harness, for builds without libFuzzer: feeds
 * each file named on the command line (each regular file inside a
 * directory named there) to LLVMFuzzerTestOneInput once.  A harness that
 * breaks a guarantee aborts; under ASan or valgrind a memory error or a
 * leak fails the run too.  Prints one TAP line per input.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

/* Inputs are small (the corpora are minimised); refuse anything absurd. */
#define REPLAY_MAX (4 * 1024 * 1024)

static unsigned n_tests;

static int
replay_file (const char *path)
{
  struct stat st;
  uint8_t *buf;
  size_t len = 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  if (fd < 0 || fstat (fd, &st) < 0 || st.st_size > REPLAY_MAX)
    {
      printf ("not ok %u - %s: cannot read: %s\n", ++n_tests, path, strerror (errno));
      if (fd >= 0)
        close (fd);
      return -1;
    }
  /* +1: a zero-length input still gets a valid (unused) pointer. */
  buf = malloc ((size_t) st.st_size + 1);
  if (buf == NULL)
    abort ();
  while (len < (size_t) st.st_size)
    {
      ssize_t r = read (fd, buf + len, (size_t) st.st_size - len);

      if (r <= 0)
        break;
      len += (size_t) r;
    }
  close (fd);
  /* A copy of exactly LEN bytes, so that ASan sees any read past the end. */
  {
    uint8_t *exact = malloc (len ? len : 1);

    if (exact == NULL)
      abort ();
    memcpy (exact, buf, len);
    free (buf);
    fflush (stdout);
    LLVMFuzzerTestOneInput (exact, len);
    free (exact);
  }
  printf ("ok %u - %s\n", ++n_tests, path);
  return 0;
}

static int
cmp (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static int
replay_path (const char *path)
{
  struct stat st;
  DIR *d;
  struct dirent *de;
  char **names = NULL;
  size_t n = 0;
  int rc = 0;

  if (stat (path, &st) < 0)
    {
      printf ("not ok %u - %s: %s\n", ++n_tests, path, strerror (errno));
      return -1;
    }
  if (! S_ISDIR (st.st_mode))
    return replay_file (path);
  d = opendir (path);
  if (d == NULL)
    return -1;
  while ((de = readdir (d)) != NULL)
    {
      char *p;

      if (de->d_name[0] == '.')
        continue;
      if (asprintf (&p, "%s/%s", path, de->d_name) < 0)
        abort ();
      names = realloc (names, (n + 1) * sizeof *names);
      if (names == NULL)
        abort ();
      names[n++] = p;
    }
  closedir (d);
  /* In a stable order, so that logs compare. */
  if (n > 0)
    qsort (names, n, sizeof *names, cmp);
  for (size_t i = 0; i < n; i++)
    {
      if (replay_path (names[i]) < 0)
        rc = -1;
      free (names[i]);
    }
  free (names);
  return rc;
}

/* The seeds a corpus takes from the tests' fixtures: each line of its
   .fixtures file that is not a comment, a path under tests/fixtures. */
static int
replay_fixtures (const char *srcdir, const char *corpus)
{
  char *list, line[4096];
  FILE *f;
  int rc = 0;

  if (asprintf (&list, "%s/.fixtures", corpus) < 0)
    abort ();
  f = fopen (list, "re");
  free (list);
  if (f == NULL)
    return 0;
  while (fgets (line, sizeof line, f) != NULL)
    {
      char *path;

      line[strcspn (line, "\n")] = '\0';
      if (line[0] == '\0' || line[0] == '#')
        continue;
      if (asprintf (&path, "%s/tests/fixtures/%s", srcdir, line) < 0)
        abort ();
      if (replay_file (path) < 0)
        rc = -1;
      free (path);
    }
  fclose (f);
  return rc;
}

/* Without arguments (as `make check` runs it): the seed and regression
   corpora of this harness, tests/fuzz/{corpus,regress}/NAME under
   $KG_SRCDIR (with the fixtures the seed corpus's .fixtures names), NAME
   taken from the program name "replay-NAME". */
static int
replay_default (const char *prog)
{
  const char *srcdir = getenv ("KG_SRCDIR");
  const char *base = strrchr (prog, '/');
  const char *name;
  int rc = 0;

  base = base ? base + 1 : prog;
  if (strncmp (base, "replay-", 7) != 0 || srcdir == NULL)
    {
      printf ("1..0 # SKIP no corpus named (run as replay-NAME with KG_SRCDIR set)\n");
      return 0;
    }
  name = base + 7;
  for (int i = 0; i < 2; i++)
    {
      char *dir;
      struct stat st;

      if (asprintf (&dir, "%s/tests/fuzz/%s/%s", srcdir, i == 0 ? "corpus" : "regress", name) < 0)
        abort ();
      /* No regression inputs yet is fine; a missing seed corpus is not. */
      if (i == 0 || stat (dir, &st) == 0)
        if (replay_path (dir) < 0 || (i == 0 && replay_fixtures (srcdir, dir) < 0))
          rc = 1;
      free (dir);
    }
  return rc;
}

int
main (int argc, char **argv)
{
  int rc = 0;

  LLVMFuzzerInitialize (&argc, &argv);
  if (argc < 2)
    rc = replay_default (argv[0]);
  for (int i = 1; i < argc; i++)
    if (replay_path (argv[i]) < 0)
      rc = 1;
  if (n_tests > 0 || argc >= 2)
    printf ("1..%u\n", n_tests);
  return rc;
}
