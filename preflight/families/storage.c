/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * storage.*: the engine's snapshotter and containerd's devmapper thin
 * pool (storage.h; kata-guard(8), CHECKS, Storage).
 *
 * What is read, and what is not: Docker's daemon.json and containerd's
 * config.toml (with its imports), as those engines read them.  Never
 * dockerd's command line (--storage-driver, --feature) or environment
 * (DOCKER_DRIVER): /proc of a running dockerd says how that process
 * started, not how the next one will, and the confined checker cannot
 * read another process's memory anyway.  The man page says what that
 * means for a host that sets them there.
 */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>
#include <libdevmapper.h>

#include "array.h"
#include "buf.h"
#include "checks.h"
#include "cleanup.h"
#include "daemonjson.h"
#include "docker.h"
#include "error.h"
#include "fdio.h"
#include "jsonc.h"
#include "kata.h"
#include "lazylib.h"
#include "request.h"
#include "storage.h"
#include "text.h"
#include "toml.h"

/* ---- the thin pool's status line -------------------------------------- */

/* Read "USED/TOTAL" at *P: USED <= TOTAL, TOTAL > 0. */
static bool
parse_ratio (const char **p, uint64_t *used, uint64_t *total)
{
  if (! kg_parse_u64 (p, used) || **p != '/')
    return false;
  (*p)++;
  return kg_parse_u64 (p, total) && *total > 0 && *used <= *total;
}

/* Whether WORD[0..N) is one of the NULL-terminated WORDS: its index + 1, or 0. */
static int
word_index (const char *word, size_t n, const char *const *words)
{
  for (int i = 0; words[i] != NULL; i++)
    if (strlen (words[i]) == n && memcmp (words[i], word, n) == 0)
      return i + 1;
  return 0;
}

int
storage_thin_pool_parse (const char *params, struct thin_pool_status *out, kg_error_t *err)
{
  static const char *const modes[] = { "rw", "ro", "out_of_data_space", NULL };
  static const char *const discards[] = { "discard_passdown", "no_discard_passdown",
                                          "ignore_discard", NULL };
  static const char *const no_space[] = { "error_if_no_space", "queue_if_no_space", NULL };
  static const char *const checks[] = { "-", "needs_check", NULL };
  const char *p = params, *end;
  uint64_t u;

  memset (out, 0, sizeof *out);
  end = params + strlen (params);
  while (end > params && (end[-1] == ' ' || end[-1] == '\n'))
    end--;
  if ((size_t) (end - params) == 4 && memcmp (params, "Fail", 4) == 0)
    {
      out->failed = true;
      return 0;
    }
  if ((size_t) (end - params) == 5 && memcmp (params, "Error", 5) == 0)
    {
      out->error = true;
      return 0;
    }
  /* <transaction id> <used>/<total metadata> <used>/<total data> <held root> */
  if (! kg_parse_u64 (&p, &out->transaction_id) || *p++ != ' '
      || ! parse_ratio (&p, &out->used_meta, &out->total_meta) || *p++ != ' '
      || ! parse_ratio (&p, &out->used_data, &out->total_data) || *p++ != ' ')
    return kg_error (err, 0,
                     "\"%.80s\": not a thin-pool status (transaction id, metadata "
                     "and data blocks used/total)",
                     params);
  if (*p == '-')
    p++;
  else if (! kg_parse_u64 (&p, &u))
    return kg_error (err, 0, "\"%.80s\": the held metadata root is neither \"-\" nor a block",
                     params);
  out->fields = 4;
  /* Then, as kernels added them: the mode and the discard setting
     together, the no-space policy, needs_check, the metadata low
     watermark.  Each word must be the one its place allows. */
  while (p < end)
    {
      const char *w = ++p;
      size_t n;
      int i = 0;

      if (p[-1] != ' ')
        break;
      n = strcspn (w, " \n");
      if (w + n > end)
        n = (size_t) (end - w);
      switch (out->fields)
        {
        case 4:
          if ((i = word_index (w, n, modes)) != 0)
            out->mode = (enum thin_pool_mode) i;
          break;
        case 5:
          i = word_index (w, n, discards);
          break;
        case 6:
          i = word_index (w, n, no_space);
          break;
        case 7:
          if ((i = word_index (w, n, checks)) != 0)
            out->needs_check = i == 2;
          break;
        case 8:
          {
            const char *q = w;

            i = kg_parse_u64 (&q, &u) && q == w + n;
            break;
          }
        default:
          return kg_error (err, 0, "\"%.80s\": more fields than a thin-pool status has", params);
        }
      if (i == 0)
        return kg_error (err, 0,
                         "\"%.80s\": field %u, \"%.*s\", is not what a thin-pool status "
                         "holds there",
                         params, out->fields + 1, (int) (n > 40 ? 40 : n), w);
      out->fields++;
      p = w + n;
    }
  if (p != end)
    return kg_error (err, 0, "\"%.80s\": not a thin-pool status (stray characters)", params);
  /* The mode came with the discard setting (Linux 3.x): never alone, and
     out_of_data_space only with the no-space policy (3.14). */
  if (out->fields == 5 || (out->mode == THIN_POOL_OUT_OF_DATA_SPACE && out->fields < 7))
    return kg_error (err, 0, "\"%.80s\": %u fields: no kernel prints a thin-pool status so", params,
                     out->fields);
  return 0;
}

/* Whether USED/TOTAL is over MAX percent. */
static bool
over (uint64_t used, uint64_t total, int64_t max)
{
  return (unsigned __int128) used * 100 > (unsigned __int128) max * total;
}

