/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cri.handler's reading of the running CRI's answers (preflight/families/cri.c):
   containerd's `crictl info` (the keys containerd 1.6, 1.7 and 2.1 answer,
   as tests/cri-handler.test asks the real ones) and CRI-O's GET /config
   TOML (what `crio status config` prints), and cri_ask's HTTP exchange
   with a socket that answers as CRI-O's does. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"
#include "cri.h"
#include "fdio.h"
#include "tap.h"

static char dir[] = "/tmp/kg-test-cri.XXXXXX";
static char kata[128], other[128], self[256];

static void
touch (const char *p)
{
  FILE *f = fopen (p, "w");

  if (f != NULL)
    fclose (f);
}

static enum verdict
ctd (const char *runtimes, const char *handler, char *why)
{
  char json[4096];

  snprintf (json, sizeof json,
            "{\"status\": {}, \"config\": {\"containerd\": {\"runtimes\": {%s}}, "
            "\"cni\": {}}, \"golang\": \"go1.22\"}",
            runtimes);
  return cri_judge_containerd (json, strlen (json), handler, kata, why, 512);
}

static void
containerd (void)
{
  char why[512], rt[2048];

  snprintf (rt, sizeof rt,
            "\"runc\": {\"runtimeType\": \"io.containerd.runc.v2\", \"options\": null}, "
            "\"kata-guard\": {\"runtimeType\": \"io.containerd.kata-guard.v2\", "
            "\"runtimePath\": \"\", \"options\": {\"ConfigPath\": \"%s\"}}",
            kata);
  is_int (ctd (rt, "kata-guard", why), VERDICT_PASS, "containerd: the guard's handler: %s", why);
  is_int (ctd (rt, "kata", why), VERDICT_FAIL, "containerd: another handler name: fail");
  has_str (why, "no runtime handler \"kata\"", "  it says the running configuration lacks it");
  snprintf (rt, sizeof rt,
            "\"kata-guard\": {\"runtimeType\": \"io.containerd.kata-guard.v2\", "
            "\"options\": {\"ConfigPath\": \"%s\"}}",
            other);
  is_int (ctd (rt, "kata-guard", why), VERDICT_FAIL, "containerd: ConfigPath another file: fail");
  has_str (why, other, "  it names the file handed on");
  is_int (ctd ("\"kata-guard\": {\"runtimeType\": \"io.containerd.kata-guard.v2\", "
               "\"options\": null}",
               "kata-guard", why),
          VERDICT_PASS,
          "containerd: no ConfigPath (Kata's search order, which kata.config judged)");
  snprintf (rt, sizeof rt,
            "\"kata-guard\": {\"runtimeType\": \"io.containerd.kata.v2\", "
            "\"options\": {\"ConfigPath\": \"%s\"}}",
            kata);
  is_int (ctd (rt, "kata-guard", why), VERDICT_FAIL, "containerd: Kata's own shim: fail");
  /* 1.7 and later: runtime_path is the binary, whatever the type says. */
  snprintf (rt, sizeof rt,
            "\"kata-guard\": {\"runtimeType\": \"io.containerd.kata-guard.v2\", "
            "\"runtimePath\": \"/bin/true\", \"options\": {\"ConfigPath\": \"%s\"}}",
            kata);
  is_int (ctd (rt, "kata-guard", why), VERDICT_FAIL,
          "containerd: runtime_path another binary under the guard's type: fail");
  snprintf (rt, sizeof rt,
            "\"kata-guard\": {\"runtimeType\": \"io.containerd.other.v2\", "
            "\"runtimePath\": \"%s\", \"options\": {\"ConfigPath\": \"%s\"}}",
            self, kata);
  is_int (ctd (rt, "kata-guard", why), VERDICT_PASS,
          "containerd: runtime_path the guard itself: %s", why);
  is_int (ctd ("\"kata-guard\": \"io.containerd.kata-guard.v2\"", "kata-guard", why), VERDICT_FAIL,
          "containerd: a handler that is not an object: fail");
  is_int (cri_judge_containerd ("{\"status\": {}}", 14, "kata-guard", kata, why, sizeof why),
          VERDICT_FAIL, "containerd: no config in the answer: fail");
  is_int (cri_judge_containerd ("{\"config\": ", 11, "kata-guard", kata, why, sizeof why),
          VERDICT_FAIL, "containerd: a cut answer: fail");
  /* Read as every JSON document is (jtree.h): a key twice, or text after
     the answer, is no answer; json-c's own tokener took the last key's
     value, and the first document of two. */
  snprintf (rt, sizeof rt,
            "\"kata-guard\": {\"runtimeType\": \"io.containerd.runc.v2\"}, "
            "\"kata-guard\": {\"runtimeType\": \"io.containerd.kata-guard.v2\", "
            "\"options\": {\"ConfigPath\": \"%s\"}}",
            kata);
  is_int (ctd (rt, "kata-guard", why), VERDICT_FAIL, "containerd: a handler given twice: fail");
  {
    char two[4096];

    snprintf (two, sizeof two,
              "{\"config\": {\"containerd\": {\"runtimes\": {\"kata-guard\": {\"runtimeType\": "
              "\"io.containerd.kata-guard.v2\", \"options\": {\"ConfigPath\": \"%s\"}}}}}} {}",
              kata);
    is_int (cri_judge_containerd (two, strlen (two), "kata-guard", kata, why, sizeof why),
            VERDICT_FAIL, "containerd: text after the answer: fail");
  }
}

