/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kata-guard-probe: what `kata-guard prove` runs inside its canary
 * (kata-guard(8), PROVE).  Static, linked with nothing of the guard, bound
 * into the canary read-only: the image needs nothing of its own.  It looks
 * from inside and says what it saw on stdout, one fact a line; the host
 * side (verify/prove.c) judges every line against the host.  It judges
 * nothing itself: a probe that a hostile guest replaced could only lie in
 * the direction of failing, since a missing or malformed line fails.
 *
 *   kg-probe 1
 *   kernel.release R | kernel.boot_id ID | kernel.hypervisor yes|no
 *   hostfs.marker absent|present | hostfs.init STARTTIME COMM
 *   socket PATH (each one found) | kvm absent|present
 *   connect metadata|private|direct ADDR:PORT RESULT
 *   forward none | forward route GW RESULT | forward added GW RESULT
 *     | forward cannot WHY (words: the rest of the line, as prove.forward
 *     shows it)
 *   proxy ADDR:PORT status CODE | proxy ADDR:PORT error WHY (words, as
 *     forward cannot's)
 *   end
 *
 * RESULT: connected (it completed and the peer spoke or closed),
 * connected-silent (it completed and nothing came: an accept-then-drop is
 * a way out all the same), refused, unreachable, timeout, error:WHY.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_TARGETS 16
#define MAX_SOCKETS 64
#define WALK_DEPTH 10
#define WALK_ENTRIES 200000

static int timeout_ms = 3000;
static unsigned walked;
static unsigned sockets_seen;

static void
first_line (const char *path, char *buf, size_t size)
{
  FILE *f = fopen (path, "re");

  buf[0] = '\0';
  if (f == NULL)
    return;
  if (fgets (buf, (int) size, f) == NULL)
    buf[0] = '\0';
  fclose (f);
  buf[strcspn (buf, "\n")] = '\0';
}

/* Only printable ASCII leaves the probe: a line is one fact. */
static void
clean (char *s)
{
  for (; *s; s++)
    if (*s < 0x21 || *s > 0x7e)
      *s = '_';
}

static void
kernel (void)
{
  struct utsname u;
  char id[128], line[4096];
  bool hv = false;
  FILE *f;

  if (uname (&u) == 0)
    {
      clean (u.release);
      printf ("kernel.release %s\n", u.release);
    }
  first_line ("/proc/sys/kernel/random/boot_id", id, sizeof id);
  clean (id);
  if (id[0] != '\0')
    printf ("kernel.boot_id %s\n", id);
  if ((f = fopen ("/proc/cpuinfo", "re")) != NULL)
    {
      while (! hv && fgets (line, sizeof line, f) != NULL)
        if (strncmp (line, "flags", 5) == 0 && strstr (line, " hypervisor") != NULL)
          hv = true;
      fclose (f);
      printf ("kernel.hypervisor %s\n", hv ? "yes" : "no");
    }
}

static void
hostfs (const char *marker)
{
  char stat_line[1024], *rp, *save = NULL, *tok, comm[64];
  int field = 3;

  if (marker != NULL)
    printf ("hostfs.marker %s\n", access (marker, F_OK) == 0 ? "present" : "absent");
  /* pid 1's start time (field 22 of /proc/1/stat) and name: the host's
     init is the one that started at boot. */
  first_line ("/proc/1/stat", stat_line, sizeof stat_line);
  if ((rp = strrchr (stat_line, ')')) == NULL || strchr (stat_line, '(') == NULL)
    return;
  snprintf (comm, sizeof comm, "%.*s", (int) (rp - strchr (stat_line, '(') - 1),
            strchr (stat_line, '(') + 1);
  clean (comm);
  for (tok = strtok_r (rp + 2, " ", &save); tok != NULL; tok = strtok_r (NULL, " ", &save))
    if (field++ == 22)
      {
        printf ("hostfs.init %s %s\n", tok, comm);
        return;
      }
}

/* Every socket under DIR (DEPTH deep), but /proc and /sys. */
static void
walk (int dfd, const char *path, int depth)
{
  DIR *d;
  struct dirent *e;

  if (depth > WALK_DEPTH || (d = fdopendir (dfd)) == NULL)
    {
      close (dfd);
      return;
    }
  while ((e = readdir (d)) != NULL && walked < WALK_ENTRIES)
    {
      char child[4096];
      struct stat st;
      int cfd;

      walked++;
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      if ((size_t) snprintf (child, sizeof child, "%s/%s", strcmp (path, "/") ? path : "",
                             e->d_name)
          >= sizeof child)
        continue;
      if (strcmp (child, "/proc") == 0 || strcmp (child, "/sys") == 0)
        continue;
      if (fstatat (dirfd (d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        continue;
      if (S_ISSOCK (st.st_mode) && sockets_seen < MAX_SOCKETS)
        {
          clean (child);
          printf ("socket %s\n", child);
          sockets_seen++;
        }
      else if (S_ISDIR (st.st_mode)
               && (cfd = openat (dirfd (d), e->d_name,
                                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC))
                      >= 0)
        walk (cfd, child, depth + 1);
    }
  closedir (d);
}

static void
sockets (void)
{
  int fd = open ("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0)
    walk (fd, "/", 0);
  if (walked >= WALK_ENTRIES)
    printf ("socket.walk cut at %u entries\n", walked);
  printf ("kvm %s\n", access ("/dev/kvm", F_OK) == 0 ? "present" : "absent");
}

static bool
parse_target (const char *s, struct sockaddr_in *sa)
{
  char host[64];
  const char *colon = strrchr (s, ':');
  char *end;
  long port;

  if (colon == NULL || (size_t) (colon - s) >= sizeof host)
    return false;
  snprintf (host, sizeof host, "%.*s", (int) (colon - s), s);
  port = strtol (colon + 1, &end, 10);
  memset (sa, 0, sizeof *sa);
  sa->sin_family = AF_INET;
  sa->sin_port = htons ((uint16_t) port);
  return *end == '\0' && port > 0 && port < 65536 && inet_pton (AF_INET, host, &sa->sin_addr) == 1;
}

/* Connect to SA within the timeout; *FD_OUT keeps a completed one. */
static const char *
try_connect (const struct sockaddr_in *sa, int *fd_out, char *why, size_t size)
{
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), err = 0;
  socklen_t len = sizeof err;
  struct pollfd p;

  *fd_out = -1;
  if (fd < 0)
    {
      snprintf (why, size, "error:socket:%s", strerror (errno));
      return why;
    }
  if (connect (fd, (const struct sockaddr *) sa, sizeof *sa) < 0 && errno != EINPROGRESS)
    err = errno;
  else
    {
      p = (struct pollfd){ .fd = fd, .events = POLLOUT };
      if (poll (&p, 1, timeout_ms) == 0)
        {
          close (fd);
          return "timeout";
        }
      if (getsockopt (fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        err = errno;
    }
  if (err == 0)
    {
      *fd_out = fd;
      return "connected";
    }
  close (fd);
  if (err == ECONNREFUSED)
    return "refused";
  if (err == ENETUNREACH || err == EHOSTUNREACH)
    return "unreachable";
  if (err == ETIMEDOUT)
    return "timeout";
  snprintf (why, size, "error:%s", strerror (err));
  clean (why);
  return why;
}

/* A connection that completed: did the peer speak or close within the
   timeout, or keep silent (accept-then-drop)? */
static const char *
connect_result (const struct sockaddr_in *sa, char *why, size_t size)
{
  int fd;
  const char *r = try_connect (sa, &fd, why, size);
  struct pollfd p;

  if (fd < 0)
    return r;
  p = (struct pollfd){ .fd = fd, .events = POLLIN };
  r = poll (&p, 1, timeout_ms) > 0 ? "connected" : "connected-silent";
  close (fd);
  return r;
}

static void
connect_line (const char *kind, const char *target)
{
  struct sockaddr_in sa;
  char why[128];

  if (! parse_target (target, &sa))
    printf ("connect %s %s error:not-an-ipv4-address:port\n", kind, target);
  else
    printf ("connect %s %s %s\n", kind, target, connect_result (&sa, why, sizeof why));
}

/* The default route's gateway, from /proc/net/route. */
static bool
default_gateway (struct in_addr *gw)
{
  char line[256], ifname[64];
  unsigned dest, gateway, flags;
  bool found = false;
  FILE *f = fopen ("/proc/net/route", "re");

  if (f == NULL)
    return false;
  while (! found && fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "%63s %x %x %x", ifname, &dest, &gateway, &flags) == 4 && dest == 0
        && (flags & RTF_UP))
      {
        gw->s_addr = gateway;
        found = true;
      }
  fclose (f);
  return found;
}

/* The route forward () added, removed on SIGTERM too: where the canary
   shares a network namespace (a runtime that is no VM, such as the test
   suite's runc), that namespace is not left with it when the engine
   stops the canary halfway. */
static struct rtentry added_route;
static volatile sig_atomic_t route_fd = -1;

static void
on_term (int sig)
{
  (void) sig;
  if (route_fd >= 0)
    ioctl (route_fd, SIOCDELRT, &added_route);
  _exit (143);
}

/* The attacker who owns the guest's kernel owns its routing table: make
   the network's host-side address (the first of the interface's subnet,
   as engines give the bridge) the default gateway and try outside again. */
static void
forward (const char *outside)
{
  struct sockaddr_in sa, *gsa;
  struct ifaddrs *ifa = NULL, *i;
  struct in_addr gw;
  struct rtentry rt;
  char why[128], gws[INET_ADDRSTRLEN];
  const char *r;
  int fd;

  if (! parse_target (outside, &sa))
    {
      printf ("forward cannot read the outside address as IPv4 ADDR:PORT\n");
      return;
    }
  if (default_gateway (&gw))
    {
      inet_ntop (AF_INET, &gw, gws, sizeof gws);
      printf ("forward route %s %s\n", gws, connect_result (&sa, why, sizeof why));
      return;
    }
  if (getifaddrs (&ifa) < 0)
    {
      printf ("forward cannot list the interfaces: %s\n", strerror (errno));
      return;
    }
  for (i = ifa; i != NULL; i = i->ifa_next)
    if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET && i->ifa_netmask != NULL
        && ! (i->ifa_flags & IFF_LOOPBACK) && (i->ifa_flags & IFF_UP))
      break;
  if (i == NULL)
    {
      freeifaddrs (ifa);
      printf ("forward none\n");
      return;
    }
  {
    uint32_t a = ntohl (((struct sockaddr_in *) i->ifa_addr)->sin_addr.s_addr);
    uint32_t m = ntohl (((struct sockaddr_in *) i->ifa_netmask)->sin_addr.s_addr);
    uint32_t g = (a & m) + 1;

    if (g == a)
      g++;
    gw.s_addr = htonl (g);
  }
  inet_ntop (AF_INET, &gw, gws, sizeof gws);
  memset (&rt, 0, sizeof rt);
  ((struct sockaddr_in *) &rt.rt_dst)->sin_family = AF_INET;
  ((struct sockaddr_in *) &rt.rt_genmask)->sin_family = AF_INET;
  gsa = (struct sockaddr_in *) &rt.rt_gateway;
  gsa->sin_family = AF_INET;
  gsa->sin_addr = gw;
  rt.rt_flags = RTF_UP | RTF_GATEWAY;
  rt.rt_dev = i->ifa_name;
  fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ioctl (fd, SIOCADDRT, &rt) < 0)
    {
      printf ("forward cannot add a default route via %s: %s\n", gws, strerror (errno));
      if (fd >= 0)
        close (fd);
      freeifaddrs (ifa);
      return;
    }
  added_route = rt;
  route_fd = fd;
  r = connect_result (&sa, why, sizeof why);
  route_fd = -1;
  ioctl (fd, SIOCDELRT, &rt);
  printf ("forward added %s %s\n", gws, r);
  close (fd);
  freeifaddrs (ifa);
}

/* CONNECT to a fresh random name through the proxy: its status line. */
static void
proxy (const char *target, const char *name)
{
  struct sockaddr_in sa;
  char why[128], req[512], buf[256];
  const char *r;
  struct pollfd p;
  ssize_t n;
  size_t got = 0;
  int fd, code;

  if (! parse_target (target, &sa))
    {
      printf ("proxy %s error not an IPv4 ADDR:PORT\n", target);
      return;
    }
  r = try_connect (&sa, &fd, why, sizeof why);
  if (fd < 0)
    {
      printf ("proxy %s error %s\n", target, r);
      return;
    }
  snprintf (req, sizeof req, "CONNECT %s.invalid:443 HTTP/1.1\r\nHost: %s.invalid:443\r\n\r\n",
            name, name);
  if (write (fd, req, strlen (req)) != (ssize_t) strlen (req))
    {
      printf ("proxy %s error write: %s\n", target, strerror (errno));
      close (fd);
      return;
    }
  while (got < sizeof buf - 1 && memchr (buf, '\n', got) == NULL)
    {
      p = (struct pollfd){ .fd = fd, .events = POLLIN };
      if (poll (&p, 1, timeout_ms * 3) <= 0)
        break;
      n = read (fd, buf + got, sizeof buf - 1 - got);
      if (n <= 0)
        break;
      got += (size_t) n;
    }
  close (fd);
  buf[got] = '\0';
  if (sscanf (buf, "HTTP/1.%*1[01] %3d", &code) == 1)
    printf ("proxy %s status %d\n", target, code);
  else
    printf ("proxy %s error no HTTP status line in the answer\n", target);
}

int
main (int argc, char **argv)
{
  const char *marker = NULL, *outside = NULL, *metadata = NULL, *proxy_at = NULL, *name = NULL;
  const char *privates[MAX_TARGETS];
  size_t n_private = 0;

  setvbuf (stdout, NULL, _IOLBF, 0);
  {
    struct sigaction sa = { .sa_handler = on_term };

    sigfillset (&sa.sa_mask);
    sigaction (SIGTERM, &sa, NULL);
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGHUP, &sa, NULL);
  }
  for (int i = 1; i + 1 < argc; i += 2)
    {
      const char *k = argv[i], *v = argv[i + 1];

      if (strcmp (k, "--marker") == 0)
        marker = v;
      else if (strcmp (k, "--outside") == 0)
        outside = v;
      else if (strcmp (k, "--metadata") == 0)
        metadata = v;
      else if (strcmp (k, "--private") == 0 && n_private < MAX_TARGETS)
        privates[n_private++] = v;
      else if (strcmp (k, "--proxy") == 0)
        proxy_at = v;
      else if (strcmp (k, "--name") == 0)
        name = v;
      else if (strcmp (k, "--timeout-ms") == 0)
        timeout_ms = atoi (v) > 0 ? atoi (v) : timeout_ms;
      else if (strcmp (k, "--hold") == 0)
        {
          /* prove's companion: hold the network namespace the canary
             joins for SECONDS, until prove removes it. */
          unsigned left = (unsigned) (atoi (v) > 0 ? atoi (v) : 1);

          while (left > 0)
            left = sleep (left);
          return 0;
        }
      else
        {
          printf ("kg-probe error unknown-argument\n");
          return 2;
        }
    }
  printf ("kg-probe 1\n");
  kernel ();
  hostfs (marker);
  sockets ();
  if (metadata != NULL)
    connect_line ("metadata", metadata);
  for (size_t i = 0; i < n_private; i++)
    connect_line ("private", privates[i]);
  if (outside != NULL)
    {
      connect_line ("direct", outside);
      forward (outside);
    }
  if (proxy_at != NULL)
    proxy (proxy_at, name ? name : "kata-guard-prove");
  printf ("end\n");
  return 0;
}