/* USED/TOTAL in whole percent, rounded down. */
static unsigned
percent (uint64_t used, uint64_t total)
{
  return (unsigned) ((unsigned __int128) used * 100 / total);
}

enum verdict
storage_pool_judge (const struct thin_pool_status *s, int64_t data_max, int64_t meta_max, char *why,
                    size_t size)
{
  const unsigned dp = s->total_data ? percent (s->used_data, s->total_data) : 0;
  const unsigned mp = s->total_meta ? percent (s->used_meta, s->total_meta) : 0;

  if (s->failed)
    snprintf (why, size, "is in fail mode (Fail): every I/O to it errors");
  else if (s->error)
    snprintf (why, size, "cannot be read by the kernel (Error): its metadata is unreadable");
  else if (s->mode == THIN_POOL_OUT_OF_DATA_SPACE)
    snprintf (why, size, "is out of data space (%" PRIu64 "/%" PRIu64 " data blocks)", s->used_data,
              s->total_data);
  else if (s->mode == THIN_POOL_RO)
    snprintf (why, size,
              "is read-only (ro: its metadata ran full or failed; metadata "
              "%" PRIu64 "/%" PRIu64 ")",
              s->used_meta, s->total_meta);
  else if (s->needs_check)
    snprintf (why, size, "needs a check (needs_check): thin_check it before any use");
  else if (over (s->used_data, s->total_data, data_max))
    snprintf (why, size,
              "uses %u%% of its data blocks (%" PRIu64 "/%" PRIu64 "), over "
              "[storage] pool_data_max_percent = %" PRId64,
              dp, s->used_data, s->total_data, data_max);
  else if (over (s->used_meta, s->total_meta, meta_max))
    snprintf (why, size,
              "uses %u%% of its metadata blocks (%" PRIu64 "/%" PRIu64 "), over "
              "[storage] pool_metadata_max_percent = %" PRId64,
              mp, s->used_meta, s->total_meta, meta_max);
  else
    {
      snprintf (why, size,
                "is %s, data %u%% (%" PRIu64 "/%" PRIu64 "), metadata %u%% "
                "(%" PRIu64 "/%" PRIu64 ")",
                s->mode == THIN_POOL_RW ? "read-write" : "healthy", dp, s->used_data, s->total_data,
                mp, s->used_meta, s->total_meta);
      return VERDICT_PASS;
    }
  return VERDICT_FAIL;
}

/* ---- libdevmapper, loaded on demand ------------------------------------ */

static struct lazylib libdm = { .soname = KG_DEVMAPPER_SONAME, .path = KG_DEVMAPPER_PATH };
static struct dm_task *(*dm_create) (int);
static void (*dm_destroy) (struct dm_task *);
static int (*dm_set_name) (struct dm_task *, const char *);
static int (*dm_run) (struct dm_task *);
static int (*dm_errno) (struct dm_task *);
static int (*dm_info) (struct dm_task *, struct dm_info *);
static void *(*dm_next) (struct dm_task *, void *, uint64_t *, uint64_t *, char **, char **);
static void (*dm_log_fn_init) (dm_log_with_errno_fn);

/* libdevmapper's messages go to stderr by default, which is what
   containerd reads as a shim's address: every one is dropped (the
   outcome is the task's). */
static void
dm_quiet (int level, const char *file, int line, int e, const char *f, ...)
{
  (void) level, (void) file, (void) line, (void) e, (void) f;
}

static void
dm_task_freep (struct dm_task **t)
{
  if (*t != NULL)
    dm_destroy (*t);
}

/* Whether the device-mapper driver is in this kernel: its control node
   exists and /proc/misc lists it.  Without the node, libdevmapper would
   try to create it (mknod) where this runs privileged. */
static bool
dm_present (const char **why)
{
  cleanup_error kg_error_t e = NULL;
  cleanup_free char *misc = NULL;
  struct stat st;
  size_t len;

  if (stat ("/dev/mapper/control", &st) < 0 || ! S_ISCHR (st.st_mode))
    {
      *why = "no /dev/mapper/control";
      return false;
    }
  if (kg_read_file_bounded ("/proc/misc", 0, 65536, &misc, &len, &e) < 0
      || strstr (misc, " device-mapper\n") == NULL)
    {
      *why = "the kernel's device-mapper driver is not loaded (/proc/misc does not list it)";
      return false;
    }
  return true;
}

/* Give the error just set the errno E without its text in the message
   (the message says it already); -1. */
static int
tag_errno (kg_error_t *err, int e)
{
  if (err != NULL && *err != NULL)
    (*err)->errnum = e;
  return -1;
}

