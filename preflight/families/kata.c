/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kata.*: the real runtime and the Kata configuration it will load
 * (kata-guard(8), CHECKS).
 *
 * The configuration is found, read and merged the way Kata's own runtimes
 * do it (src/runtime/pkg/katautils/config.go for the Go shim,
 * src/libs/kata-types/src/config/drop_in.rs for runtime-rs), because a check
 * of any other file would be a check of nothing.  Every file is opened
 * through the trusted-path walk and parsed from the verified descriptor;
 * no path is opened twice.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "array.h"
#include "buf.h"
#include "checks.h"
#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "kata.h"
#include "request.h"
#include "text.h"
#include "toml.h"
#include "trust.h"

const char *const kata_search_path[KATA_SEARCH_PATH_N] = {
  "/etc/kata-containers/configuration.toml",
  "/opt/kata/share/defaults/kata-containers/configuration.toml",
  "/usr/share/defaults/kata-containers/configuration.toml",
};

/* runtime-rs's DEFAULT_RUNTIME_CONFIGURATIONS
   (src/libs/kata-types/src/config/default.rs, the same in 3.30 and 4.1):
   /usr/share before /opt. */
const char *const kata_search_path_rs[KATA_SEARCH_PATH_N] = {
  "/etc/kata-containers/runtime-rs/configuration.toml",
  "/usr/share/defaults/kata-containers/runtime-rs/configuration.toml",
  "/opt/kata/share/defaults/kata-containers/runtime-rs/configuration.toml",
};

/* Both runtimes read this variable; the real shim inherits the guard's
   environment.  The Go shim takes it when the engine passed no
   config_path, runtime-rs before the engine's config_path. */
#define KATA_CONF_ENV "KATA_CONF_FILE"

/* Where kata-deploy installs each shim (both are named
   containerd-shim-kata-v2). */
#define KATA_RS_SHIM_TAIL "/runtime-rs/bin/containerd-shim-kata-v2"
#define KATA_GO_SHIM_TAIL "/opt/kata/bin/containerd-shim-kata-v2"

/* config.d is read whole, as Kata does; a directory with more entries
   than this is not a configuration anybody wrote by hand. */
#define KATA_MAX_DROPINS 256

/* Hypervisor annotations (io.katacontainers.config.hypervisor.NAME) that
   would let a workload choose what the host executes or boots: the
   executables, the boot assets, the host paths Kata hands to the VMM, and
   virtiofsd's extra arguments (which Kata's documentation warns can be
   abused on the host). */
static const char *const sensitive_annotations[] = {
  "path",
  "jailer_path",
  "ctlpath",
  "kernel",
  "image",
  "initrd",
  "firmware",
  "firmware_volume",
  "virtio_fs_daemon",
  "entropy_source",
  "file_mem_backend",
  "vhost_user_store_path",
  "virtio_fs_extra_args",
  /* The agent runs the OCI hooks it finds there in the guest, as root
     (both runtimes gate it by enable_annotations). */
  "guest_hook_path",
};

/* runtime-rs only: the host file whose list of files the VMM prefetches
   (kata-types annotations, KATA_ANNO_CFG_HYPERVISOR_PREFETCH_FILES_LIST):
   a host path of the workload's choosing. */
static const char *const sensitive_annotations_rs[] = {
  "prefetch_files.list",
};

static const char *const later_ids[] = {
  "kata.hypervisor",
  "kata.jailer",
  "kata.debug",
  "kata.annotations",
};

static const char remedy_trust[]
    = "make the file and every directory above it owned by root and not writable by group "
      "or others (chown root:root; chmod go-w)";

/* "a string", "an integer", "an array" */
static const char *
a_kind (const struct toml_value *v)
{
  switch (v->kind)
    {
    case TOML_INTEGER:
      return "an integer";
    case TOML_ARRAY:
      return "an array";
    case TOML_STRING:
      return "a string";
    case TOML_FLOAT:
      return "a float";
    case TOML_BOOLEAN:
      return "a boolean";
    case TOML_TABLE:
      return "a table";
    }
  return "an unknown value";
}

/* Which runtime reads the configuration, and how that was told (for the
   reasons). */
struct runtime_choice
{
  enum kata_runtime rt;
  char why[PATH_MAX + 96];
};

static const char *
runtime_label (enum kata_runtime rt)
{
  return rt == KATA_RUNTIME_RS ? "runtime-rs" : "the Go shim";
}

static bool
has_tail (const char *path, const char *tail)
{
  size_t n, t = strlen (tail);

  if (path == NULL)
    return false;
  n = strlen (path);
  return n >= t && strcmp (path + n - t, tail) == 0;
}

static const char *const *
search_path (enum kata_runtime rt)
{
  return rt == KATA_RUNTIME_RS ? kata_search_path_rs : kata_search_path;
}

static void
skip_later (struct report *rep, const char *why)
{
  for (size_t i = 0; i < ARRAY_SIZE (later_ids); i++)
    report_skip (rep, later_ids[i], "not run: %s", why);
}

/* kata.runtime: the file the wrapper will execute is a trusted executable
   and not kata-guard itself.  On success its descriptor is kept in
   pf->from_kata.runtime_fd, so that what runs is what was checked. */
/* The runtime [kata] runtime names, or for "auto" the one whose
   kata-deploy path PATH (the configured one, not yet resolved) has. */
static void
runtime_from_key (const struct guard_config *cfg, const char *path, struct runtime_choice *rc)
{
  const char *key = cfg->kata.runtime ? cfg->kata.runtime : "auto";

  if (strcmp (key, "auto") != 0)
    {
      rc->rt = strcmp (key, "runtime-rs") == 0 ? KATA_RUNTIME_RS : KATA_RUNTIME_GO;
      snprintf (rc->why, sizeof rc->why, "[kata] runtime = \"%s\"", key);
      return;
    }
  rc->rt = path != NULL && has_tail (path, KATA_RS_SHIM_TAIL) ? KATA_RUNTIME_RS : KATA_RUNTIME_GO;
  snprintf (rc->why, sizeof rc->why, "[kata] runtime = \"auto\": %s", path ? path : "no runtime");
}

enum kata_runtime
kata_runtime_of (const struct guard_config *cfg, const char *real)
{
  const char *key = cfg->kata.runtime ? cfg->kata.runtime : "auto";

  if (strcmp (key, "auto") != 0)
    return strcmp (key, "runtime-rs") == 0 ? KATA_RUNTIME_RS : KATA_RUNTIME_GO;
  return has_tail (real, KATA_RS_SHIM_TAIL) ? KATA_RUNTIME_RS : KATA_RUNTIME_GO;
}

/* The runtime, now that PATH (KEY) resolved to REAL: "auto" takes the
   resolved file's place (a kata-deploy link such as
   /usr/local/bin/containerd-shim-kata-qemu-runtime-rs-v2 leads to
   runtime-rs's); a path and a file, or a key and a path, that say
   different runtimes fail, since judging a configuration by the wrong
   runtime's rules is judging another file.  False after reporting. */
static bool
runtime_confirm (struct preflight *pf, const char *key, const char *path, const char *real,
                 struct runtime_choice *rc)
{
  const char *rkey = pf->cfg->kata.runtime ? pf->cfg->kata.runtime : "auto";
  bool rs_path = has_tail (path, KATA_RS_SHIM_TAIL), rs_real = has_tail (real, KATA_RS_SHIM_TAIL);
  bool go_deploy = has_tail (path, KATA_GO_SHIM_TAIL) || has_tail (real, KATA_GO_SHIM_TAIL);
  const char *conflict = NULL;

