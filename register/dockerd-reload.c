/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `kata-guard uninstall` for Docker, after the write (kata-guard(8),
 * COMMANDS): every running dockerd that reads the daemon.json just
 * rewritten is made to reload it, so none keeps a runtime (or a
 * default-runtime) that names a binary about to go.  dockerd replaces
 * "runtimes" and "default-runtime" on SIGHUP (moby daemon/reload_unix.go:
 * reloadPlatform, in 20.10, 26 and 28 alike; a key that is gone keeps its
 * old value, which is why register/dockerjson.c leaves both keys there).
 *
 * A dockerd is a process whose /proc/PID/exe is named dockerd; the file
 * it reads is its --config-file (default /etc/docker/daemon.json), in its
 * own mount namespace and working directory, the same file when its
 * device and inode are the uninstalled file's, run by the file's owner.
 * A dockerd reading any other file is never signalled.  Whether it reloaded is asked of the
 * daemon itself, GET /info on its socket (-H/--host, else daemon.json's
 * "hosts", else /var/run/docker.sock), where the peer of the connection
 * must be that dockerd (or, socket-activated, pid 1, which made its
 * socket).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cleanup.h"
#include "clock.h"
#include "daemonjson.h"
#include "error.h"
#include "fdio.h"
#include "install-int.h"
#include "jsonc.h"

#define DOCKERD_SOCKET "/var/run/docker.sock"
/* How long a dockerd has to reload, and to answer one /info. */
#define RELOAD_TIMEOUT_MS 20000
#define INFO_TIMEOUT_MS 3000
#define CMDLINE_MAX (256 * 1024)
#define INFO_MAX (8 * 1024 * 1024)

struct dockerd
{
  pid_t pid;
  char *config;   /* as its command line names it */
  char *host;     /* the unix socket of its command line, or NULL */
  bool activated; /* -H fd://: its socket is systemd's */
  bool same_mnt;  /* in this process's mount namespace */
};

static void
dockerd_release (struct dockerd *d)
{
  free (d->config);
  free (d->host);
}

/* The dockerd options of the NUL-separated command line CMD[0..LEN) that
   say which file it reads and where it listens (dockerd's pflag forms:
   --opt VALUE, --opt=VALUE, -H VALUE, -H=VALUE, -HVALUE). */
static int
parse_cmdline (const char *cmd, size_t len, struct dockerd *d)
{
  const char *end = cmd + len, *a = cmd;
  bool first = true;

  while (a < end)
    {
      const char *next = a + strlen (a) + 1, *val = NULL;
      bool config = false;

      if (first)
        first = false;
      else if (strcmp (a, "--") == 0)
        break;
      else if (strcmp (a, "--config-file") == 0 || strncmp (a, "--config-file=", 14) == 0)
        config = true, val = a[13] == '=' ? a + 14 : (next < end ? next : NULL);
      else if (strcmp (a, "--host") == 0 || strcmp (a, "-H") == 0)
        val = next < end ? next : NULL;
      else if (strncmp (a, "--host=", 7) == 0)
        val = a + 7;
      else if (strncmp (a, "-H", 2) == 0)
        val = a + 2 + (a[2] == '=');
      if (val != NULL && config)
        {
          free (d->config);
          if ((d->config = strdup (val)) == NULL)
            return -1;
        }
      else if (val != NULL && strncmp (val, "unix://", 7) == 0 && d->host == NULL)
        {
          if ((d->host = strdup (val + 7)) == NULL)
            return -1;
        }
      else if (val != NULL && strncmp (val, "fd://", 5) == 0)
        d->activated = true;
      if (val != NULL && val == next)
        next += strlen (next) + 1;
      a = next;
    }
  if (d->config == NULL && (d->config = strdup (DAEMONJSON_DEFAULT)) == NULL)
    return -1;
  return 0;
}

/* PATH as the dockerd D sees it: through its root when it lives in
   another mount namespace, its working directory when relative. */
static char *
their_path (const struct dockerd *d, const char *path)
{
  char *p = NULL;

  if (path[0] != '/')
    return asprintf (&p, "/proc/%d/cwd/%s", (int) d->pid, path) < 0 ? NULL : p;
  if (d->same_mnt)
    return strdup (path);
  return asprintf (&p, "/proc/%d/root%s", (int) d->pid, path) < 0 ? NULL : p;
}

static bool
same_ns (pid_t pid, const struct stat *mine)
{
  char p[64];
  struct stat st;

  snprintf (p, sizeof p, "/proc/%d/ns/mnt", (int) pid);
  return stat (p, &st) == 0 && st.st_dev == mine->st_dev && st.st_ino == mine->st_ino;
}