int
storage_pool_status_read (const char *pool, char *buf, size_t size, kg_error_t *err)
{
  static const struct lazysym syms[] = {
    { "dm_task_create", (void **) &dm_create },
    { "dm_task_destroy", (void **) &dm_destroy },
    { "dm_task_set_name", (void **) &dm_set_name },
    { "dm_task_run", (void **) &dm_run },
    { "dm_task_get_errno", (void **) &dm_errno },
    { "dm_task_get_info", (void **) &dm_info },
    { "dm_get_next_target", (void **) &dm_next },
    { "dm_log_with_errno_init", (void **) &dm_log_fn_init },
  };
  __attribute__ ((cleanup (dm_task_freep))) struct dm_task *t = NULL;
  cleanup_error kg_error_t lerr = NULL;
  struct dm_info info;
  uint64_t start, length;
  char *type = NULL, *params = NULL;
  const char *why;

  if (! dm_present (&why))
    {
      kg_error (err, 0, "device-mapper is absent here: %s", why);
      return tag_errno (err, ENODEV);
    }
  if (lazylib_load (&libdm, syms, ARRAY_SIZE (syms), &lerr) < 0)
    {
      kg_error (err, 0, "%s", lerr->msg);
      return tag_errno (err, ELIBACC);
    }
  dm_log_fn_init (dm_quiet);
  t = dm_create (DM_DEVICE_STATUS);
  if (t == NULL || ! dm_set_name (t, pool))
    return kg_error (err, ENOMEM, "libdevmapper: cannot make a status task for %s", pool);
  if (! dm_run (t))
    {
      int e = dm_errno (t);

      return kg_error (err, e ? e : EIO, "device-mapper's status of %s failed", pool);
    }
  if (! dm_info (t, &info) || ! info.exists)
    {
      kg_error (err, 0, "device-mapper has no device %s", pool);
      return tag_errno (err, ENXIO);
    }
  if (dm_next (t, NULL, &start, &length, &type, &params) != NULL || type == NULL
      || strcmp (type, "thin-pool") != 0 || params == NULL)
    {
      kg_error (err, 0, "%s is not a thin pool (its table: %s)", pool, type ? type : "none");
      return tag_errno (err, EMEDIUMTYPE);
    }
  if ((size_t) snprintf (buf, size, "%s", params) >= size)
    return kg_error (err, EOVERFLOW, "the status of %s is longer than %zu bytes", pool, size);
  return 0;
}

/* ---- Docker ------------------------------------------------------------ */

bool
storage_name_is_block (const char *name, bool snapshotter)
{
  /* containerd's devmapper and blockfile snapshotters; Docker's
     devicemapper graphdriver (removed in Docker 25). */
  if (snapshotter)
    return strcmp (name, "devmapper") == 0 || strcmp (name, "blockfile") == 0;
  return strcmp (name, "devicemapper") == 0;
}

/* Copy S into a STORAGE_NAME_MAX buffer; false when it does not fit. */
static bool
set_name (char *dst, const char *s)
{
  return (size_t) snprintf (dst, STORAGE_NAME_MAX, "%s", s) < STORAGE_NAME_MAX;
}

int
storage_docker_read (const char *path, struct docker_storage *out, kg_error_t *err)
{
  cleanup_json struct json_object *root = NULL;
  struct json_object *features, *v;

  memset (out, 0, sizeof *out);
  root = daemonjson_load (path, &out->exists, err);
  if (root == NULL)
    return -1;
  /* dockerd (daemon/config) refuses a features value that is not a
     boolean, and a storage-driver that is not a string. */
  if (json_object_object_get_ex (root, "features", &features))
    {
      if (! json_object_is_type (features, json_type_object))
        return kg_error (err, 0, "%s: \"features\" is %s, not an object", path,
                         json_kind_of (features, true));
      if (json_object_object_get_ex (features, "containerd-snapshotter", &v))
        {
          if (! json_object_is_type (v, json_type_boolean))
            return kg_error (err, 0,
                             "%s: \"features\": \"containerd-snapshotter\" is %s, not a "
                             "boolean",
                             path, json_kind_of (v, true));
          out->containerd_store = json_object_get_boolean (v);
        }
    }
  if (json_object_object_get_ex (root, "storage-driver", &v))
    {
      if (! json_object_is_type (v, json_type_string))
        return kg_error (err, 0, "%s: \"storage-driver\" is %s, not a string", path,
                         json_kind_of (v, true));
      out->driver_set = *json_object_get_string (v) != '\0';
      if (out->driver_set && ! set_name (out->driver, json_object_get_string (v)))
        return kg_error (err, 0, "%s: \"storage-driver\" is too long", path);
    }
  /* Unset: containerd's default snapshotter, or the graphdriver Docker
     picks first on ext4 and xfs. */
  if (! out->driver_set)
    set_name (out->driver, out->containerd_store ? "overlayfs" : "overlay2");
  return 0;
}

/* ---- containerd -------------------------------------------------------- */

void
containerd_files_release (struct containerd_files *f)
{
  for (size_t i = 0; i < f->n; i++)
    {
      toml_free (f->doc[i]);
      free (f->path[i]);
    }
  f->n = 0;
}

/* The config's version as containerd reads it: none written is 1. */
static int
doc_version (const char *path, const struct toml_value *doc, int64_t *v, kg_error_t *err)
{
  const struct toml_value *ver = toml_get (doc, "version");

  *v = 0;
  if (ver == NULL)
    return 0;
  if (ver->kind != TOML_INTEGER || ver->u.integer < 1 || ver->u.integer > 3)
    return kg_error (err, 0, "%s:%u: version: containerd reads versions 1 to 3", path, ver->line);
  *v = ver->u.integer;
  return 0;
}

/* Append the files IMPORTS of PARENT names (relative to PARENT's
   directory; a pattern with '*' globbed in name order, as Go's
   filepath.Glob) to F's queue Q (paths owned by Q). */
