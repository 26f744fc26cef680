/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The exec of a runtime descriptor (exec.h): script and ELF, inherited
 * descriptors.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decision.h"
#include "error.h"
#include "exec.h"
#include "fdio.h"
#include "options.h"
#include "output.h"
#include "tap.h"
#include "test-files.h"
#include "wrapper.h"
static char dir[] = "/tmp/kg-test-exec.XXXXXX";

/* In a child with only 0, 1, 2 open (stdout to OUT): note them, leak a
   descriptor without O_CLOEXEC (as a careless library would), exec PATH
   through an O_PATH descriptor with ARGV.  Returns the child's exit
   status. */
static int
run_exec (const char *path, char **argv, const char *out, int *runtime_fd)
{
  pid_t pid;
  int st;
  int pipefd[2];

  if (pipe (pipefd) < 0)
    abort ();
  pid = fork ();
  if (pid == 0)
    {
      kg_error_t err = NULL;
      int leak, fd;

      close (pipefd[0]);
      fd = open (out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (fd < 0 || dup2 (fd, 1) < 0)
        _exit (96);
      dup2 (pipefd[1], 9);
      syscall (SYS_close_range, 3, 8, 0);
      syscall (SYS_close_range, 10, ~0U, 0);
      exec_note_inherited ();
      leak = open ("/dev/null", O_RDONLY); /* no O_CLOEXEC on purpose */
      fd = open (path, O_PATH | O_CLOEXEC);
      if (write (9, &fd, sizeof fd) != sizeof fd)
        _exit (97);
      close (9);
      (void) leak;
      exec_runtime (fd, argv, &err);
      _exit (98);
    }
  close (pipefd[1]);
  if (read (pipefd[0], runtime_fd, sizeof *runtime_fd) != sizeof *runtime_fd)
    *runtime_fd = -1;
  close (pipefd[0]);
  waitpid (pid, &st, 0);
  return WIFEXITED (st) ? WEXITSTATUS (st) : 128 + WTERMSIG (st);
}

static char *
slurp (const char *path)
{
  kg_error_t err = NULL;
  char *buf = NULL;
  size_t len;

  if (kg_read_file_bounded (path, 0, 65536, &buf, &len, &err) < 0)
    {
      kg_error_release (&err);
      return NULL;
    }
  return buf;
}

static void
test_exec (void)
{
  char script[256], out[256], text[1024];
  char *buf;
  int fd, status;

  if (mkdtemp (dir) == NULL)
    abort ();
  snprintf (script, sizeof script, "%s/runtime.sh", dir);
  snprintf (out, sizeof out, "%s/out", dir);

  /* exec_is_script */
  {
    bool is = false;
    kg_error_t err = NULL;

    test_write_file (script, "#!/bin/sh\n", 0755);
    fd = open (script, O_PATH | O_CLOEXEC);
    ok (exec_is_script (fd, &is, &err) == 0 && is, "a #! file is a script");
    close (fd);
    fd = open ("/bin/sh", O_PATH | O_CLOEXEC);
    ok (exec_is_script (fd, &is, &err) == 0 && ! is, "/bin/sh is not a script");
    close (fd);
    kg_error_release (&err);
  }

  /* An ELF runtime: exactly 0, 1, 2 (ls runs in a child of the shell,
     so the listing is of the shell's descriptors alone). */
  {
    char cmd[64];
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    int rfd;

    /* No redirection in the shell: dash keeps a saved copy of a
       redirected descriptor open. */
    snprintf (cmd, sizeof cmd, "ls /proc/$$/fd");
    status = run_exec ("/bin/sh", argv, out, &rfd);
    is_int (status, 0, "an ELF runtime runs through its descriptor");
    buf = slurp (out);
    is_str (buf, "0\n1\n2\n",
            "an ELF runtime inherits exactly 0, 1, 2 (not its own fd, not a leak)");
    free (buf);
  }

  /* A script runtime: its descriptor stays open for the interpreter. */
  {
    char *argv[] = { "/configured/runtime", "-namespace", "n", "start", NULL };
    int rfd = -1;

    test_write_file (script, "#!/bin/sh\necho \"$0 $*\"\nls -l /proc/$$/fd\n", 0755);
    status = run_exec (script, argv, out, &rfd);
    is_int (status, 0, "a #! runtime runs through its descriptor");
    buf = slurp (out);
    snprintf (text, sizeof text, "/dev/fd/%d -namespace n start\n", rfd);
    /* Valgrind emulates execveat with execve of the resolved path, so
       there the script sees its real name. */
    if (getenv ("LD_PRELOAD") != NULL && strstr (getenv ("LD_PRELOAD"), "vgpreload") != NULL)
      ok (true, "the script gets /dev/fd/N # SKIP valgrind emulates execveat by path");
    else if (! ok (buf && strncmp (buf, text, strlen (text)) == 0,
                   "the script gets /dev/fd/N (its descriptor) and the arguments"))
      printf ("#   got: %.200s\n", buf ? buf : "(nothing)");
    /* Apart from the script itself (the descriptor and the interpreter's
       own copy), exactly 0, 1, 2. */
    {
      char fds[64] = "";
      char *line, *save = NULL;
      bool own = false;

      for (line = buf ? strtok_r (buf, "\n", &save) : NULL; line;
           line = strtok_r (NULL, "\n", &save))
        {
          char *arrow = strstr (line, " -> ");
          char *num;

          if (arrow == NULL)
            continue;
          *arrow = '\0';
          num = strrchr (line, ' ');
          if (num == NULL)
            continue;
          if (strcmp (arrow + 4, script) == 0)
            {
              own |= atoi (num + 1) == rfd;
              continue;
            }
          if (strlen (fds) + strlen (num) < sizeof fds)
            strcat (fds, num);
        }
      is_str (fds, " 0 1 2", "a script runtime inherits 0, 1, 2 and its own descriptor only");
      ok (own, "the script's descriptor %d is open in the interpreter", rfd);
    }
    free (buf);
  }

  /* A failing exec returns with an error. */
  {
    kg_error_t err = NULL;
    char *argv[] = { "x", NULL };

    test_write_file (script, "not an executable format\n", 0755);
    fd = open (script, O_PATH | O_CLOEXEC);
    int rc = exec_runtime (fd, argv, &err);

    ok (rc < 0 && err && strstr (err->msg, "execveat x") != NULL,
        "an exec that fails returns an error (%s)", err ? err->msg : "none");
    close (fd);
    kg_error_release (&err);
  }
  unlink (script);
  unlink (out);
  rmdir (dir);
}

/* containerd 2.3's BootstrapParams, from the field numbers of
   api/runtime/bootstrap/v1/bootstrap.proto. */

int
main (void)
{
  test_exec ();
  return tap_done ();
}