  if (strcmp (rkey, "auto") == 0)
    {
      if (rs_path && ! rs_real)
        conflict = "is at runtime-rs's path but resolves to another file";
      rc->rt = kata_runtime_of (pf->cfg, real);
      snprintf (rc->why, sizeof rc->why, "[kata] runtime = \"auto\": %s %s", real,
                rs_real ? "is runtime-rs's shim as kata-deploy installs it"
                        : "is not at runtime-rs's kata-deploy path (.../runtime-rs/bin/)");
    }
  else if (rc->rt == KATA_RUNTIME_GO && (rs_path || rs_real))
    conflict = "is runtime-rs's shim as kata-deploy installs it, but [kata] runtime = \"go\"";
  else if (rc->rt == KATA_RUNTIME_RS && go_deploy)
    conflict = "is the Go shim as kata-deploy installs it, but [kata] runtime = \"runtime-rs\"";
  if (conflict == NULL)
    return true;
  report_fail (pf->rep, "kata.runtime",
               "set [kata] runtime to the runtime that [runtime] names (\"go\" or "
               "\"runtime-rs\"), or point [runtime] at that runtime's shim",
               "%s %s (%s) %s: kata-guard cannot tell whose rules the Kata configuration is "
               "read by",
               key, path, real, conflict);
  return false;
}

/* Where kata-guard as a shim v2 runtime is an engine's to read: a start
   cannot ask the engine its version (it must not wait for it), so the
   remedy states the rule (docker.h: DOCKER_RUNTIME_TYPE_MAJOR). */
#define SHIM_V2_REMEDY                                                                             \
  "register kata-guard as a shim v2 runtime with an engine that reads one (containerd; CRI-O "     \
  "runtime_type \"vm\"; Docker 24 and later: Docker 20.10 and 23 do not read daemon.json's "       \
  "\"runtimeType\" and start plain runc under the name; kata-guard install picks the form by the " \
  "version the engine tells)"

static void
check_runtime (struct preflight *pf, struct runtime_choice *rc)
{
  const char *path = pf->req->mode == KG_MODE_OCI ? pf->cfg->runtime.oci : pf->cfg->runtime.shim;
  const char *key = pf->req->mode == KG_MODE_OCI ? "[runtime] oci" : "[runtime] shim";
  cleanup_error kg_error_t err = NULL;
  cleanup_close int fd = -1;
  struct trust_info info;

  runtime_from_key (pf->cfg, path, rc);

  if (path == NULL || *path == '\0')
    {
      report_fail (pf->rep, "kata.runtime",
                   "set [runtime] oci to the real runc-style runtime, or " SHIM_V2_REMEDY,
                   "%s is not set: OCI runtime mode has no runtime to execute", key);
      return;
    }
  /* Nothing in a runc-style binary says whether it boots a VM (runc and
     crun run the container on the host kernel, and every other check here
     would then certify isolation that is not there): the operator says. */
  if (pf->req->mode == KG_MODE_OCI && ! pf->cfg->runtime.oci_vm)
    {
      report_fail (pf->rep, "kata.runtime",
                   "set [runtime] oci_vm = true when [runtime] oci is Kata's kata-runtime (or "
                   "another runtime that runs every container in a VM); otherwise " SHIM_V2_REMEDY,
                   "%s %s is not declared to run containers in a VM ([runtime] oci_vm is "
                   "false): kata-guard cannot tell, and behind runc or crun nothing isolates",
                   key, path);
      return;
    }
  fd = trust_open (path, TRUST_EXEC, &info, &err);
  if (fd < 0)
    {
      report_fail (pf->rep, "kata.runtime",
                   err->errnum == ENOENT
                       ? "install Kata Containers, or point [runtime] at the real runtime"
                       : "make the runtime and every directory above it owned by root and not "
                         "writable by group or others (chown root:root; chmod go-w)",
                   "%s %s: %s", key, path, err->msg);
      return;
    }
  if (trust_check_not_self (&info.st, &err) < 0)
    {
      report_fail (pf->rep, "kata.runtime",
                   err->errnum ? "mount /proc"
                               : "point [runtime] at the real Kata runtime, not at kata-guard",
                   "%s %s (%s): %s", key, path, info.path, err->msg);
      return;
    }
  if (! runtime_confirm (pf, key, path, info.path, rc))
    return;
  report_pass (pf->rep, "kata.runtime",
               "%s %s is a trusted executable (%s); the Kata configuration is read as %s reads "
               "it (%s)",
               key, path, info.path, runtime_label (rc->rt), rc->why);
  pf->from_kata.runtime_fd = steal_fd (&fd);
}

/* Parse the file behind FD (which passed the trusted-path walk as INFO):
   it is reopened through the descriptor, never by its path again. */
static struct toml_value *
parse_verified (int fd, const struct trust_info *info, kg_error_t *err)
{
  cleanup_close int rfd = -1;
  cleanup_free char *data = NULL;
  size_t len;

  rfd = trust_reopen (fd, O_RDONLY, &info->st, err);
  if (rfd < 0)
    {
      kg_error_prefix (err, "%s", info->path);
      return NULL;
    }
  if (kg_read_fd_bounded (rfd, info->path, TOML_MAX_SIZE, &data, &len, err) < 0)
    return NULL;
  return toml_parse (info->path, data, len, err);
}

static int
cmp_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

struct names
{
  char **v;
  size_t n;
};

static void
names_release (struct names *n)
{
  for (size_t i = 0; i < n->n; i++)
    free (n->v[i]);
  free (n->v);
}
#define cleanup_names __attribute__ ((cleanup (names_release)))

static void
closedir_p (DIR **d)
{
  if (*d != NULL)
    closedir (*d);
}

/* Every entry of the directory behind DFD (verified as DINFO), sorted by
   byte order as Go's os.ReadDir and Rust's sort by file name do. */
/* Kata's settings that its Go shim decodes into a uint64
   (src/runtime/pkg/katautils/config.go): BurntSushi/toml range-checks the
   narrower unsigned types but stores a negative number in a uint64 as a
   huge one, where the guard would read the negative. */
static const char *const kata_u64_keys[] = {
  "snp_guest_policy", "rx_rate_limiter_max_rate", "tx_rate_limiter_max_rate",
  "memory_offset",    "default_maxmemory",        "create_container_timeout",
};

/* The first entry of table T, at any depth, that Kata's TOML decoder
   (BurntSushi/toml) may read otherwise than the guard, and why:
   - a key not written as Kata writes its keys (lower-case ASCII letters,
     digits, '_' and '-'): the decoder matches a key to a setting exactly
     or, failing that, case-insensitively under Unicode's simple folding,
     so "Debug_Console_Enabled", or "di\u017fable_guest_seccomp" with
     U+017F for the first s,
     set the very settings the guard reads under their own names, and
     beside them Kata picks either one by map order;
   - a """ string with a line-ending backslash (before 1.3 the decoder
     drops every later newline of the string);
   - a negative number for a uint64 setting. */