static int
queue_imports (const char *parent, const struct toml_value *imports, char **q, size_t *nq,
               kg_error_t *err)
{
  if (imports == NULL)
    return 0;
  if (imports->kind != TOML_ARRAY)
    return kg_error (err, 0, "%s:%u: imports: expected an array of paths", parent, imports->line);
  for (size_t i = 0; i < imports->u.array.n; i++)
    {
      const struct toml_value *it = imports->u.array.items[i];
      cleanup_free char *full = NULL;
      const char *slash = strrchr (parent, '/');
      glob_t g;

      if (it->kind != TOML_STRING || it->u.string[0] == '\0')
        return kg_error (err, 0, "%s:%u: imports: item %zu is not a path", parent, it->line, i + 1);
      if (it->u.string[0] == '/')
        full = strdup (it->u.string);
      else if (asprintf (&full, "%.*s/%s", slash ? (int) (slash - parent) : 1, slash ? parent : ".",
                         it->u.string)
               < 0)
        full = NULL;
      if (full == NULL)
        return kg_error (err, ENOMEM, "cannot allocate");
      if (strchr (full, '*') == NULL)
        {
          if (*nq >= CONTAINERD_MAX_FILES)
            return kg_error (err, 0, "%s: more than %d imported files", parent,
                             CONTAINERD_MAX_FILES);
          q[(*nq)++] = steal_pointer (&full);
          continue;
        }
      memset (&g, 0, sizeof g);
      if (glob (full, GLOB_PERIOD, NULL, &g) == 0)
        for (size_t k = 0; k < g.gl_pathc; k++)
          {
            if (*nq >= CONTAINERD_MAX_FILES || (q[*nq] = strdup (g.gl_pathv[k])) == NULL)
              {
                globfree (&g);
                return kg_error (err, 0, "%s: more than %d imported files", parent,
                                 CONTAINERD_MAX_FILES);
              }
            (*nq)++;
          }
      globfree (&g);
    }
  return 0;
}

int
containerd_files_load (const char *path, struct containerd_files *f, kg_error_t *err)
{
  char *q[CONTAINERD_MAX_FILES] = { NULL };
  size_t nq = 0, head = 0;
  int r = 0;

  if ((q[nq++] = strdup (path)) == NULL)
    return kg_error (err, ENOMEM, "cannot allocate");
  for (; r == 0 && head < nq; head++)
    {
      bool seen = false;
      struct stat st;

      for (size_t i = 0; i < f->n; i++)
        seen |= strcmp (f->path[i], q[head]) == 0;
      if (seen)
        continue;
      if (head == 0 && stat (path, &st) < 0 && errno == ENOENT)
        break;
      if ((f->doc[f->n] = toml_parse_file (q[head], err)) == NULL)
        {
          r = -1;
          break;
        }
      f->path[f->n] = steal_pointer (&q[head]);
      f->n++;
      r = queue_imports (f->path[f->n - 1], toml_get (f->doc[f->n - 1], "imports"), q, &nq, err);
    }
  for (size_t i = 0; i < nq; i++)
    free (q[i]);
  return r;
}

/* The table plugins.KEY of the last of DOCS (N of them) that has it:
   containerd 1.x replaces a plugin's table whole with a later file's. */
static const struct toml_value *
plugin (struct toml_value *const *docs, size_t n, const char *key)
{
  for (size_t i = n; i-- > 0;)
    {
      const struct toml_value *t = toml_get_path (docs[i], "plugins", key, NULL);

      if (t != NULL)
        return t;
    }
  return NULL;
}

/* A snapshotter key of TABLE (a string; absent: DEF) into DST. */
static int
get_snapshotter (const char *file, const struct toml_value *table, const char *def, char *dst,
                 bool *set, kg_error_t *err)
{
  const struct toml_value *v = toml_get (table, "snapshotter");

  *set = false;
  if (v != NULL && v->kind != TOML_STRING)
    return kg_error (err, 0, "%s:%u: snapshotter: expected a string", file, v->line);
  *set = v != NULL && v->u.string[0] != '\0';
  if (! set_name (dst, *set ? v->u.string : def))
    return kg_error (err, 0, "%s:%u: snapshotter: too long", file, v->line);
  return 0;
}

/* What DOCS (N, merged either way) say for VERSION into OUT. */
static int
extract (const char *file, struct toml_value *const *docs, size_t n, int64_t version,
         struct containerd_storage *out, kg_error_t *err)
{
  const char *cri_key = version == 1 ? "cri" : "io.containerd.grpc.v1.cri";
  const char *dm_key = version == 1 ? "devmapper" : "io.containerd.snapshotter.v1.devmapper";
  const struct toml_value *global, *runtimes, *dm, *pool;
  bool set;

  if (version == 3)
    {
      global = plugin (docs, n, "io.containerd.cri.v1.images");
      runtimes = toml_get_path (plugin (docs, n, "io.containerd.cri.v1.runtime"), "containerd",
                                "runtimes", NULL);
    }
  else
    {
      global = toml_get (plugin (docs, n, cri_key), "containerd");
      runtimes = toml_get (global, "runtimes");
    }
  if (get_snapshotter (file, global, "overlayfs", out->snapshotter, &set, err) < 0)
    return -1;
  for (size_t i = 0; runtimes != NULL && runtimes->kind == TOML_TABLE && i < runtimes->u.table.n;
       i++)
    {
      const struct toml_entry *e = &runtimes->u.table.items[i];
      const struct toml_value *rt = toml_get (e->value, "runtime_type");
      struct containerd_handler *h;

      if (rt == NULL || rt->kind != TOML_STRING || ! runtime_type_is_guard (rt->u.string))
        continue;
      if (out->n_handlers == STORAGE_MAX_HANDLERS)
        return kg_error (err, 0, "%s: more than %d runtime handlers run kata-guard", file,
                         STORAGE_MAX_HANDLERS);
      h = &out->handlers[out->n_handlers++];
      if (! set_name (h->name, e->key))
        return kg_error (err, 0, "%s:%u: a runtime handler's name is too long", file, e->line);
      if (get_snapshotter (file, e->value, out->snapshotter, h->snapshotter, &h->own, err) < 0)
        return -1;
    }
  dm = plugin (docs, n, dm_key);
  pool = toml_get (dm, "pool_name");
  if (pool != NULL && pool->kind != TOML_STRING)
    return kg_error (err, 0, "%s:%u: pool_name: expected a string", file, pool->line);
  out->pool_set = pool != NULL && pool->u.string[0] != '\0';
  if (out->pool_set
      && (size_t) snprintf (out->pool_name, sizeof out->pool_name, "%s", pool->u.string)
             >= sizeof out->pool_name)
    return kg_error (err, 0, "%s:%u: pool_name: too long", file, pool->line);
  return 0;
}

