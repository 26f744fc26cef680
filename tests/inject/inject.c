/* Failure injection for tests (kata-guard(8), Testing): an LD_PRELOAD library, never
   linked into the product.  It makes the Nth interposed call fail with a
   chosen errno, to prove that every failure the guard can meet ends in a
   refusal with a message, or is harmless: never a crash, a hang, a leaked
   descriptor or an exec after a failed check.

   Environment:
     KG_INJECT_N           the call to fail (1 = the first; 0 or unset:
                           none, only count)
     KG_INJECT_ERRNO       the errno, a number or one of ENOMEM EACCES EIO
                           ENOENT EINTR EAGAIN EPERM EBADF ENOSPC EMFILE
                           ECONNREFUSED ETIMEDOUT (default EIO; malloc,
                           calloc and realloc always fail with ENOMEM)
     KG_INJECT_CALLS       comma list of the calls that count: function
                           names (malloc, open, fstatat, ...) or the groups
                           alloc, open, read, ioctl, connect, stat,
                           readlink (default: all of them)
     KG_INJECT_COUNT_FILE  a file whose first 8 bytes (native unsigned
                           long) hold how many calls were counted, kept up
                           to date (so a driver knows when N is past the
                           last call): od -An -tu8 -N8 FILE
     KG_INJECT_EXE         only act in the program whose /proc/self/exe is
                           this path (so the runtime the guard execs, which
                           inherits LD_PRELOAD, runs untouched)

   Only calls made after this library's constructor ran are counted (the
   dynamic loader's own are not), and the counter lives in a shared
   anonymous mapping, so a forked child (the confined checker) and its
   parent count one sequence: each N names one call of the whole run.
   What cannot be interposed is not counted: glibc's internal calls
   (fopen, opendir, getpwnam ... open files through __open_nocancel and
   friends; the dynamic loader's own reads) and raw syscall(2)s.  The
   library itself makes raw syscalls only, so it never counts itself.  */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_malloc (size_t);
extern void *__libc_calloc (size_t, size_t);
extern void *__libc_realloc (void *, size_t);

static volatile int active;
static unsigned long *counter; /* shared across fork */
static unsigned long target;
static int inj_errno = EIO;
static char calls[1024];

/* getenv without allocating; environ is set before constructors run. */
static const char *
env (const char *name)
{
  extern char **environ;
  size_t n = strlen (name);
  for (char **e = environ; e && *e; e++)
    if (strncmp (*e, name, n) == 0 && (*e)[n] == '=')
      return *e + n + 1;
  return NULL;
}

static int
parse_errno (const char *s)
{
  static const struct
  {
    const char *n;
    int v;
  } t[] = {
    { "ENOMEM", ENOMEM },
    { "EACCES", EACCES },
    { "EIO", EIO },
    { "ENOENT", ENOENT },
    { "EINTR", EINTR },
    { "EAGAIN", EAGAIN },
    { "EPERM", EPERM },
    { "EBADF", EBADF },
    { "ENOSPC", ENOSPC },
    { "EMFILE", EMFILE },
    { "ECONNREFUSED", ECONNREFUSED },
    { "ETIMEDOUT", ETIMEDOUT },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strcmp (s, t[i].n) == 0)
      return t[i].v;
  return atoi (s) > 0 ? atoi (s) : EIO;
}

