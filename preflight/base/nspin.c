/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Namespaces named by a process, pinned (nspin.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "error.h"
#include "nspin.h"
#include "proc.h"

/* Whether PIN's process is alive: its pidfd takes signal 0 (a process
   that exited, reaped or not, refuses with ESRCH).  Without a pidfd, the
   start time alone says it. */
static int
alive (const struct ns_pin *pin)
{
#ifdef SYS_pidfd_send_signal
  if (pin->pidfd >= 0 && syscall (SYS_pidfd_send_signal, pin->pidfd, 0, NULL, 0) < 0)
    return -1;
#endif
  return 0;
}

static int
ns_stat (const struct ns_pin *pin, struct stat *st)
{
  char path[64];

  snprintf (path, sizeof path, "/proc/%lu/ns/%s", pin->pid, pin->name);
  return stat (path, st);
}

/* PIN's process PID: its start time, and its namespace in *ST (PIN's
   device and inode), while it stays the same process. */
static int
pin_confirm (struct ns_pin *pin, unsigned long pid, struct stat *st)
{
  uint64_t again;

  if (kg_proc_start (pid, NULL, &pin->start) < 0 || ns_stat (pin, st) < 0)
    return -1;
  pin->dev = st->st_dev;
  pin->ino = st->st_ino;
  if (alive (pin) < 0 || kg_proc_start (pid, NULL, &again) < 0)
    return -1;
  if (again != pin->start)
    return errno = ESRCH, -1;
  return 0;
}

int
ns_pin_take (unsigned long pid, const char *name, struct ns_pin *pin, struct stat *st)
{
  struct stat own;
  int e;

  if (st == NULL)
    st = &own;
  memset (pin, 0, sizeof *pin);
  pin->pidfd = -1;
  if (pid == 0 || pid > INT32_MAX || strlen (name) >= sizeof pin->name)
    return errno = EINVAL, -1;
  pin->pid = pid;
  snprintf (pin->name, sizeof pin->name, "%s", name);
#ifdef SYS_pidfd_open
  pin->pidfd = (int) syscall (SYS_pidfd_open, (pid_t) pid, 0);
  if (pin->pidfd < 0 && errno != ENOSYS)
    return -1;
#endif
  if (pin_confirm (pin, pid, st) == 0)
    return 0;
  e = errno;
  if (pin->pidfd >= 0)
    close (pin->pidfd);
  pin->pidfd = -1;
  return errno = e, -1;
}

int
ns_pin_check (const struct ns_pin *pin)
{
  struct stat st;
  uint64_t start;

  if (alive (pin) < 0 || kg_proc_start (pin->pid, NULL, &start) < 0)
    return errno = ESRCH, -1;
  if (start != pin->start)
    return errno = ESRCH, -1;
  if (ns_stat (pin, &st) < 0)
    return -1;
  if ((uint64_t) st.st_dev != pin->dev || (uint64_t) st.st_ino != pin->ino)
    return errno = EXDEV, -1;
  return 0;
}

int
ns_pins_add (struct ns_pins *pins, struct ns_pin *pin)
{
  if (pins->n == NS_PINS_MAX)
    {
      if (pin->pidfd >= 0)
        close (pin->pidfd);
      pin->pidfd = -1;
      return errno = E2BIG, -1;
    }
  pins->pin[pins->n++] = *pin;
  pin->pidfd = -1;
  return 0;
}

int
ns_pins_verify (const struct ns_pins *pins, kg_error_t *err)
{
  for (size_t i = 0; i < pins->n; i++)
    {
      const struct ns_pin *p = &pins->pin[i];

      if (ns_pin_check (p) == 0)
        continue;
      if (errno == ESRCH)
        return kg_error (err, ESRCH,
                         "/proc/%lu/ns/%s: process %lu is no longer the one that was checked "
                         "(it exited and its pid is another process's, or none's)",
                         p->pid, p->name, p->pid);
      if (errno == EXDEV)
        return kg_error (err, EXDEV,
                         "/proc/%lu/ns/%s: process %lu is in another %s namespace than the one "
                         "that was checked",
                         p->pid, p->name, p->pid, p->name);
      return kg_error (err, errno, "/proc/%lu/ns/%s: cannot check it again", p->pid, p->name);
    }
  return 0;
}

void
ns_pins_release (struct ns_pins *pins)
{
  for (size_t i = 0; i < pins->n; i++)
    if (pins->pin[i].pidfd >= 0)
      close (pins->pin[i].pidfd);
  pins->n = 0;
}