/* Whether A and B judge the same: the handlers' snapshotters (or, with
   none, the CRI plugin's) and the pool. */
static bool
same_answer (const struct containerd_storage *a, const struct containerd_storage *b)
{
  if (a->n_handlers != b->n_handlers || a->pool_set != b->pool_set
      || strcmp (a->pool_name, b->pool_name) != 0)
    return false;
  if (a->n_handlers == 0)
    return strcmp (a->snapshotter, b->snapshotter) == 0;
  for (size_t i = 0; i < a->n_handlers; i++)
    if (strcmp (a->handlers[i].name, b->handlers[i].name) != 0
        || strcmp (a->handlers[i].snapshotter, b->handlers[i].snapshotter) != 0)
      return false;
  return true;
}

int
storage_containerd_read (const char *path, struct containerd_storage *out, kg_error_t *err)
{
  __attribute__ ((cleanup (containerd_files_release))) struct containerd_files f = { .n = 0 };
  cleanup_toml struct toml_value *merged = NULL;
  struct containerd_storage by_2x;
  int64_t v;

  memset (out, 0, sizeof *out);
  if (containerd_files_load (path, &f, err) < 0)
    return -1;
  out->n_files = f.n;
  if (f.n == 0)
    {
      /* No file: containerd's defaults. */
      out->version = 2;
      set_name (out->snapshotter, "overlayfs");
      return 0;
    }
  out->exists = true;
  if (doc_version (f.path[0], f.doc[0], &out->version, err) < 0)
    return -1;
  if (out->version == 0)
    out->version = 1;
  /* An import without a version is read as the main file's (1.x keeps
     the main file's, 2.x migrates it to it); one with another version
     is not guessed at. */
  for (size_t i = 1; i < f.n; i++)
    {
      if (doc_version (f.path[i], f.doc[i], &v, err) < 0)
        return -1;
      if (v != 0 && v != out->version)
        return kg_error (err, 0,
                         "%s: version %" PRId64 " imports %s of version %" PRId64
                         ": the guard does not read a mix",
                         f.path[0], out->version, f.path[i], v);
    }
  /* One file: nothing to merge, and both readings are the same. */
  if (f.n == 1)
    return extract (path, f.doc, 1, out->version, out, err);
  /* containerd 2.x merges the files key by key. */
  if ((merged = toml_parse_file (f.path[0], err)) == NULL)
    return -1;
  for (size_t i = 1; i < f.n; i++)
    {
      struct toml_value *again = toml_parse_file (f.path[i], err);

      if (again == NULL || toml_merge (merged, again, err) < 0)
        return -1;
    }
  memset (&by_2x, 0, sizeof by_2x);
  if (extract (path, &merged, 1, out->version, &by_2x, err) < 0)
    return -1;
  by_2x.exists = true;
  by_2x.version = out->version;
  by_2x.n_files = f.n;
  /* Version 1 and 2 files are read by 1.x too, which replaces a plugin's
     table whole with a later file's: both readings must agree. */
  if (out->version < 3)
    {
      if (extract (path, f.doc, f.n, out->version, out, err) < 0)
        return -1;
      out->readings_differ = ! same_answer (out, &by_2x);
      if (out->readings_differ)
        return kg_error (err, 0,
                         "%s and its imports give the snapshotter or pool differently "
                         "to containerd 1.x (a plugin's table replaced whole by a later file) "
                         "and 2.x (merged key by key)",
                         path);
    }
  *out = by_2x;
  return 0;
}

int
storage_pool_name (const struct guard_config *cfg, char *name, size_t size, kg_error_t *err)
{
  struct containerd_storage c;

  *name = '\0';
  if (storage_containerd_read (cfg->storage.containerd_config, &c, err) < 0)
    return -1;
  if ((size_t) snprintf (name, size, "%s", c.pool_name) >= size)
    return kg_error (err, 0, "pool_name is too long");
  return 0;
}

/* ---- the checks -------------------------------------------------------- */

/* What the engines' configurations say, gathered for both ids. */
struct storage_run
{
  const struct kata_config *kata;
  bool needs_block;   /* the hypervisor has no shared file system */
  enum verdict worst; /* of storage.snapshotter's findings */
  size_t n_findings;
  struct kg_buf reason, remedy;
  struct kg_buf names; /* the snapshotters judged, for storage.pool */
  bool devmapper;      /* one of them is containerd's devmapper */
  bool read_error;     /* a configuration could not be read */
};