/* Whether process PID is a dockerd reading the file FILE_ST: 1 with *D
   filled, 0 not, -1 out of memory. */
static int
dockerd_of (pid_t pid, const struct stat *file_st, const struct stat *mnt, struct dockerd *d)
{
  char p[64], exe[PATH_MAX];
  cleanup_free char *cmd = NULL, *config = NULL;
  cleanup_error kg_error_t why = NULL;
  const char *base;
  struct stat st;
  size_t len;
  ssize_t n;

  /* Run by the owner of the file (root for /etc/docker/daemon.json): a
     user's process that calls itself dockerd is no one's daemon. */
  snprintf (p, sizeof p, "/proc/%d", (int) pid);
  if (stat (p, &st) < 0 || st.st_uid != file_st->st_uid)
    return 0;
  snprintf (p, sizeof p, "/proc/%d/exe", (int) pid);
  if ((n = readlink (p, exe, sizeof exe - 1)) <= 0)
    return 0;
  exe[n] = '\0';
  base = strrchr (exe, '/');
  base = base ? base + 1 : exe;
  if (strcmp (base, "dockerd") != 0 && strcmp (base, "dockerd (deleted)") != 0)
    return 0;
  snprintf (p, sizeof p, "/proc/%d/cmdline", (int) pid);
  if (kg_read_file_bounded (p, 0, CMDLINE_MAX, &cmd, &len, &why) < 0 || len == 0)
    return 0;
  *d = (struct dockerd){ .pid = pid, .same_mnt = same_ns (pid, mnt) };
  if (parse_cmdline (cmd, len, d) < 0 || (config = their_path (d, d->config)) == NULL)
    return dockerd_release (d), -1;
  if (stat (config, &st) == 0 && st.st_dev == file_st->st_dev && st.st_ino == file_st->st_ino)
    return 1;
  dockerd_release (d);
  return 0;
}

/* The socket dockerd D listens on, as this process reaches it: its
   command line's, else the first unix one of "hosts" in FILE (the file it
   reads), else Docker's default. */
static char *
socket_of (const struct dockerd *d, const char *file)
{
  cleanup_json struct json_object *root = NULL;
  struct json_object *hosts;
  const char *host = d->host;

  if (host == NULL && (root = json_object_from_file (file)) != NULL
      && json_object_object_get_ex (root, "hosts", &hosts)
      && json_object_is_type (hosts, json_type_array))
    for (size_t i = 0; i < json_object_array_length (hosts) && host == NULL; i++)
      {
        const char *h = json_object_get_string (json_object_array_get_idx (hosts, i));

        if (h != NULL && strncmp (h, "unix://", 7) == 0)
          host = h + 7;
      }
  return their_path (d, host != NULL && *host != '\0' ? host : DOCKERD_SOCKET);
}

enum state
{
  ST_CLEAN,   /* no runtime NAME, default-runtime another */
  ST_HAS,     /* still NAME */
  ST_UNKNOWN, /* cannot be asked: *WHY */
};

/* ST_UNKNOWN, *WHY the message (NULL when memory ran out). */
static enum state __attribute__ ((format (printf, 2, 3))) unknown (char **why, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  if (vasprintf (why, fmt, ap) < 0)
    *why = NULL;
  va_end (ap);
  return ST_UNKNOWN;
}

/* Ask dockerd D on SOCK (GET /info) whether it still has runtime NAME. */
static enum state
ask (const struct dockerd *d, const char *sock, const char *name, char **why)
{
  cleanup_close int fd = -1;
  cleanup_free char *body = NULL;
  cleanup_error kg_error_t err = NULL;
  cleanup_json struct json_object *info = NULL;
  struct json_object *runtimes, *def;
  struct ucred cred = { 0 };
  socklen_t cl = sizeof cred;
  size_t len;

  *why = NULL;
  if ((fd = kg_unix_connect (sock, &err)) < 0)
    return unknown (why, "%s", err->msg);
  /* Only this dockerd (or systemd, which holds a socket it activates) is
     asked, before anything is sent. */
  if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0
      || (cred.pid != d->pid && ! (d->activated && cred.pid == 1)))
    return unknown (why, "%s is not this dockerd's (process %d answers)", sock, (int) cred.pid);
  if (kg_http_get (fd, sock, "docker", "/info", INFO_MAX, INFO_TIMEOUT_MS, &body, &len, &err) < 0)
    return unknown (why, "%s", err->msg);
  if ((info = json_tokener_parse (body)) == NULL
      || ! json_object_object_get_ex (info, "Runtimes", &runtimes)
      || ! json_object_object_get_ex (info, "DefaultRuntime", &def))
    return unknown (why, "%s: GET /info: not Docker's answer", sock);
  if (json_object_object_get_ex (runtimes, name, NULL)
      || (json_object_is_type (def, json_type_string)
          && strcmp (json_object_get_string (def), name) == 0))
    return ST_HAS;
  return ST_CLEAN;
}