static enum verdict
crio (const char *table, const char *handler, char *why)
{
  char toml[4096];

  snprintf (toml, sizeof toml,
            "[crio]\nroot = \"/var/lib/containers/storage\"\n"
            "[crio.runtime]\ndefault_runtime = \"runc\"\n"
            "[crio.runtime.runtimes.runc]\nruntime_path = \"/usr/bin/runc\"\n"
            "runtime_type = \"oci\"\nruntime_root = \"/run/runc\"\n%s"
            "[crio.image]\npause_image = \"registry.k8s.io/pause:3.9\"\n",
            table);
  return cri_judge_crio (toml, strlen (toml), handler, kata, why, 512);
}

static void
crio_tests (void)
{
  char why[512], t[2048];

  snprintf (t, sizeof t,
            "[crio.runtime.runtimes.kata-guard]\nruntime_path = \"%s\"\nruntime_type = \"vm\"\n"
            "runtime_root = \"/run/vc\"\nruntime_config_path = \"%s\"\n"
            "privileged_without_host_devices = true\n",
            self, kata);
  is_int (crio (t, "kata-guard", why), VERDICT_PASS, "CRI-O: vm handler running the guard: %s",
          why);
  is_int (crio (t, "kata", why), VERDICT_FAIL, "CRI-O: another handler name: fail");
  snprintf (t, sizeof t,
            "[crio.runtime.runtimes.kata-guard]\nruntime_path = \"%s\"\nruntime_type = \"oci\"\n"
            "runtime_root = \"/run/kata-guard\"\nruntime_config_path = \"\"\n",
            self);
  is_int (crio (t, "kata-guard", why), VERDICT_PASS, "CRI-O: oci handler running the guard: %s",
          why);
  snprintf (t, sizeof t,
            "[crio.runtime.runtimes.kata-guard]\nruntime_path = \"%s\"\nruntime_type = \"vm\"\n"
            "runtime_config_path = \"%s\"\n",
            self, other);
  is_int (crio (t, "kata-guard", why), VERDICT_FAIL, "CRI-O: runtime_config_path another file");
  snprintf (t, sizeof t,
            "[crio.runtime.runtimes.kata-guard]\n"
            "runtime_path = \"/opt/kata/bin/containerd-shim-kata-v2\"\nruntime_type = \"vm\"\n"
            "runtime_config_path = \"%s\"\n",
            kata);
  is_int (crio (t, "kata-guard", why), VERDICT_FAIL, "CRI-O: Kata's own shim: fail");
  is_int (crio ("[crio.runtime.runtimes.kata-guard]\nruntime_type = \"vm\"\n", "kata-guard", why),
          VERDICT_FAIL, "CRI-O: no runtime_path: fail");
  snprintf (t, sizeof t,
            "[crio.runtime.runtimes.kata-guard]\nruntime_path = \"%s\"\nruntime_type = \"pod\"\n",
            self);
  is_int (crio (t, "kata-guard", why), VERDICT_FAIL, "CRI-O: runtime_type pod: fail");
  is_int (cri_judge_crio ("[crio\n", 6, "kata-guard", kata, why, sizeof why), VERDICT_FAIL,
          "CRI-O: an answer that does not parse: fail");
}