__attribute__ ((constructor)) static void
inject_init (void)
{
  const char *s, *exe = env ("KG_INJECT_EXE");
  if (exe != NULL)
    {
      char self[4096];
      long k = syscall (SYS_readlinkat, AT_FDCWD, "/proc/self/exe", self, sizeof self - 1);
      if (k < 0)
        return;
      self[k] = 0;
      if (strcmp (self, exe) != 0)
        return;
    }
  /* The counter is the first 8 bytes of the count file, mapped shared:
     every count is in the file at once, whatever way the program ends
     (exit, _exit, a signal, or an execveat(2) by raw syscall, as the
     guard execs the runtime), and with no syscall at count time (a
     seccomp-confined child could not make one).  */
  if ((s = env ("KG_INJECT_COUNT_FILE")) != NULL)
    {
      int fd = (int) syscall (SYS_openat, AT_FDCWD, s, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
                              0644);
      if (fd < 0 || syscall (SYS_ftruncate, fd, 4096L) != 0)
        return;
      counter = (unsigned long *) syscall (SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
                                           fd, 0);
      syscall (SYS_close, fd);
    }
  else
    counter = (unsigned long *) syscall (SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE,
                                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (counter == MAP_FAILED)
    return;
  if ((s = env ("KG_INJECT_N")) != NULL)
    target = strtoul (s, NULL, 10);
  if ((s = env ("KG_INJECT_ERRNO")) != NULL)
    inj_errno = parse_errno (s);
  s = env ("KG_INJECT_CALLS");
  /* ",list," so that ",name," is an exact match */
  calls[0] = ',';
  strncpy (calls + 1, s ? s : "alloc,open,read,ioctl,connect,stat,readlink", sizeof calls - 3);
  strcat (calls, ",");
  active = 1;
}

static int
listed (const char *name)
{
  char pat[64];
  size_t n = strlen (name);
  if (n + 3 > sizeof pat)
    return 0;
  pat[0] = ',';
  memcpy (pat + 1, name, n);
  pat[n + 1] = ',';
  pat[n + 2] = 0;
  return strstr (calls, pat) != NULL;
}

/* Count this call; 1 when it is the one to fail. */
static int
fail_now (const char *name, const char *group)
{
  unsigned long c;
  if (! active || ! (listed (name) || listed (group)))
    return 0;
  c = __atomic_add_fetch (counter, 1, __ATOMIC_SEQ_CST);
  return target != 0 && c == target;
}

#define REAL(ret, name, args)                                                                      \
  static ret (*real_##name) args;                                                                  \
  if (real_##name == NULL)                                                                         \
  real_##name = (ret (*) args) dlsym (RTLD_NEXT, #name)

/* ---- memory ---------------------------------------------------------- */
void *
malloc (size_t n)
{
  if (fail_now ("malloc", "alloc"))
    {
      errno = ENOMEM;
      return NULL;
    }
  return __libc_malloc (n);
}
void *
calloc (size_t a, size_t b)
{
  if (fail_now ("calloc", "alloc"))
    {
      errno = ENOMEM;
      return NULL;
    }
  return __libc_calloc (a, b);
}
void *
realloc (void *p, size_t n)
{
  if (fail_now ("realloc", "alloc"))
    {
      errno = ENOMEM;
      return NULL;
    }
  return __libc_realloc (p, n);
}

/* ---- open ------------------------------------------------------------ */
#define OPEN_MODE(flags, mode)                                                                     \
  mode_t mode = 0;                                                                                 \
  if ((flags) & (O_CREAT | __O_TMPFILE))                                                           \
    {                                                                                              \
      va_list ap;                                                                                  \
      va_start (ap, flags);                                                                        \
      mode = va_arg (ap, mode_t);                                                                  \
      va_end (ap);                                                                                 \
    }

int
open (const char *p, int flags, ...)
{
  OPEN_MODE (flags, mode);
  REAL (int, open, (const char *, int, ...));
  if (fail_now ("open", "open"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_open (p, flags, mode);
}
int
open64 (const char *p, int flags, ...)
{
  OPEN_MODE (flags, mode);
  REAL (int, open64, (const char *, int, ...));
  if (fail_now ("open64", "open"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_open64 (p, flags, mode);
}
int
openat (int d, const char *p, int flags, ...)
{
  OPEN_MODE (flags, mode);
  REAL (int, openat, (int, const char *, int, ...));
  if (fail_now ("openat", "open"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_openat (d, p, flags, mode);
}
int
openat64 (int d, const char *p, int flags, ...)
{
  OPEN_MODE (flags, mode);
  REAL (int, openat64, (int, const char *, int, ...));
  if (fail_now ("openat64", "open"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_openat64 (d, p, flags, mode);
}
/* _FORTIFY_SOURCE's checked variants */
int
__open_2 (const char *p, int flags)
{
  REAL (int, __open_2, (const char *, int) );
  if (fail_now ("open", "open"))
    {
      errno = inj_errno;
      return -1;
    }
  return real___open_2 (p, flags);
}
int
__open64_2 (const char *p, int flags)
{
  REAL (int, __open64_2, (const char *, int) );
  if (fail_now ("open64", "open"))
    {
      errno = inj_errno;
      return -1;
    }
  return real___open64_2 (p, flags);
}
int
__openat_2 (int d, const char *p, int flags)
{
  REAL (int, __openat_2, (int, const char *, int) );
  if (fail_now ("openat", "open"))
    {
      errno = inj_errno;
      return -1;
    }
  return real___openat_2 (d, p, flags);
}
int
__openat64_2 (int d, const char *p, int flags)
{
  REAL (int, __openat64_2, (int, const char *, int) );
  if (fail_now ("openat64", "open"))
    {
      errno = inj_errno;
      return -1;
    }
  return real___openat64_2 (d, p, flags);
}

/* ---- read ------------------------------------------------------------ */
ssize_t
read (int fd, void *b, size_t n)
{
  REAL (ssize_t, read, (int, void *, size_t));
  if (fail_now ("read", "read"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_read (fd, b, n);
}
ssize_t
__read_chk (int fd, void *b, size_t n, size_t bl)
{
  REAL (ssize_t, __read_chk, (int, void *, size_t, size_t));
  if (fail_now ("read", "read"))
    {
      errno = inj_errno;
      return -1;
    }
  return real___read_chk (fd, b, n, bl);
}

/* ---- ioctl, connect ---------------------------------------------------- */
int
ioctl (int fd, unsigned long req, ...)
{
  va_list ap;
  void *arg;
  va_start (ap, req);
  arg = va_arg (ap, void *);
  va_end (ap);
  REAL (int, ioctl, (int, unsigned long, ...));
  if (fail_now ("ioctl", "ioctl"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_ioctl (fd, req, arg);
}
int
connect (int fd, const struct sockaddr *a, socklen_t l)
{
  REAL (int, connect, (int, const struct sockaddr *, socklen_t));
  if (fail_now ("connect", "connect"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_connect (fd, a, l);
}

/* ---- the stat family ------------------------------------------------- */
#define STAT1(name, T1, T2)                                                                        \
  int name (T1 a, T2 b)                                                                            \
  {                                                                                                \
    REAL (int, name, (T1, T2));                                                                    \
    if (fail_now (#name, "stat"))                                                                  \
      {                                                                                            \
        errno = inj_errno;                                                                         \
        return -1;                                                                                 \
      }                                                                                            \
    return real_##name (a, b);                                                                     \
  }
STAT1 (stat, const char *, struct stat *)
STAT1 (lstat, const char *, struct stat *)
STAT1 (fstat, int, struct stat *)
STAT1 (stat64, const char *, struct stat64 *)
STAT1 (lstat64, const char *, struct stat64 *)
STAT1 (fstat64, int, struct stat64 *)
int
fstatat (int d, const char *p, struct stat *st, int fl)
{
  REAL (int, fstatat, (int, const char *, struct stat *, int) );
  if (fail_now ("fstatat", "stat"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_fstatat (d, p, st, fl);
}
int
fstatat64 (int d, const char *p, struct stat64 *st, int fl)
{
  REAL (int, fstatat64, (int, const char *, struct stat64 *, int) );
  if (fail_now ("fstatat", "stat"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_fstatat64 (d, p, st, fl);
}
int
statx (int d, const char *p, int fl, unsigned int mask, struct statx *st)
{
  REAL (int, statx, (int, const char *, int, unsigned int, struct statx *) );
  if (fail_now ("statx", "stat"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_statx (d, p, fl, mask, st);
}

/* ---- readlink -------------------------------------------------------- */
ssize_t
readlink (const char *p, char *b, size_t n)
{
  REAL (ssize_t, readlink, (const char *, char *, size_t));
  if (fail_now ("readlink", "readlink"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_readlink (p, b, n);
}
ssize_t
readlinkat (int d, const char *p, char *b, size_t n)
{
  REAL (ssize_t, readlinkat, (int, const char *, char *, size_t));
  if (fail_now ("readlinkat", "readlink"))
    {
      errno = inj_errno;
      return -1;
    }
  return real_readlinkat (d, p, b, n);
}
ssize_t
__readlink_chk (const char *p, char *b, size_t n, size_t bl)
{
  REAL (ssize_t, __readlink_chk, (const char *, char *, size_t, size_t));
  if (fail_now ("readlink", "readlink"))
    {
      errno = inj_errno;
      return -1;
    }
  return real___readlink_chk (p, b, n, bl);
}
ssize_t
__readlinkat_chk (int d, const char *p, char *b, size_t n, size_t bl)
{
  REAL (ssize_t, __readlinkat_chk, (int, const char *, char *, size_t, size_t));
  if (fail_now ("readlinkat", "readlink"))
    {
      errno = inj_errno;
      return -1;
    }
  return real___readlinkat_chk (d, p, b, n, bl);
}