static void
sleep_ms (long ms)
{
  struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

  nanosleep (&t, NULL);
}

/* Reload the dockerd D reading FILE until it no longer has runtime NAME:
   0 done or nothing to do (said), -1 with *ERR when it did not. */
static int
reload_one (const struct dockerd *d, const char *file, const char *name, kg_error_t *err)
{
  cleanup_free char *sock = socket_of (d, file), *why = NULL;
  enum state s;
  int64_t deadline;

  if (sock == NULL)
    return kg_error (err, ENOMEM, "cannot allocate");
  if ((s = ask (d, sock, name, &why)) == ST_CLEAN)
    {
      printf ("kata-guard: uninstall: dockerd (pid %d) reads %s and already runs without "
              "runtime \"%s\"\n",
              (int) d->pid, file, name);
      return 0;
    }
  if (kill (d->pid, SIGHUP) < 0)
    return kg_error (err, errno,
                     "cannot signal dockerd (pid %d), which reads %s: reload it: "
                     "kill -HUP %d (or systemctl reload docker)",
                     (int) d->pid, file, (int) d->pid);
  if (s == ST_UNKNOWN)
    {
      printf ("kata-guard: uninstall: sent SIGHUP to dockerd (pid %d), which reads %s; it "
              "cannot be asked whether it reloaded (%s): check `docker info`\n",
              (int) d->pid, file, why ? why : "?");
      return 0;
    }
  deadline = kg_monotonic_ms () + RELOAD_TIMEOUT_MS;
  do
    {
      sleep_ms (100);
      free (why);
      if ((s = ask (d, sock, name, &why)) == ST_CLEAN)
        {
          printf ("kata-guard: uninstall: reloaded dockerd (pid %d): no runtime \"%s\" left "
                  "in it\n",
                  (int) d->pid, name);
          return 0;
        }
    }
  while (kg_monotonic_ms () < deadline);
  return kg_error (err, 0,
                   "dockerd (pid %d), which reads %s, still has runtime \"%s\" %d s after "
                   "SIGHUP (%s; its log says why): a plain docker run there fails once "
                   "kata-guard's binary is gone; reload it: kill -HUP %d (or systemctl "
                   "reload docker), then check `docker info`",
                   (int) d->pid, file, name, RELOAD_TIMEOUT_MS / 1000,
                   s == ST_HAS ? "it still lists it"
                   : why       ? why
                               : "it no longer answers",
                   (int) d->pid);
}

int
dockerd_reload (const char *file, const char *name, kg_error_t *err)
{
  DIR *proc;
  struct stat file_st, mnt;
  struct dirent *de;
  int rc = 0, found = 0;

  if (stat (file, &file_st) < 0)
    return 0; /* no file: no dockerd reads it */
  if (stat ("/proc/self/ns/mnt", &mnt) < 0 || (proc = opendir ("/proc")) == NULL)
    return kg_error (err, errno,
                     "cannot look for the dockerd that reads %s (/proc): reload it: "
                     "systemctl reload docker (or kill -HUP its pid)",
                     file);
  while ((de = readdir (proc)) != NULL)
    {
      cleanup_error kg_error_t why = NULL;
      struct dockerd d;
      char *end;
      long pid = strtol (de->d_name, &end, 10);
      int is;

      if (*end != '\0' || pid <= 0 || pid == (long) getpid ())
        continue;
      if ((is = dockerd_of ((pid_t) pid, &file_st, &mnt, &d)) < 0)
        {
          if (rc == 0)
            kg_error (err, ENOMEM, "cannot allocate");
          rc = -1;
          break;
        }
      if (is > 0)
        {
          found++;
          /* One that did not reload is the answer; the rest are still
             tried, each said. */
          if (reload_one (&d, file, name, rc < 0 ? &why : err) < 0)
            {
              if (why != NULL)
                fprintf (stderr, "kata-guard: uninstall: %s\n", why->msg);
              rc = -1;
            }
          dockerd_release (&d);
        }
    }
  closedir (proc);
  if (found == 0 && rc == 0)
    printf ("kata-guard: uninstall: no running dockerd reads %s; nothing to reload\n", file);
  return rc;
}