/* A socket that answers GET /config as CRI-O's (HTTP/1.0, the TOML). */
static void
ask_tests (void)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  struct guard_config cfg = { 0 };
  struct cri_answer a;
  char path[100], body[1024], why[512];
  int fd;
  pid_t pid;

  snprintf (path, sizeof path, "%s/crio.sock", dir);
  memcpy (sa.sun_path, path, strlen (path) + 1);
  fd = socket (AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0 || listen (fd, 4) < 0)
    {
      ok (0, "a listening socket");
      return;
    }
  snprintf (body, sizeof body,
            "[crio.runtime.runtimes.kata-guard]\nruntime_path = \"%s\"\nruntime_type = \"vm\"\n"
            "runtime_config_path = \"%s\"\n",
            self, kata);
  pid = fork ();
  if (pid == 0)
    {
      /* Every connection (crictl's, when one is installed, then ours):
         read the request, answer, close. */
      for (;;)
        {
          char req[4096], head[256];
          int c = accept (fd, NULL, NULL);
          ssize_t n;

          if (c < 0)
            _exit (0);
          n = read (c, req, sizeof req - 1);
          if (n > 0 && strncmp (req, "GET /config HTTP/1.0\r\n", 22) == 0)
            {
              snprintf (
                  head, sizeof head,
                  "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n\r\n",
                  strlen (body));
              (void) ! write (c, head, strlen (head));
              (void) ! write (c, body, strlen (body));
            }
          else
            (void) ! write (c, "HTTP/1.0 404 Not Found\r\n\r\n", 26);
          close (c);
        }
    }
  close (fd);
  cfg.cri.endpoint = path;
  cri_ask (&cfg, &a);
  ok (a.crio != NULL && a.info == NULL, "cri_ask: CRI-O's socket answers GET /config (%s)", a.why);
  if (a.crio != NULL)
    is_int (cri_judge_crio (a.crio, a.crio_len, "kata-guard", kata, why, sizeof why), VERDICT_PASS,
            "  and its TOML judges: %s", why);
  cri_answer_release (&a);
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);
  unlink (path);
  cfg.cri.endpoint = (char *) "";
  cri_ask (&cfg, &a);
  ok (a.crio == NULL && a.info == NULL, "cri_ask: no [cri] endpoint, nothing asked");
  snprintf (path, sizeof path, "%s/none.sock", dir);
  cfg.cri.endpoint = path;
  cri_ask (&cfg, &a);
  ok (a.crio == NULL && a.info == NULL && strstr (a.why, "cannot connect") != NULL,
      "cri_ask: nothing listening says so: %s", a.why);
}

/* A server on PATH for one connection: it reads "GET /x" (Host h) and
   writes ANSWER, then ends the connection, or with HOLD keeps it open
   until killed.  Its pid, or -1. */
static pid_t
serve_once (const char *path, const char *answer, bool hold)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int lfd = socket (AF_UNIX, SOCK_STREAM, 0);
  pid_t pid;

  memcpy (sa.sun_path, path, strlen (path) + 1);
  unlink (path);
  if (lfd < 0 || bind (lfd, (struct sockaddr *) &sa, sizeof sa) < 0 || listen (lfd, 1) < 0)
    return -1;
  pid = fork ();
  if (pid == 0)
    {
      char req[512];
      int c = accept (lfd, NULL, NULL);
      ssize_t n = c < 0 ? -1 : read (c, req, sizeof req - 1);

      if (n > 0 && (req[n] = '\0', strcmp (req, "GET /x HTTP/1.0\r\nHost: h\r\n\r\n") == 0))
        (void) ! write (c, answer, strlen (answer));
      while (hold)
        pause ();
      _exit (0);
    }
  close (lfd);
  return pid;
}

/* kg_unix_connect, then kg_http_get of "/x" from the server "s" on PATH
   within TIMEOUT_MS: its status. */
static int
get (const char *path, int timeout_ms, char **body, size_t *len, kg_error_t *err)
{
  int fd = kg_unix_connect (path, err), rc;

  if (fd < 0)
    return -1;
  rc = kg_http_get (fd, "s", "h", "/x", 4096, timeout_ms, body, len, err);
  close (fd);
  return rc;
}

/* kg_http_get (fdio.h) as CRI-O's GET /config and dockerd's GET /info use
   it, against a socket that gives one canned answer: the body of a 200
   alone, every other answer refused in words, a short one never read
   past its end. */