static void
storage_run_release (struct storage_run *r)
{
  kg_buf_release (&r->reason);
  kg_buf_release (&r->remedy);
  kg_buf_release (&r->names);
}

/* One finding of storage.snapshotter. */
static void add_finding (struct storage_run *r, enum verdict v, const char *remedy, const char *fmt,
                         ...) __attribute__ ((format (printf, 4, 5)));
static void
add_finding (struct storage_run *r, enum verdict v, const char *remedy, const char *fmt, ...)
{
  cleanup_free char *text = NULL;
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vasprintf (&text, fmt, ap);
  va_end (ap);
  if (r->n_findings == 0 || v > r->worst)
    r->worst = v;
  r->n_findings++;
  sb_printf (&r->reason, "%s%s", sb_str (&r->reason)[0] ? "; " : "", n < 0 ? "(no memory)" : text);
  if (remedy != NULL)
    sb_printf (&r->remedy, "%s%s", sb_str (&r->remedy)[0] ? "; " : "", remedy);
}

/* A store judged: NAME, a containerd snapshotter when SNAPSHOTTER. */
static void
add_name (struct storage_run *r, const char *name, bool snapshotter)
{
  /* Docker's devicemapper graph driver is no containerd snapshotter:
     said so, beside the devmapper one storage.pool reads. */
  sb_printf (&r->names, "%s%s%s", sb_str (&r->names)[0] ? ", " : "",
             snapshotter          ? "snapshotter "
             : strchr (name, ' ') ? ""
                                  : "graph driver ",
             name);
  if (snapshotter && strcmp (name, "devmapper") == 0)
    r->devmapper = true;
}

/* The verdict of a non-block store: fail where the hypervisor needs a
   block device, else a warning. */
static enum verdict
non_block (const struct storage_run *r)
{
  return r->needs_block ? VERDICT_FAIL : VERDICT_WARN;
}

/* What a non-block finding says of the hypervisor. */
static const char *
consequence (const struct storage_run *r)
{
  return r->needs_block ? "Kata cannot give it to the VM, which has no shared file system"
                        : "Kata shares it with the VM over its shared file system, not as a "
                          "block device";
}

static void
judge_docker (const struct preflight *pf, struct storage_run *r, bool only_if_present)
{
  const char *path = pf->cfg->docker.daemon_json;
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *remedy = NULL;
  struct docker_storage d;

  if (storage_docker_read (path, &d, &err) < 0)
    {
      r->read_error = true;
      add_finding (r, non_block (r), "fix it (dockerd cannot read it either)",
                   "Docker: cannot read its storage settings: %s", err->msg);
      return;
    }
  if (! d.exists && only_if_present)
    return;
  if (d.exists)
    report_add_file (pf->rep, path);
  add_name (r, d.driver, d.containerd_store);
  if (storage_name_is_block (d.driver, d.containerd_store))
    {
      add_finding (r, VERDICT_PASS, NULL, "Docker (%s): %s %s \"%s\" gives Kata a block device",
                   path, d.containerd_store ? "containerd image store, snapshotter" : "graphdriver",
                   d.driver_set ? "storage-driver" : "default", d.driver);
      return;
    }
  /* Which Docker reads the file is not known at a start: each form is
     named with the versions that take it (20.10 has no containerd
     snapshotter and refuses "devmapper" as a graphdriver; 25 removed
     the devicemapper graphdriver). */
  if (asprintf (&remedy,
                "%s in %s, with containerd's devmapper plugin configured (Docker 23 and "
                "later)%s, then restart Docker%s",
                d.containerd_store ? "set \"storage-driver\": \"devmapper\""
                                   : "set \"features\": {\"containerd-snapshotter\": true} and "
                                     "\"storage-driver\": \"devmapper\"",
                path,
                d.containerd_store ? ""
                                   : ", or \"storage-driver\": \"devicemapper\" (Docker 20.10 to "
                                     "24: its own block graphdriver, which 20.10 needs)",
                r->needs_block ? "" : "; or leave it, the hypervisor shares file systems")
      < 0)
    remedy = NULL;
  add_finding (r, non_block (r), remedy ? remedy : "use a block snapshotter",
               "Docker (%s%s): %s \"%s\"%s is not a block device: %s", path,
               d.exists ? "" : ", absent: Docker's defaults",
               d.containerd_store ? "the containerd image store's snapshotter" : "the graphdriver",
               d.driver, d.driver_set ? "" : " (storage-driver not set)", consequence (r));
}

/* The remedy for containerd's config of VERSION at PATH.  Version 3 is
   read by containerd 2.x only, which honours a handler's own snapshotter;
   a version 2 config may be read by 1.6, which ignores it: there the
   plugin's key is the one to set. */
static char *
containerd_remedy (const struct storage_run *r, const char *path, int64_t version)
{
  const char *tail = r->needs_block ? "" : "; or leave it, the hypervisor shares file systems";
  char *s = NULL;
  int n;

  if (version == 3)
    n = asprintf (&s,
                  "set snapshotter = \"devmapper\" under [plugins.\"io.containerd.cri.v1.images\"] "
                  "of %s, or under the kata-guard handler's [plugins.\"io.containerd.cri.v1."
                  "runtime\".containerd.runtimes.NAME], configure "
                  "[plugins.\"io.containerd.snapshotter.v1.devmapper\"] pool_name, then restart "
                  "containerd%s",
                  path, tail);
  else
    n = asprintf (&s,
                  "set snapshotter = \"devmapper\" under %s of %s (containerd 1.6 reads only "
                  "this one: a kata-guard handler's own snapshotter, which 1.7 reads, must be a "
                  "block one too or absent), configure [plugins.\"io.containerd.snapshotter.v1."
                  "devmapper\"] pool_name, then restart containerd%s",
                  version == 2 ? "[plugins.\"io.containerd.grpc.v1.cri\".containerd]"
                               : "[plugins.cri.containerd]",
                  path, tail);
  return n < 0 ? NULL : s;
}

