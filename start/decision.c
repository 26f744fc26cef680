/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cleanup.h"
#include "decision.h"
#include "error.h"
#include "output.h"
#include "writer.h"

int
log_append_line (const char *path, const char *line, kg_error_t *err)
{
  cleanup_close int fd = -1;

  /* O_NOFOLLOW: a symlink planted where the log goes must not redirect a
     root write; O_NONBLOCK: a FIFO planted there must not hang a start. */
  fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK,
             0600);
  if (fd < 0)
    return kg_error (err, errno, "open %s", path);
  return writer_append_fd (fd, path, line, strlen (line), false, err);
}

bool
decision_audit_allows (const char *mode, const struct report *rep)
{
  size_t n = 0;

  if (mode == NULL || strcmp (mode, "audit") != 0 || rep->oom)
    return false;
  for (size_t i = 0; i < rep->n; i++)
    if (rep->results[i].verdict == VERDICT_FAIL)
      {
        if (rep->results[i].reach != REACH_VM)
          return false;
        n++;
      }
  return n > 0;
}

void
decision_log (const struct decision *d, const struct decision_sink *sink)
{
  cleanup_error kg_error_t err = NULL;
  bool file = sink->file != NULL && sink->file[0] != '\0';
  cleanup_decision_lines struct decision_lines lines;

  /* Rendered whole by output.c; here only routed where [log] says. */
  output_decision_lines (d, sink->syslog, file, &lines);
  if (sink->syslog)
    {
      /* No LOG_PERROR: a shim's stderr is read by containerd as its
         address.  glibc opens the syslog socket close-on-exec. */
      openlog ("kata-guard", LOG_PID, LOG_DAEMON);
      if (lines.syslog != NULL)
        syslog (lines.level, "%s", lines.syslog);
      else
        syslog (LOG_ERR, "%s", lines.fallback);
    }
  if (file)
    {
      if (lines.json == NULL)
        kg_error (&err, ENOMEM, "format the decision");
      else
        /* The guard's own file: by the guard's writer (writer.h). */
        writer_append (sink->file, lines.json, strlen (lines.json), WRITER_PRIVATE, &err);
      /* Enforced anyway; the failure itself goes where it can be seen
         without disturbing the engine (never stderr). */
      if (err != NULL && sink->syslog)
        syslog (LOG_ERR, "cannot write the decision log [log] file: %s", err->msg);
    }
  if (sink->syslog)
    closelog ();
}