static void
http_tests (void)
{
  static const struct
  {
    const char *answer, *want; /* WANT: the body, or "!" and part of the error */
  } rows[] = {
    { "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nbody", "body" },
    { "HTTP/1.1 200 OK\r\n\r\n", "" },
    { "HTTP/1.0 200\r\n\r\nx", "x" },
    { "HTTP/1.0 404 Not Found\r\n\r\n", "!not HTTP 200 (HTTP/1.0 404 Not Found)" },
    { "HTTP/1.0 2000 OK\r\n\r\n", "!not HTTP 200" },
    { "HTTP/1.", "!not HTTP 200 (HTTP/1.)" },
    { "HTTP/1.0 200", "!no end of the headers" },
    { "HTTP/1.0 200 OK\r\nServer: x\r\n", "!no end of the headers" },
    { "", "!not HTTP 200 ()" },
  };
  char path[100];

  snprintf (path, sizeof path, "%s/http.sock", dir);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    {
      kg_error_t err = NULL;
      char *body = NULL;
      size_t len = 0;
      pid_t pid = serve_once (path, rows[i].answer, false);

      if (pid < 0)
        {
          ok (0, "a listening socket");
          return;
        }
      if (get (path, 10000, &body, &len, &err) == 0)
        {
          is_str (body, rows[i].want, "GET answered \"%.20s\": its body", rows[i].answer);
          is_int ((int) len, (int) strlen (rows[i].want), "  and its length");
        }
      else if (ok (rows[i].want[0] == '!' && err != NULL, "GET answered \"%.20s\": refused",
                   rows[i].answer))
        has_str (err->msg, rows[i].want + 1, "  says \"%s\"", rows[i].want + 1);
      free (body);
      kg_error_release (&err);
      waitpid (pid, NULL, 0);
    }
  /* A server that never ends its answer: the deadline, said once. */
  {
    kg_error_t err = NULL;
    char *body = NULL;
    const char *t;
    size_t len;
    pid_t pid = serve_once (path, "HTTP/1.0 200 OK\r\n", true);
    int rc;

    if (pid < 0)
      abort ();
    rc = get (path, 200, &body, &len, &err);
    ok (rc < 0 && err != NULL && err->errnum == ETIMEDOUT
            && strncmp (err->msg, "s: GET /x: not closed within 200 ms", 35) == 0
            && (t = strstr (err->msg, "timed out")) != NULL && strstr (t + 1, "timed out") == NULL,
        "an answer that never ends: refused at the deadline, said once (%s)",
        err ? err->msg : "read");
    free (body);
    kg_error_release (&err);
    kill (pid, SIGKILL);
    waitpid (pid, NULL, 0);
  }
  unlink (path);
  {
    kg_error_t err = NULL;
    int fd = kg_unix_connect (path, &err);

    ok (fd < 0 && err != NULL && strstr (err->msg, "cannot connect to ") != NULL
            && err->errnum == ENOENT,
        "nothing listening: cannot connect, ENOENT (%s)", err ? err->msg : "connected");
    kg_error_release (&err);
  }
}

/* The path of the program the guard's code sees as itself: what
   stat ("/proc/self/exe") names.  Under valgrind that is valgrind's tool
   (only readlink of /proc/self/exe is shown the client's), so the path is
   found among the mapped files by device and inode. */
static int
self_path (void)
{
  struct stat exe, st;
  char line[512], path[256];
  FILE *f;
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);

  if (n < 0 || stat ("/proc/self/exe", &exe) < 0)
    return -1;
  self[n] = '\0';
  if (stat (self, &st) == 0 && st.st_dev == exe.st_dev && st.st_ino == exe.st_ino)
    return 0;
  if ((f = fopen ("/proc/self/maps", "r")) == NULL)
    return -1;
  while (fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "%*s %*s %*s %*s %*s %255s", path) == 1 && stat (path, &st) == 0
        && st.st_dev == exe.st_dev && st.st_ino == exe.st_ino)
      {
        snprintf (self, sizeof self, "%s", path);
        fclose (f);
        return 0;
      }
  fclose (f);
  return -1;
}

int
main (void)
{

  if (mkdtemp (dir) == NULL)
    return 1;
  snprintf (kata, sizeof kata, "%s/configuration.toml", dir);
  snprintf (other, sizeof other, "%s/other.toml", dir);
  touch (kata);
  touch (other);
  if (self_path () < 0)
    return 1;
  containerd ();
  crio_tests ();
  ask_tests ();
  http_tests ();
  unlink (kata);
  unlink (other);
  rmdir (dir);
  return tap_done ();
}