static void
judge_containerd (const struct preflight *pf, struct storage_run *r, bool only_if_present,
                  struct containerd_storage *c)
{
  const char *path = pf->cfg->storage.containerd_config;
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *remedy = NULL;

  if (storage_containerd_read (path, c, &err) < 0)
    {
      r->read_error = true;
      add_finding (r, non_block (r),
                   c->readings_differ
                       ? "containerd reads it, but 1.x takes the CRI plugin's whole table from "
                         "the last file that has one and 2.x merges key by key: keep the CRI "
                         "settings in one file (kata-guard install --containerd writes no "
                         "drop-in that splits them)"
                       : "fix it (containerd cannot read it either)",
                   "containerd: cannot read its snapshotter: %s", err->msg);
      return;
    }
  if (! c->exists && only_if_present)
    return;
  if (c->exists)
    report_add_file (pf->rep, path);
  remedy = containerd_remedy (r, path, c->version);
  if (c->n_handlers == 0)
    {
      add_name (r, c->snapshotter, true);
      if (storage_name_is_block (c->snapshotter, true))
        add_finding (r, VERDICT_PASS, NULL,
                     "containerd (%s): no handler runs kata-guard; the CRI "
                     "plugin's snapshotter \"%s\" gives Kata a block device",
                     path, c->snapshotter);
      else
        add_finding (r, non_block (r), remedy ? remedy : "use a block snapshotter",
                     "containerd (%s%s): no handler runs kata-guard; the CRI plugin's snapshotter "
                     "\"%s\" is not a block device: %s",
                     path, c->exists ? "" : ", absent: containerd's defaults", c->snapshotter,
                     consequence (r));
      return;
    }
  for (size_t i = 0; i < c->n_handlers; i++)
    {
      const struct containerd_handler *h = &c->handlers[i];

      add_name (r, h->snapshotter, true);
      /* A version 2 config is read by 1.6 too, which has no handler
         snapshotter and takes the plugin's: both must give a block
         device (the guard cannot tell 1.6 from 1.7 at a start). */
      if (c->version < 3 && h->own && storage_name_is_block (h->snapshotter, true)
          && ! storage_name_is_block (c->snapshotter, true))
        add_finding (r, non_block (r), remedy ? remedy : "use a block snapshotter",
                     "containerd (%s): handler %s's own snapshotter \"%s\" is read by "
                     "containerd 1.7 and later only; 1.6 ignores it and uses the CRI plugin's "
                     "\"%s\", which is not a block device: %s",
                     path, h->name, h->snapshotter, c->snapshotter, consequence (r));
      else if (storage_name_is_block (h->snapshotter, true))
        add_finding (r, VERDICT_PASS, NULL,
                     "containerd (%s): handler %s's snapshotter \"%s\"%s "
                     "gives Kata a block device",
                     path, h->name, h->snapshotter, h->own ? "" : " (the CRI plugin's)");
      else
        add_finding (r, non_block (r), remedy ? remedy : "use a block snapshotter",
                     "containerd (%s): handler %s's snapshotter \"%s\"%s is not a block device: %s",
                     path, h->name, h->snapshotter, h->own ? "" : " (the CRI plugin's)",
                     consequence (r));
    }
}

/* storage.pool, once storage.snapshotter found containerd's devmapper. */
static void
check_pool (struct preflight *pf, const struct storage_run *r, const struct containerd_storage *c,
            bool have_c)
{
  const char *path = pf->cfg->storage.containerd_config;
  cleanup_error kg_error_t err = NULL;
  struct thin_pool_status s;
  char params[1024], why[256];
  enum verdict v;
  int rc;

  if (! r->devmapper)
    {
      if (r->n_findings == 0 || sb_str (&r->names)[0] == '\0')
        report_skip (pf->rep, "storage.pool", "not run: storage.snapshotter read no snapshotter");
      else
        report_skip (pf->rep, "storage.pool",
                     "the engine stores rootfs with %s: no containerd devmapper snapshotter, "
                     "whose thin pool this reads",
                     sb_str (&r->names));
      return;
    }
  if (! have_c)
    {
      if (storage_containerd_read (path, (struct containerd_storage *) c, &err) < 0)
        {
          report_fail (pf->rep, "storage.pool", "fix it (containerd cannot read it either)",
                       "the devmapper snapshotter's pool is not known: %s", err->msg);
          return;
        }
      report_add_file (pf->rep, path);
    }
  if (! c->pool_set)
    {
      report_fail (pf->rep, "storage.pool",
                   "set pool_name under [plugins.\"io.containerd.snapshotter.v1.devmapper\"] to "
                   "the thin pool (e.g. from lvcreate --thinpool), then restart containerd",
                   "the engine uses containerd's devmapper snapshotter, but %s%s names no pool "
                   "(pool_name %s): containerd's devmapper plugin does not load",
                   path, c->exists ? "" : " (absent)", c->exists ? "missing or empty" : "not set");
      return;
    }
  if (pf->req->pool_status != NULL)
    rc = pf->req->pool_status (params, sizeof params, &err);
  else
    rc = storage_pool_status_read (c->pool_name, params, sizeof params, &err);
  if (rc < 0)
    {
      if (err->errnum == ENODEV || err->errnum == ELIBACC)
        report_skip (pf->rep, "storage.pool", "pool %s not read: %s", c->pool_name, err->msg);
      else if (err->errnum == EACCES || err->errnum == EPERM)
        report_skip (pf->rep, "storage.pool",
                     "pool %s not read: %s (device-mapper answers "
                     "root only)",
                     c->pool_name, err->msg);
      else
        report_fail (pf->rep, "storage.pool",
                     "create the pool, or point pool_name at the one that exists (dmsetup ls)",
                     "pool %s of %s: %s", c->pool_name, path, err->msg);
      return;
    }
  if (storage_thin_pool_parse (params, &s, &err) < 0)
    {
      report_fail (pf->rep, "storage.pool", "report this status line to kata-guard's developers",
                   "pool %s: the kernel's status is not understood: %s", c->pool_name, err->msg);
      return;
    }
  v = storage_pool_judge (&s, pf->cfg->storage.pool_data_max_percent,
                          pf->cfg->storage.pool_metadata_max_percent, why, sizeof why);
  if (v == VERDICT_PASS)
    report_pass (pf->rep, "storage.pool", "thin pool %s %s", c->pool_name, why);
  else
    report_fail (pf->rep, "storage.pool",
                 "repair or grow the pool (lvconvert --repair, lvextend; thin_check), or raise "
                 "[storage] pool_data_max_percent / pool_metadata_max_percent",
                 "thin pool %s %s", c->pool_name, why);
}