const struct toml_entry *
kata_unreadable_entry (const struct toml_value *t, const char **why)
{
  if (t->kind == TOML_ARRAY)
    {
      for (size_t i = 0; i < t->u.array.n; i++)
        {
          const struct toml_entry *e = kata_unreadable_entry (t->u.array.items[i], why);

          if (e != NULL)
            return e;
        }
      return NULL;
    }
  if (t->kind != TOML_TABLE)
    return NULL;
  for (size_t i = 0; i < t->u.table.n; i++)
    {
      const struct toml_entry *e = &t->u.table.items[i];
      const struct toml_value *v = e->value;

      if (e->key[0] == '\0'
          || strspn (e->key, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen (e->key))
        {
          *why = "is not lower case: Kata's TOML decoder matches keys to its settings "
                 "case-insensitively (Unicode folding), so it may set one the guard reads under "
                 "another name";
          return e;
        }
      if (v->kind == TOML_STRING && (v->flags & TOML_F_CRLF))
        {
          *why = "has a CRLF line ending inside a multi-line string, which the versions of "
                 "Kata's TOML decoder (BurntSushi/toml) read differently";
          return e;
        }
      if (v->kind == TOML_STRING && (v->flags & TOML_F_LINE_ESCAPE))
        {
          *why = "has a line-ending backslash in a \"\"\" string, which Kata's TOML decoder "
                 "(BurntSushi/toml before 1.3) reads otherwise";
          return e;
        }
      for (size_t k = 0;
           v->kind == TOML_INTEGER && v->u.integer < 0 && k < ARRAY_SIZE (kata_u64_keys); k++)
        if (strcmp (e->key, kata_u64_keys[k]) == 0)
          {
            *why = "is negative, and Kata decodes it as an unsigned 64-bit number (a huge one)";
            return e;
          }
      if ((e = kata_unreadable_entry (v, why)) != NULL)
        return e;
    }
  return NULL;
}

static bool
unreadable_refused (struct report *rep, const char *path, const struct toml_value *doc)
{
  const char *why = NULL;
  const struct toml_entry *e = kata_unreadable_entry (doc, &why);

  if (e == NULL)
    return false;
  report_fail (rep, "kata.config",
               "write the Kata configuration as Kata's own files are written (lower-case keys, "
               "plain strings, no negative sizes)",
               "%s:%u: key \"%.80s\" %s", path, e->line, e->key, why);
  return true;
}

/* The keys runtime-rs's serde types take in the tables it decodes with
   deny_unknown_fields (kata-types config/agent.rs, hypervisor/mod.rs;
   3.30 and 4.1 together: 4.1 added visible_cdi_devices and
   cdh_api_timeout_ms).  Any other key there makes runtime-rs refuse the
   configuration. */
static const char *const rs_agent_keys[] = {
  "enable_debug",
  "log_level",
  "enable_tracing",
  "debug_console_enabled",
  "visible_cdi_devices",
  "server_port",
  "log_port",
  "passfd_listener_port",
  "dial_timeout_ms",
  "reconnect_timeout_ms",
  "cdh_api_timeout_ms",
  "create_container_timeout",
  "health_check_request_timeout_ms",
  "kernel_modules",
  "container_pipe_size",
  "launch_process_timeout",
  "mem_agent",
  "policy",
};
static const char *const rs_mem_agent_keys[] = {
  "enable",
  "mem_agent_enable",
  "memcg_disable",
  "memcg_swap",
  "memcg_swappiness_max",
  "memcg_period_secs",
  "memcg_period_psi_percent_limit",
  "memcg_eviction_psi_percent_limit",
  "memcg_eviction_run_aging_count_min",
  "compact_disable",
  "compact_period_secs",
  "compact_period_psi_percent_limit",
  "compact_psi_percent_limit",
  "compact_sec_max",
  "compact_order",
  "compact_threshold",
  "compact_force_times",
};
static const char *const rs_factory_keys[] = { "enable_template", "template_path" };

/* The first key of table T (a table named SECTION) not in LIST, into WHY. */
static bool
strict_table_refused (const struct toml_value *t, const char *section, const char *const *list,
                      size_t n, char *why, size_t size)
{
  if (t == NULL || t->kind != TOML_TABLE)
    return false;
  for (size_t i = 0; i < t->u.table.n; i++)
    if (! kg_strv_has (list, n, t->u.table.items[i].key))
      {
        snprintf (why, size, "[%s] %.80s (line %u) is not a key runtime-rs knows there", section,
                  t->u.table.items[i].key, t->u.table.items[i].line);
        return true;
      }
  /* serde's alias: both spellings set one field, and it refuses the pair. */
  if (list == rs_mem_agent_keys && toml_get (t, "enable") && toml_get (t, "mem_agent_enable"))
    {
      snprintf (why, size, "[%s] sets both enable and mem_agent_enable (one setting)", section);
      return true;
    }
  return false;
}

/* Whether runtime-rs would refuse DOC for an unknown key in a table its
   types deny them in: [agent.NAME], [agent.NAME.mem_agent] and
   [hypervisor.NAME.factory].  Elsewhere it ignores unknown keys, as the
   Go shim does everywhere. */
static bool
rs_strict_refused (const struct toml_value *doc, char *why, size_t size)
{
  const struct toml_value *agents = toml_get (doc, "agent"), *hvs = toml_get (doc, "hypervisor");
  char section[256];

  for (size_t i = 0; agents && agents->kind == TOML_TABLE && i < agents->u.table.n; i++)
    {
      const struct toml_entry *e = &agents->u.table.items[i];

      snprintf (section, sizeof section, "agent.%.200s", e->key);
      if (strict_table_refused (e->value, section, rs_agent_keys, ARRAY_SIZE (rs_agent_keys), why,
                                size))
        return true;
      snprintf (section, sizeof section, "agent.%.200s.mem_agent", e->key);
      if (e->value->kind == TOML_TABLE
          && strict_table_refused (toml_get (e->value, "mem_agent"), section, rs_mem_agent_keys,
                                   ARRAY_SIZE (rs_mem_agent_keys), why, size))
        return true;
    }
  for (size_t i = 0; hvs && hvs->kind == TOML_TABLE && i < hvs->u.table.n; i++)
    {
      const struct toml_entry *e = &hvs->u.table.items[i];

      snprintf (section, sizeof section, "hypervisor.%.200s.factory", e->key);
      if (e->value->kind == TOML_TABLE
          && strict_table_refused (toml_get (e->value, "factory"), section, rs_factory_keys,
                                   ARRAY_SIZE (rs_factory_keys), why, size))
        return true;
    }
  return false;
}

static int
list_dropins (int dfd, const struct trust_info *dinfo, struct names *out, kg_error_t *err)
{
  __attribute__ ((cleanup (closedir_p))) DIR *d = NULL;
  cleanup_close int rfd = -1;
  struct dirent *de;

  rfd = trust_reopen (dfd, O_RDONLY | O_DIRECTORY, &dinfo->st, err);
  if (rfd < 0)
    return kg_error_prefix (err, "%s", dinfo->path);
  d = fdopendir (rfd);
  if (d == NULL)
    return kg_error (err, errno, "%s", dinfo->path);
  rfd = -1; /* the DIR owns it now */
  for (;;)
    {
      char **nv;

      errno = 0;
      de = readdir (d);
      if (de == NULL)
        {
          if (errno != 0)
            return kg_error (err, errno, "reading %s", dinfo->path);
          break;
        }
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (out->n >= KATA_MAX_DROPINS)
        return kg_error (err, 0, "%s holds more than %d entries", dinfo->path, KATA_MAX_DROPINS);
      nv = realloc (out->v, (out->n + 1) * sizeof *nv);
      if (nv == NULL)
        return kg_error (err, ENOMEM, "%s", dinfo->path);
      out->v = nv;
      out->v[out->n] = strdup (de->d_name);
      if (out->v[out->n] == NULL)
        return kg_error (err, ENOMEM, "%s", dinfo->path);
      out->n++;
    }
  if (out->n > 0)
    qsort (out->v, out->n, sizeof *out->v, cmp_names);
  return 0;
}

/* The file that names the configuration, in the precedence of runtime RT:
   the Go shim takes the engine's config_path (the runtime option), then
   KATA_CONF_FILE; runtime-rs takes KATA_CONF_FILE first
   (runtime-rs/crates/runtimes/src/manager.rs).  KATA_CONF_FILE counts in
   shim mode only (the real shim inherits this environment).  Kata 4.x
   accepts KATA_CONF_FILE only when it resolves to one of its default
   files and refuses to start otherwise; 3.x loads it whatever it is: so
   the file it names is the one either loads, and the one judged.  A
   set-but-empty KATA_CONF_FILE makes runtime-rs 4.x refuse to start and
   3.x ignore the engine's config_path: the guard cannot tell which, so it
   fails.  NULL with nothing named; FAILED after reporting. */
static const char *
config_named (struct preflight *pf, enum kata_runtime rt, const char **source, bool *failed)
{
  const char *env = pf->req->mode == KG_MODE_SHIM ? getenv (KATA_CONF_ENV) : NULL;
  const char *opt = pf->req->kata_config;

  if (rt == KATA_RUNTIME_RS && env != NULL && *env == '\0')
    {
      report_fail (pf->rep, "kata.config",
                   "unset KATA_CONF_FILE in the engine's environment, or set it to the "
                   "configuration runtime-rs must load",
                   "KATA_CONF_FILE is set but empty: runtime-rs 4.x refuses to start with it, "
                   "3.x ignores the engine's config_path and searches its defaults, and "
                   "kata-guard cannot tell which version runs");
      *failed = true;
      return NULL;
    }
  if (env != NULL && *env == '\0')
    env = NULL;
  if (opt != NULL && *opt == '\0')
    opt = NULL;
  if (env != NULL && (rt == KATA_RUNTIME_RS || opt == NULL))
    {
      *source = KATA_CONF_ENV;
      return env;
    }
  if (opt != NULL)
    *source = "the engine's config_path option";
  return opt;
}

/* Which configuration Kata will load, in the precedence of runtime RT:
   what config_named finds, then that runtime's search order, first file
   that exists.  [kata] config does not choose: it asserts which file that
   must be, and a mismatch fails (checking another file than the one Kata
   loads would be checking nothing).  Only when Kata would find no file at
   all (and then refuses to start) is [kata] config's file the one
   checked.  Returns the path, or NULL after reporting the failure. */
static const char *
config_choose (struct preflight *pf, enum kata_runtime rt, const char **source)
{
  const char *const *order = search_path (rt);
  const char *chosen, *want = pf->cfg->kata.config;
  struct stat st, wst;
  bool failed = false;

  chosen = config_named (pf, rt, source, &failed);
  if (failed)
    return NULL;
  for (size_t i = 0; chosen == NULL && i < KATA_SEARCH_PATH_N; i++)
    {
      if (stat (order[i], &st) == 0)
        {
          *source = rt == KATA_RUNTIME_RS ? "runtime-rs's search order" : "Kata's search order";
          chosen = order[i];
        }
      /* Kata moves on from any candidate it cannot resolve; only "not
         there" is that clear here, anything else is an error. */
      else if (errno != ENOENT && errno != ENOTDIR)
        {
          report_fail (pf->rep, "kata.config", remedy_trust, "cannot resolve %s: %s", order[i],
                       strerror (errno));
          return NULL;
        }
    }
  if (want == NULL || *want == '\0')
    {
      if (chosen == NULL)
        report_fail (pf->rep, "kata.config",
                     "install Kata Containers, or point the engine's ConfigPath at its "
                     "configuration.toml",
                     "no Kata configuration found for %s: none of %s, %s, %s exists",
                     runtime_label (rt), order[0], order[1], order[2]);
      return chosen;
    }
  if (chosen == NULL)
    {
      *source = "[kata] config; Kata itself would find none and refuse to start";
      return want;
    }
  /* A file Kata cannot load fails as that (the walk names it); else the
     same file, whatever the spelling: by inode after symlinks. */
  if (stat (chosen, &st) < 0
      || (stat (want, &wst) == 0 && st.st_dev == wst.st_dev && st.st_ino == wst.st_ino))
    return chosen;
  report_fail (pf->rep, "kata.config",
               "set [kata] config to the file Kata loads, or make Kata load that one (the "
               "engine's ConfigPath, or remove the file that comes first in Kata's search order)",
               "%s will load %s (from %s), not [kata] config %s",
               rt == KATA_RUNTIME_RS ? "runtime-rs" : "Kata", chosen, *source, want);
  return NULL;
}

/* kata.config: find, verify, parse and merge the configuration.  Returns
   the merged document, or NULL after reporting the failure; LAST (of
   PATH_MAX) is the file whose settings win (struct kata_config). */
static struct toml_value *
load_config (struct preflight *pf, const struct runtime_choice *rc, char *file, char *last)
{
  struct report *rep = pf->rep;
  cleanup_error kg_error_t err = NULL;
  cleanup_close int fd = -1;
  cleanup_close int dfd = -1;
  cleanup_toml struct toml_value *doc = NULL;
  cleanup_names struct names names = { 0 };
  cleanup_kg_buf struct kg_buf used = { 0 };
  struct trust_info info, dinfo;
  char dropdir[PATH_MAX];
  char why[512];
  const char *source, *path, *slash;

  path = config_choose (pf, rc->rt, &source);
  if (path == NULL)
    return NULL;

  fd = trust_open (path, TRUST_FILE, &info, &err);
  if (fd < 0)
    {
      report_fail (rep, "kata.config",
                   err->errnum == ENOENT
                       ? "install Kata Containers, or point the engine's ConfigPath or [kata] "
                         "config at its configuration.toml"
                       : remedy_trust,
                   "%s (from %s): %s", path, source, err->msg);
      return NULL;
    }
  report_add_kata_file (rep, info.path);
  snprintf (last, PATH_MAX, "%s", info.path);
  snprintf (file, PATH_MAX, "%s", info.path);
  doc = parse_verified (fd, &info, &err);
  if (doc == NULL)
    {
      report_fail (rep, "kata.config", "fix the TOML syntax of the Kata configuration",
                   "%s (from %s) does not parse: %s", path, source, err->msg);
      return NULL;
    }
  if (unreadable_refused (rep, info.path, doc))
    return NULL;
  sb_printf (&used, "%s", info.path);
  if (strcmp (path, info.path) != 0)
    sb_printf (&used, " (as %s)", path);

  /* config.d beside the file after its symlinks, as both runtimes
     resolve the path before they look for it. */
  slash = strrchr (info.path, '/');
  if (snprintf (dropdir, sizeof dropdir, "%.*s/config.d", (int) (slash - info.path), info.path)
      >= (int) sizeof dropdir)
    {
      report_fail (rep, "kata.config", "move the Kata configuration to a shorter path",
                   "%s/config.d: path too long", info.path);
      return NULL;
    }
  dfd = trust_open (dropdir, TRUST_DIR, &dinfo, &err);
  if (dfd < 0 && err->errnum != ENOENT)
    {
      report_fail (rep, "kata.config", remedy_trust, "drop-in directory %s: %s", dropdir, err->msg);
      return NULL;
    }
  if (dfd < 0)
    kg_error_release (&err); /* no config.d: Kata reads the one file */
  else if (list_dropins (dfd, &dinfo, &names, &err) < 0)
    {
      report_fail (rep, "kata.config", remedy_trust, "drop-in directory %s: %s", dropdir, err->msg);
      return NULL;
    }

  /* Every entry, whatever its name (hidden ones and ones without .toml
     too), later ones winning: Kata reads them all, and fails on one that
     is not a file. */
  for (size_t i = 0; i < names.n; i++)
    {
      cleanup_close int ffd = -1;
      struct toml_value *sub;
      struct trust_info finfo;
      char fpath[PATH_MAX];

      if (snprintf (fpath, sizeof fpath, "%s/%s", dinfo.path, names.v[i]) >= (int) sizeof fpath)
        {
          report_fail (rep, "kata.config", "shorten the drop-in's name",
                       "drop-in %s/%s: path too long", dinfo.path, names.v[i]);
          return NULL;
        }
      ffd = trust_open (fpath, TRUST_FILE, &finfo, &err);
      if (ffd < 0)
        {
          report_fail (rep, "kata.config",
                       "Kata merges every entry of config.d: make each one a root-owned file "
                       "not writable by group or others, or remove it",
                       "drop-in %s: %s", fpath, err->msg);
          return NULL;
        }
      /* runtime-rs takes an entry by its own type (DirEntry::file_type,
         which does not follow links) and fails on a symlink; the Go shim
         reads through it (os.ReadFile). */
      if (rc->rt == KATA_RUNTIME_RS && finfo.symlinks > 0)
        {
          report_fail (rep, "kata.config",
                       "make the drop-in a regular file (runtime-rs refuses a symbolic link in "
                       "config.d)",
                       "drop-in %s is a symbolic link (to %s): runtime-rs would refuse the "
                       "configuration",
                       fpath, finfo.path);
          return NULL;
        }
      report_add_file (rep, finfo.path);
      sub = parse_verified (ffd, &finfo, &err);
      if (sub == NULL)
        {
          report_fail (rep, "kata.config",
                       "fix the drop-in's TOML syntax (Kata merges every entry of config.d, "
                       "whatever its name), or remove it",
                       "drop-in %s does not parse: %s", fpath, err->msg);
          return NULL;
        }
      if (unreadable_refused (rep, finfo.path, sub))
        {
          toml_free (sub);
          return NULL;
        }
      if (toml_merge (doc, sub, &err) < 0)
        {
          report_fail (rep, "kata.config", "remove or fix the drop-in",
                       "cannot merge drop-in %s: %s", fpath, err->msg);
          return NULL;
        }
      sb_printf (&used, "%s%s", i == 0 ? " + drop-ins " : ", ", finfo.path);
      snprintf (last, PATH_MAX, "%s", finfo.path);
    }

  if (rc->rt == KATA_RUNTIME_RS && rs_strict_refused (doc, why, sizeof why))
    {
      report_fail (rep, "kata.config",
                   "remove the key, or spell it as runtime-rs's own configuration files do",
                   "%s (merged): %s, and it would refuse the configuration", sb_str (&used), why);
      return NULL;
    }
  report_pass (rep, "kata.config", "%s (from %s)%s; read as %s reads it (%s)", sb_str (&used),
               source, names.n == 0 ? ", no config.d drop-ins" : "", runtime_label (rc->rt),
               rc->why);
  return steal_pointer (&doc);
}

/* Why runtime RT cannot run a VM for [hypervisor.NAME], or NULL.  The Go
   shim builds a mock hypervisor for dragonball
   (virtcontainers/hypervisor_linux.go: no VM at all) and knows no
   openvmm; runtime-rs (3.30, 4.1) registers no stratovirt. */
static const char *
hypervisor_unrunnable (enum kata_runtime rt, const char *name)
{
  if (rt == KATA_RUNTIME_GO && strcmp (name, "dragonball") == 0)
    return "Dragonball is built into runtime-rs only: for this table Kata's Go shim creates a "
           "mock hypervisor and no VM";
  if (rt == KATA_RUNTIME_GO && strcmp (name, "openvmm") == 0)
    return "OpenVMM is a runtime-rs hypervisor: Kata's Go shim does not know it";
  if (rt == KATA_RUNTIME_RS && strcmp (name, "stratovirt") == 0)
    return "runtime-rs has no StratoVirt";
  return NULL;
}

static bool
hypervisor_allowed (const struct guard_config *cfg, const char *name)
{
  return kg_strv_has ((const char *const *) cfg->kata.hypervisors, cfg->kata.n_hypervisors, name);
}

/* The executable at KEY of the hypervisor table must pass the trusted-path
   test.  On failure reports it under ID and returns false.  Not set or
   empty fails with MISSING_WHY when MISSING_WHY is not NULL (Kata would
   then fall back to something nobody checked), and passes otherwise.  A
   pass is only described in PASSED: the caller reports it. */
static bool
check_exec_key (struct preflight *pf, const char *id, const char *key, const char *missing_why,
                const char *missing_remedy, struct kg_buf *passed)
{
  const struct kata_config *k = pf->from_kata.config;
  const struct toml_value *v = toml_get (k->hypervisor, key);
  cleanup_error kg_error_t err = NULL;
  cleanup_close int fd = -1;
  struct trust_info info;

  if (v == NULL || (v->kind == TOML_STRING && *v->u.string == '\0'))
    {
      if (missing_why == NULL)
        return true;
      report_fail (pf->rep, id, missing_remedy, "[hypervisor.%s] %s is %s: %s", k->hypervisor_name,
                   key, v == NULL ? "not set" : "empty", missing_why);
      return false;
    }
  if (v->kind != TOML_STRING)
    {
      report_fail (pf->rep, id, "set it to the absolute path of the executable",
                   "[hypervisor.%s] %s is %s, not a string (line %u)", k->hypervisor_name, key,
                   a_kind (v), v->line);
      return false;
    }
  fd = trust_open (v->u.string, TRUST_EXEC, &info, &err);
  if (fd < 0)
    {
      report_fail (pf->rep, id,
                   err->errnum == ENOENT ? "install it, or fix the path in the Kata configuration"
                                         : remedy_trust,
                   "[hypervisor.%s] %s %s: %s", k->hypervisor_name, key, v->u.string, err->msg);
      return false;
    }
  sb_printf (passed, "%s%s %s", passed->len ? ", " : "", key, v->u.string);
  if (strcmp (v->u.string, info.path) != 0)
    sb_printf (passed, " (%s)", info.path);
  return true;
}

/* kata.hypervisor: exactly one [hypervisor.*] table, of an allowed kind,
   whose VMM binary is trusted.  Hands the document to pf->from_kata.config as soon as
   there is exactly one table, whatever the rest says, so that later
   families see the configuration Kata will use. */
static void
check_hypervisor (struct preflight *pf, struct toml_value **docp, enum kata_runtime rt)
{
  struct report *rep = pf->rep;
  const struct toml_value *doc = *docp, *hv, *want;
  const struct toml_entry *one = NULL;
  cleanup_kg_buf struct kg_buf list = { 0 };
  cleanup_kg_buf struct kg_buf allowed = { 0 };
  cleanup_kg_buf struct kg_buf passed = { 0 };
  struct kata_config *k;
  const char *why;
  size_t n = 0;

  hv = toml_get (doc, "hypervisor");
  if (hv != NULL && hv->kind != TOML_TABLE)
    {
      report_fail (rep, "kata.hypervisor", "make it a [hypervisor.NAME] table",
                   "hypervisor is %s, not a table (line %u)", a_kind (hv), hv->line);
      return;
    }
  for (size_t i = 0; hv != NULL && i < hv->u.table.n; i++)
    {
      const struct toml_entry *e = &hv->u.table.items[i];

      if (e->value->kind != TOML_TABLE)
        {
          report_fail (rep, "kata.hypervisor", "make it a [hypervisor.NAME] table",
                       "hypervisor.%s is %s, not a table (line %u)", e->key, a_kind (e->value),
                       e->line);
          return;
        }
      sb_printf (&list, "%s[hypervisor.%s]", n ? ", " : "", e->key);
      one = e;
      n++;
    }
  if (n == 0)
    {
      report_fail (rep, "kata.hypervisor",
                   "use a Kata configuration with one [hypervisor.firecracker] table",
                   "the Kata configuration has no [hypervisor.*] table");
      return;
    }
  if (n > 1)
    {
      report_fail (rep, "kata.hypervisor",
                   "keep exactly one [hypervisor.*] table across configuration.toml and "
                   "config.d",
                   "the Kata configuration has %zu hypervisor tables (%s): Kata would use any "
                   "one of them",
                   n, sb_str (&list));
      return;
    }

  k = calloc (1, sizeof *k);
  if (k == NULL)
    {
      report_fail (rep, "kata.hypervisor", "free memory", "cannot allocate: %s", strerror (errno));
      return;
    }
  k->doc = steal_pointer (docp);
  k->hypervisor_name = one->key;
  k->hypervisor = one->value;
  k->runtime = rt;
  pf->from_kata.config = k;

  if (! hypervisor_allowed (pf->cfg, k->hypervisor_name))
    {
      for (size_t i = 0; i < pf->cfg->kata.n_hypervisors; i++)
        sb_printf (&allowed, "%s\"%s\"", i ? ", " : "", pf->cfg->kata.hypervisors[i]);
      report_fail (rep, "kata.hypervisor",
                   "use a Kata configuration for an allowed hypervisor, or add it to [kata] "
                   "hypervisors in the guard config",
                   "[hypervisor.%s]: %s is not allowed by [kata] hypervisors = [%s]",
                   k->hypervisor_name, k->hypervisor_name, sb_str (&allowed));
      return;
    }
  /* runtime-rs picks the table that [runtime] hypervisor_name names (the
     Go shim takes whichever table there is): it must be this one. */
  want = toml_get_path (k->doc, "runtime", "hypervisor_name", NULL);
  if (want != NULL
      && (want->kind != TOML_STRING || strcmp (want->u.string, k->hypervisor_name) != 0))
    {
      report_fail (rep, "kata.hypervisor",
                   "make [runtime] hypervisor_name name the one [hypervisor.*] table",
                   "[runtime] hypervisor_name (line %u) is %s%s%s, but the only hypervisor "
                   "table is [hypervisor.%s]",
                   want->line, want->kind == TOML_STRING ? "\"" : "",
                   want->kind == TOML_STRING ? want->u.string : a_kind (want),
                   want->kind == TOML_STRING ? "\"" : "", k->hypervisor_name);
      return;
    }
  if ((why = hypervisor_unrunnable (rt, k->hypervisor_name)) != NULL)
    {
      report_fail (rep, "kata.hypervisor",
                   "run this configuration with the runtime that has the hypervisor (set "
                   "[runtime] shim, or [kata] runtime), or use another hypervisor table",
                   "[hypervisor.%s] read by %s: %s", k->hypervisor_name, runtime_label (rt), why);
      return;
    }
  /* runtime-rs's Dragonball is the shim itself (path is ignored and
     shipped empty): the VMM is the file kata.runtime checked. */
  if (rt == KATA_RUNTIME_RS && strcmp (k->hypervisor_name, "dragonball") == 0)
    sb_printf (&passed, "the VMM is built into the runtime-rs shim (kata.runtime)");
  else if (! check_exec_key (pf, "kata.hypervisor", "path",
                             "Kata would run its built-in default, which kata-guard cannot check",
                             "set path to the hypervisor binary in the Kata configuration",
                             &passed))
    return;
  /* QEMU and Cloud Hypervisor share the container's files through
     virtiofsd, which Kata starts on the host as root. */
  if (! check_exec_key (pf, "kata.hypervisor", "virtio_fs_daemon", NULL, NULL, &passed))
    return;
  report_pass (rep, "kata.hypervisor",
               "[hypervisor.%s] is allowed by [kata] hypervisors; trusted executables: %s",
               k->hypervisor_name, sb_str (&passed));
}

/* kata.jailer: Firecracker runs inside its jailer (chroot, namespaces,
   seccomp, dropped privileges); without jailer_path Kata runs it bare. */
static void
check_jailer (struct preflight *pf)
{
  cleanup_kg_buf struct kg_buf passed = { 0 };

  if (pf->from_kata.config == NULL)
    {
      report_skip (pf->rep, "kata.jailer", "not run: no single [hypervisor.*] table");
      return;
    }
  if (strcmp (pf->from_kata.config->hypervisor_name, "firecracker") != 0)
    {
      report_skip (pf->rep, "kata.jailer",
                   "[hypervisor.%s] has no jailer (only Firecracker's jailer_path is checked)",
                   pf->from_kata.config->hypervisor_name);
      return;
    }
  if (check_exec_key (pf, "kata.jailer", "jailer_path", "Firecracker would run unjailed",
                      "set jailer_path to Firecracker's jailer (/opt/kata/bin/jailer in a "
                      "release install)",
                      &passed))
    report_pass (pf->rep, "kata.jailer", "[hypervisor.firecracker] trusted executable: %s",
                 sb_str (&passed));
}

struct debug_scan
{
  struct kg_buf console; /* where the debug console is switched on */
  struct kg_buf debug;   /* sections with enable_debug = true */
  struct kg_buf bad;     /* the first value that is not a boolean */
  struct kg_buf open;    /* settings that open the sandbox some other way */
  size_t n_console, n_debug, n_open;
};

static void
scan_flag (const char *section, const struct toml_entry *e, struct kg_buf *hits, size_t *n,
           struct kg_buf *bad)
{
  if (e->value->kind != TOML_BOOLEAN)
    {
      if (bad->len == 0)
        sb_printf (bad, "[%s] %s is %s, not a boolean (line %u)", section, e->key,
                   a_kind (e->value), e->line);
      return;
    }
  if (e->value->u.boolean)
    sb_printf (hits, "%s%s = true in [%s]", (*n)++ ? ", " : "", e->key, section);
}

/* debug_console_enabled = true only adds agent.debug_console to the guest
   kernel's command line: the same word in kernel_params does the same.
   The words are read as the guest reads them: Kata's Go shim splits
   kernel_params with strings.Fields (every Unicode space), the guest
   kernel with its isspace (which takes byte 0xa0, the tail of U+00A0, for
   one) and honours double quotes, the agent splits /proc/cmdline on ASCII
   white space ignoring quotes.  So only printable ASCII, space and tab are
   judged, on which all three agree; anything else refuses.  init= and
   rdinit= make the guest run another program than Kata's agent (and its
   policy) as PID 1. */
int
kata_kernel_params_judge (const char *params, char *why, size_t size)
{
  const char *p = params;

  for (const unsigned char *b = (const unsigned char *) p; *b; b++)
    if ((kg_is_ctl (*b) && *b != '\t') || *b >= 0x80 || *b == '"')
      {
        snprintf (why, size,
                  "%s at byte %zu (the guest kernel, the agent and Kata split such a "
                  "command line differently)",
                  *b == '"'    ? "a double quote"
                  : *b >= 0x80 ? "a byte past ASCII"
                               : "a control character",
                  (size_t) ((const char *) b - p));
        return KATA_PARAMS_UNCLEAR;
      }
  while (*p)
    {
      size_t len;

      p += strspn (p, " \t");
      len = strcspn (p, " \t");
      if (len >= 19 && strncmp (p, "agent.debug_console", 19) == 0)
        {
          snprintf (why, size, "%.*s", (int) len, p);
          return KATA_PARAMS_CONSOLE;
        }
      if ((len > 5 && strncmp (p, "init=", 5) == 0) || (len > 7 && strncmp (p, "rdinit=", 7) == 0))
        {
          snprintf (why, size, "%.*s (the guest would run that as its init, not Kata's agent)",
                    (int) len, p);
          return KATA_PARAMS_INIT;
        }
      p += len;
    }
  return KATA_PARAMS_OK;
}

static void
scan_kernel_params (const char *section, const struct toml_entry *e, struct debug_scan *s)
{
  char why[256];

  switch (kata_kernel_params_judge (e->value->u.string, why, sizeof why))
    {
    case KATA_PARAMS_OK:
      break;
    case KATA_PARAMS_CONSOLE:
      sb_printf (&s->console, "%s%s in [%s] kernel_params", s->n_console++ ? ", " : "", why,
                 section);
      break;
    default:
      sb_printf (&s->open, "%s[%s] kernel_params holds %s", s->n_open++ ? "; " : "", section, why);
      break;
    }
}

/* guest_hook_path makes the agent run OCI hooks found in the guest;
   disable_new_netns = true puts the VM's tap device in the host's network
   namespace (no network isolation from the host, no egress control). */
static void
scan_open (const char *section, const struct toml_entry *e, struct debug_scan *s)
{
  if (strncmp (section, "hypervisor.", 11) == 0 && strcmp (e->key, "guest_hook_path") == 0
      && (e->value->kind != TOML_STRING || e->value->u.string[0] != '\0'))
    sb_printf (&s->open,
               "%sguest_hook_path in [%s] (the agent would run hooks from the guest "
               "image as root)",
               s->n_open++ ? "; " : "", section);
  else if (strcmp (section, "runtime") == 0 && strcmp (e->key, "disable_new_netns") == 0
           && (e->value->kind != TOML_BOOLEAN || e->value->u.boolean))
    sb_printf (&s->open,
               "%sdisable_new_netns in [runtime] (the VM's network device would be "
               "in the host's network namespace)",
               s->n_open++ ? "; " : "");
}

/* Every table of the document, named as its header would be. */
static void
scan_debug (const struct toml_value *t, const char *name, struct debug_scan *s, unsigned depth)
{
  if (depth > TOML_MAX_DEPTH)
    return;
  for (size_t i = 0; i < t->u.table.n; i++)
    {
      const struct toml_entry *e = &t->u.table.items[i];
      const char *section = *name ? name : "top level";
      char sub[512];

      if (strcmp (e->key, "debug_console_enabled") == 0)
        scan_flag (section, e, &s->console, &s->n_console, &s->bad);
      else if (strcmp (e->key, "enable_debug") == 0)
        scan_flag (section, e, &s->debug, &s->n_debug, &s->bad);
      else if (strcmp (e->key, "kernel_params") == 0 && e->value->kind == TOML_STRING)
        scan_kernel_params (section, e, s);
      else
        scan_open (section, e, s);
      if (e->value->kind != TOML_TABLE && e->value->kind != TOML_ARRAY)
        continue;
      /* A table's name is needed only to go into it. */
      snprintf (sub, sizeof sub, "%s%s%s", name, *name ? "." : "", e->key);
      if (e->value->kind == TOML_TABLE)
        scan_debug (e->value, sub, s, depth + 1);
      else
        for (size_t j = 0; j < e->value->u.array.n; j++)
          if (e->value->u.array.items[j]->kind == TOML_TABLE)
            scan_debug (e->value->u.array.items[j], sub, s, depth + 1);
    }
}

/* kata.debug: the agent's debug console is a root shell in the guest for
   whoever reaches the host's vsock; enable_debug only makes logs verbose
   (and may write workload data to them), so it warns. */
static void
check_debug (struct preflight *pf, const struct toml_value *doc)
{
  struct debug_scan s = { 0 };

  scan_debug (doc, "", &s, 0);
  if (s.bad.len > 0)
    report_fail (pf->rep, "kata.debug", "set it to true or false",
                 "%s: Kata would refuse this configuration", sb_str (&s.bad));
  else if (s.n_open > 0)
    report_fail (pf->rep, "kata.debug",
                 "remove these settings from the Kata configuration (kernel_params in plain "
                 "ASCII words)",
                 "%s", sb_str (&s.open));
  else if (s.n_console > 0)
    report_fail (pf->rep, "kata.debug",
                 "set debug_console_enabled = false and remove agent.debug_console from "
                 "kernel_params in the Kata configuration",
                 "%s: the agent would offer a root shell in the guest%s%s", sb_str (&s.console),
                 s.n_debug ? "; also " : "", sb_str (&s.debug));
  else if (s.n_debug > 0)
    report_warn (pf->rep, "kata.debug", "set enable_debug = false outside of debugging",
                 "%s: verbose logs of the VM, agent and runtime", sb_str (&s.debug));
  else
    report_pass (pf->rep, "kata.debug",
                 "no debug console, and enable_debug is not set to true anywhere");
  kg_buf_release (&s.console);
  kg_buf_release (&s.debug);
  kg_buf_release (&s.bad);
  kg_buf_release (&s.open);
}

/* enable_annotations patterns are read in one grammar, on which POSIX
   extended regular expressions (glibc's regcomp, in the guard's "C"
   locale: it never calls setlocale), Go's regexp (RE2 syntax: the Go
   shim's regexpContains in src/runtime/pkg/oci/utils.go) and Rust's regex
   crate (runtime-rs's RegexSet in kata-types' is_annotation_enabled) agree
   on whether a pattern matches somewhere in an annotation name:

     pattern := "" | alt ('|' alt)*
     alt     := ['^'] piece+ ['$']
     piece   := atom ['*' | '+' | '?']
     atom    := [A-Za-z0-9_-] | '.' | class | '(' inner ('|' inner)* ')'
     inner   := piece+
     class   := '[' ['^'] item+ ']'
     item    := [A-Za-z0-9_.] | LO '-' HI   (LO <= HI, both digits, both
                                             lower or both upper case)

   Outside it they part: glibc reads [.x.], [=x=] and [:x:] inside a
   bracket expression where RE2 ends the class at its first ']' (and Rust
   nests classes), so "[[.].]|default_memory|[.].]]z" is three
   alternatives for Kata and one bracket for glibc; RE2 refuses "a**"
   that glibc accepts; glibc's matcher finds "(^.|a)+$" in "ab" where the
   other two do not (an anchor inside a repeated group: anchors are kept
   out of groups); {n,m}, escapes, (?flags), empty alternatives and
   non-ASCII bytes differ or are read per character against per byte.
   A pattern outside it is refused (kata.annotations fails, and a sizing
   annotation is taken as one Kata could apply): whatever either runtime
   makes of it, including nothing when it does not compile for Go
   (regexpContains skips it) or for Rust (RegexSet::new fails, and
   runtime-rs then enables no annotation at all).  The names matched are
   Kata's own, in PATTERN_NAME_CHARS (pattern_name_plain), where a
   character is a byte and no name holds a newline. */
#define PATTERN_LITERAL_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
#define PATTERN_CLASS_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_."
#define PATTERN_NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_."
/* Longer patterns and deeper groups than any list of names needs; glibc's
   regexec takes seconds on some 200-byte patterns of nested repeated
   groups, which these bounds keep out. */
#define PATTERN_MAX_LEN 128
#define PATTERN_MAX_DEPTH 3
/* Room for pattern_portable's reason. */
#define PATTERN_WHY 96

/* Where a pattern is in its grammar: at the start of an alternative,
   after its '^', after an atom, after a quantifier, after its '$'. */
enum pattern_state
{
  PAT_OPEN,
  PAT_BEGIN,
  PAT_ATOM,
  PAT_QUANT,
  PAT_END,
};

/* 0-9, a-z, A-Z: which run C is in, or 0. */
static int
pattern_run (char c)
{
  return c >= '0' && c <= '9' ? 1 : c >= 'a' && c <= 'z' ? 2 : c >= 'A' && c <= 'Z' ? 3 : 0;
}

/* The ']' that ends the plain class opening at C, or NULL when it is not
   one. */
static const char *
pattern_class_end (const char *c)
{
  const char *start;

  c += c[1] == '^' ? 2 : 1;
  for (start = c; *c != ']'; c++)
    {
      if (*c == '\0' || strchr (PATTERN_CLASS_CHARS, *c) == NULL)
        return NULL;
      if (c[1] == '-')
        {
          if (pattern_run (c[0]) == 0 || pattern_run (c[0]) != pattern_run (c[2]) || c[0] > c[2])
            return NULL;
          c += 2;
        }
    }
  return c > start ? c : NULL;
}

/* Whether PATTERN is in the grammar above; WHY says where not. */
static bool
pattern_portable (const char *p, char *why, size_t why_size)
{
  enum pattern_state st = PAT_OPEN;
  unsigned depth = 0;
  const char *c;

  if (strlen (p) > PATTERN_MAX_LEN)
    {
      snprintf (why, why_size, "it is longer than %d bytes", PATTERN_MAX_LEN);
      return false;
    }
  for (c = p; *c; c++)
    {
      bool piece = st == PAT_ATOM || st == PAT_QUANT;
      const char *end;

      if (*c == '[')
        {
          if (st == PAT_END || (end = pattern_class_end (c)) == NULL)
            break;
          c = end;
          st = PAT_ATOM;
        }
      else if (*c == '.' || strchr (PATTERN_LITERAL_CHARS, *c) != NULL)
        {
          if (st == PAT_END)
            break;
          st = PAT_ATOM;
        }
      else if (*c == '*' || *c == '+' || *c == '?')
        {
          if (st != PAT_ATOM)
            break;
          st = PAT_QUANT;
        }
      else if (*c == '|' && (piece || st == PAT_END))
        st = PAT_OPEN;
      else if (*c == '(' && st != PAT_END && depth < PATTERN_MAX_DEPTH)
        {
          depth++;
          st = PAT_OPEN;
        }
      else if (*c == ')' && depth > 0 && (piece || st == PAT_END))
        {
          depth--;
          st = PAT_ATOM;
        }
      else if (*c == '^' && st == PAT_OPEN && depth == 0)
        st = PAT_BEGIN;
      else if (*c == '$' && piece && depth == 0)
        st = PAT_END;
      else
        break;
    }
  if (*c == '\0' && depth == 0 && (c == p || st == PAT_ATOM || st == PAT_QUANT || st == PAT_END))
    return true;
  if (*c == '\0')
    snprintf (why, why_size, "it ends %s",
              depth > 0 ? "inside a group" : "where a name character is due");
  else if (*c == '[')
    snprintf (why, why_size,
              "the bracket expression at byte %zu is not a plain one ([a-z0-9_.] and ranges)",
              (size_t) (c - p));
  else if (isgraph ((unsigned char) *c))
    snprintf (why, why_size, "'%c' at byte %zu", *c, (size_t) (c - p));
  else
    snprintf (why, why_size, "byte 0x%02x at byte %zu", (unsigned char) *c, (size_t) (c - p));
  return false;
}

/* Whether NAME is one the grammar above was proved on. */
static bool
pattern_name_plain (const char *name)
{
  return *name != '\0' && name[strspn (name, PATTERN_NAME_CHARS)] == '\0';
}

/* An enable_annotations pattern, compiled.  One without a character
   special to extended regular expressions (nearly every one: annotation
   names) matches, unanchored, where it is a substring: strstr, without
   regcomp's work. */
struct pattern
{
  const char *text;
  bool literal;
  regex_t re;
};

/* 0, or regcomp's error code. */
static int
pattern_compile (struct pattern *p, const char *text)
{
  p->text = text;
  p->literal = strpbrk (text, ".[]()*+?{}|^$\\") == NULL;
  return p->literal ? 0 : regcomp (&p->re, text, REG_EXTENDED | REG_NOSUB);
}

static bool
pattern_match (const struct pattern *p, const char *name)
{
  return p->literal ? strstr (name, p->text) != NULL : regexec (&p->re, name, 0, NULL, 0) == 0;
}

static void
pattern_free (struct pattern *p)
{
  if (! p->literal)
    regfree (&p->re);
}

/* Describe in BAD the NAMES that the pattern P matches (a name outside
   the grammar's alphabet, which none of them is, as matched). */
static void
pattern_hits (const struct pattern *p, const char *const *names, size_t n, struct kg_buf *bad,
              size_t *hits, size_t *n_bad)
{
  const char *pat = p->text;

  for (size_t j = 0; j < n; j++)
    {
      if (pattern_name_plain (names[j]) && ! pattern_match (p, names[j]))
        continue;
      if ((*hits)++ == 0)
        sb_printf (bad, "%s\"%s\" enables ", (*n_bad)++ ? "; " : "", pat);
      else
        sb_printf (bad, ", ");
      sb_printf (bad, "%s", names[j]);
    }
}

/* Whether Kata applies the hypervisor annotation BARE (its name without
   io.katacontainers.config.hypervisor.) under K's enable_annotations, as
   check_kata_annotations reads the list: 1 yes, 0 no, -1 when the list
   cannot be read so (kata.annotations refuses such a list).  Every
   pattern is read, also after one that matches: runtime-rs compiles the
   list as one RegexSet, and one pattern that does not compile there
   leaves every annotation off. */
int
kata_annotation_enabled (const struct kata_config *k, const char *bare)
{
  const struct toml_value *list = toml_get (k->hypervisor, "enable_annotations");
  int hit = 0;

  if (list == NULL)
    return 0;
  if (list->kind != TOML_ARRAY || ! pattern_name_plain (bare))
    return -1;
  for (size_t i = 0; i < list->u.array.n; i++)
    {
      const struct toml_value *item = list->u.array.items[i];
      char why[PATTERN_WHY];
      struct pattern p;

      if (item->kind != TOML_STRING || ! pattern_portable (item->u.string, why, sizeof why)
          || pattern_compile (&p, item->u.string) != 0)
        return -1;
      hit = hit || pattern_match (&p, bare);
      pattern_free (&p);
    }
  return hit;
}

/* kata.annotations: enable_annotations holds regular expressions over the
   bare annotation name (io.katacontainers.config.hypervisor. removed).
   Kata matches them unanchored: Go's regexp.MatchString in
   checkAnnotationNameIsValid/regexpContains (src/runtime/pkg/oci/utils.go)
   and runtime-rs's RegexSet::is_match both report a match anywhere in the
   name, so "ker" enables "kernel".  regexec without anchors does the same. */
static void
check_kata_annotations (struct preflight *pf)
{
  struct report *rep = pf->rep;
  const struct kata_config *k = pf->from_kata.config;
  const struct toml_value *list;
  cleanup_kg_buf struct kg_buf bad = { 0 };
  size_t n_bad = 0;

  if (k == NULL)
    {
      report_skip (rep, "kata.annotations", "not run: no single [hypervisor.*] table");
      return;
    }
  list = toml_get (k->hypervisor, "enable_annotations");
  if (list == NULL)
    {
      report_pass (rep, "kata.annotations", "[hypervisor.%s] enables no annotations",
                   k->hypervisor_name);
      return;
    }
  if (list->kind != TOML_ARRAY)
    {
      report_fail (rep, "kata.annotations", "make enable_annotations an array of strings",
                   "[hypervisor.%s] enable_annotations is %s, not an array (line %u)",
                   k->hypervisor_name, a_kind (list), list->line);
      return;
    }
  for (size_t i = 0; i < list->u.array.n; i++)
    {
      const struct toml_value *item = list->u.array.items[i];
      const char *pat;
      char why[PATTERN_WHY];
      struct pattern p;
      int rc;
      size_t hits = 0;

      if (item->kind != TOML_STRING)
        {
          report_fail (rep, "kata.annotations", "make enable_annotations an array of strings",
                       "[hypervisor.%s] enable_annotations[%zu] is %s, not a string (line %u)",
                       k->hypervisor_name, i, a_kind (item), item->line);
          return;
        }
      pat = item->u.string;
      if (! pattern_portable (pat, why, sizeof why))
        {
          report_fail (rep, "kata.annotations",
                       "list annotation names, or write the pattern with letters, digits, _, "
                       "-, ., *, +, ?, |, ^, $, groups and plain [a-z0-9_.] classes",
                       "[hypervisor.%s] enable_annotations pattern \"%s\" cannot be evaluated "
                       "as Kata does: %s (outside the syntax that POSIX, Go's regexp and "
                       "Rust's regex read alike)",
                       k->hypervisor_name, pat, why);
          return;
        }
      rc = pattern_compile (&p, pat);
      if (rc != 0)
        {
          char msg[128];

          regerror (rc, &p.re, msg, sizeof msg);
          report_fail (rep, "kata.annotations",
                       "fix or remove the pattern (whatever Kata makes of it, kata-guard "
                       "cannot tell what it enables)",
                       "[hypervisor.%s] enable_annotations pattern \"%s\" does not compile: %s",
                       k->hypervisor_name, pat, msg);
          return;
        }
      pattern_hits (&p, sensitive_annotations, ARRAY_SIZE (sensitive_annotations), &bad, &hits,
                    &n_bad);
      if (k->runtime == KATA_RUNTIME_RS)
        pattern_hits (&p, sensitive_annotations_rs, ARRAY_SIZE (sensitive_annotations_rs), &bad,
                      &hits, &n_bad);
      pattern_free (&p);
    }
  if (n_bad > 0)
    {
      report_fail (rep, "kata.annotations",
                   "remove these patterns from enable_annotations; list only harmless "
                   "annotation names (e.g. \"enable_iommu\")",
                   "[hypervisor.%s] enable_annotations lets a workload choose what the host "
                   "runs or boots: %s",
                   k->hypervisor_name, sb_str (&bad));
      return;
    }
  report_pass (rep, "kata.annotations",
               "[hypervisor.%s] enable_annotations (%zu patterns) enables no executable, boot "
               "asset, host path or guest hook",
               k->hypervisor_name, list->u.array.n);
}

void
release_kata (struct preflight *pf)
{
  if (pf->from_kata.config != NULL)
    {
      toml_free (pf->from_kata.config->doc);
      free (pf->from_kata.config);
      pf->from_kata.config = NULL;
    }
  if (pf->from_kata.runtime_fd >= 0)
    close (pf->from_kata.runtime_fd);
  pf->from_kata.runtime_fd = -1;
}

void
check_kata (struct preflight *pf)
{
  cleanup_toml struct toml_value *doc = NULL;
  struct runtime_choice rc = { 0 };
  char last[PATH_MAX] = "", file[PATH_MAX] = "";

  check_runtime (pf, &rc);

  doc = load_config (pf, &rc, file, last);
  if (doc == NULL)
    {
      skip_later (pf->rep, "kata.config failed");
      return;
    }
  check_hypervisor (pf, &doc, rc.rt);
  if (pf->from_kata.config != NULL)
    {
      snprintf (pf->from_kata.config->last_file, sizeof pf->from_kata.config->last_file, "%s",
                last);
      snprintf (pf->from_kata.config->file, sizeof pf->from_kata.config->file, "%s", file);
    }
  check_jailer (pf);
  check_debug (pf, pf->from_kata.config ? pf->from_kata.config->doc : doc);
  check_kata_annotations (pf);
}