void
check_storage (struct preflight *pf)
{
  __attribute__ ((cleanup (storage_run_release))) struct storage_run r = { 0 };
  struct containerd_storage c;
  const struct toml_value *shared;
  bool have_c = false;

  if (pf->from_kata.config == NULL)
    {
      report_skip (pf->rep, "storage.snapshotter", "not run: the Kata configuration did not load");
      report_skip (pf->rep, "storage.pool", "not run: the Kata configuration did not load");
      return;
    }
  r.kata = pf->from_kata.config;
  shared = toml_get (r.kata->hypervisor, "shared_fs");
  r.needs_block = strcmp (r.kata->hypervisor_name, "firecracker") == 0
                  || (shared != NULL && shared->kind == TOML_STRING
                      && strcmp (shared->u.string, "none") == 0);
  memset (&c, 0, sizeof c);
  switch (pf->req->bundle == NULL ? ENGINE_UNKNOWN : pf->from_policy.engine)
    {
    case ENGINE_DOCKER:
      judge_docker (pf, &r, false);
      break;
    case ENGINE_CRI:
      judge_containerd (pf, &r, false, &c);
      have_c = true;
      break;
    case ENGINE_CONTAINERD:
      report_skip (pf->rep, "storage.snapshotter",
                   "a plain containerd start: its client chooses "
                   "the snapshotter (ctr run --snapshotter), and the spec does not say which");
      report_skip (pf->rep, "storage.pool", "not run: storage.snapshotter was not judged");
      return;
    case ENGINE_PODMAN:
    case ENGINE_CRIO:
      add_name (&r, "containers/storage's driver", false);
      if (r.needs_block)
        add_finding (&r, VERDICT_FAIL,
                     "start it with a Kata configuration whose hypervisor "
                     "shares a file system (qemu or clh with virtio-fs), or through containerd "
                     "or Docker with the devmapper snapshotter",
                     "%s's containers/storage drivers (overlay, vfs, btrfs, zfs) are file "
                     "systems, not block devices: %s",
                     pf->from_policy.engine == ENGINE_PODMAN ? "podman" : "CRI-O",
                     consequence (&r));
      else
        add_finding (&r, VERDICT_PASS, NULL,
                     "%s's containers/storage driver is a file system, "
                     "which Kata shares with the %s VM",
                     pf->from_policy.engine == ENGINE_PODMAN ? "podman" : "CRI-O",
                     r.kata->hypervisor_name);
      break;
    case ENGINE_UNKNOWN:
      if (pf->req->bundle != NULL)
        {
          report_skip (pf->rep, "storage.snapshotter",
                       "the engine that started this container "
                       "is not known, so neither is its snapshotter");
          report_skip (pf->rep, "storage.pool", "not run: storage.snapshotter was not judged");
          return;
        }
      /* kata-guard check: every engine configuration on this host. */
      judge_docker (pf, &r, true);
      judge_containerd (pf, &r, true, &c);
      have_c = true;
      if (r.n_findings == 0)
        {
          report_skip (pf->rep, "storage.snapshotter",
                       "neither %s nor %s exists: no engine "
                       "configuration to judge",
                       pf->cfg->docker.daemon_json, pf->cfg->storage.containerd_config);
          report_skip (pf->rep, "storage.pool", "not run: storage.snapshotter read no snapshotter");
          return;
        }
      break;
    }
  report_add (pf->rep, "storage.snapshotter", r.worst,
              r.worst == VERDICT_PASS ? NULL : sb_str (&r.remedy), "%s (hypervisor %s%s)",
              sb_str (&r.reason), r.kata->hypervisor_name,
              r.needs_block ? ", no shared file system" : "");
  if (r.read_error)
    report_skip (pf->rep, "storage.pool",
                 "not run: storage.snapshotter could not read the "
                 "engine's configuration");
  else
    check_pool (pf, &r, &c, have_c);
}
