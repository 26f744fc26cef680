/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * drift.posture (kata-guard(8), DRIFT): the host's posture against the
 * record `kata-guard validate` wrote.
 *
 * A posture is a list of files, each named by what it is to the sandbox
 * ("hypervisor", "kata.dropin", "engine.containerd", ...), with the
 * stat(2) key the digest cache uses (device, inode, size, times) and its
 * SHA-256.  A start stats each file; only a file whose key differs is
 * hashed, so that an unchanged host costs a stat per file.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "array.h"
#include "buf.h"
#include "checks.h"
#include "cleanup.h"
#include "drift.h"
#include "error.h"
#include "fdio.h"
#include "jsonc.h"
#include "jtree.h"
#include "kata.h"
#include "policy.h"
#include "request.h"
#include "sha256.h"
#include "toml.h"
#include "trust.h"

/* The hypervisor table's files, as kata.c and assets.c read them. */
static const struct
{
  const char *key, *what;
} hv_files[] = {
  { "path", "hypervisor" },
  { "jailer_path", "jailer" },
  { "kernel", "kernel" },
  { "image", "image" },
  { "initrd", "initrd" },
  { "firmware", "firmware" },
  { "firmware_volume", "firmware_volume" },
  { "virtio_fs_daemon", "virtio_fs_daemon" },
  { "ctlpath", "ctlpath" },
};

const char *const drift_engine_names[DRIFT_ENGINES] = { "containerd", "dockerd", "crio", "podman" };

bool
drift_engine_find (size_t i, char *path, size_t size)
{
  const char *dir = DRIFT_ENGINE_PATH;

  while (i < DRIFT_ENGINES && *dir != '\0')
    {
      size_t dl = strcspn (dir, ":");

      if (snprintf (path, size, "%.*s/%s", (int) dl, dir, drift_engine_names[i]) < (int) size
          && access (path, X_OK) == 0)
        return true;
      dir += dl + (dir[dl] == ':');
    }
  return false;
}

struct item
{
  char what[40];
  char *path;
  bool have; /* KEY and HEX hold what was recorded (or computed) */
  struct stat st;
  char hex[SHA256_HEX_LEN + 1];
  const char *version; /* engines: what validate saw; borrowed */
};

struct items
{
  struct item *v;
  size_t n;
};

static void
items_release (struct items *l)
{
  for (size_t i = 0; i < l->n; i++)
    free (l->v[i].path);
  free (l->v);
  l->v = NULL;
  l->n = 0;
}
#define cleanup_items __attribute__ ((cleanup (items_release)))

static const struct item *
find (const struct items *l, const char *what, const char *path)
{
  for (size_t i = 0; i < l->n; i++)
    if (strcmp (l->v[i].what, what) == 0 && strcmp (l->v[i].path, path) == 0)
      return &l->v[i];
  return NULL;
}

/* Add WHAT at PATH to L, once. */
static int
items_add (struct items *l, const char *what, const char *path, kg_error_t *err)
{
  struct item *n;

  if (find (l, what, path) != NULL)
    return 0;
  n = realloc (l->v, (l->n + 1) * sizeof *n);
  if (n == NULL)
    return kg_error (err, ENOMEM, "cannot allocate");
  l->v = n;
  memset (&n[l->n], 0, sizeof n[l->n]);
  snprintf (n[l->n].what, sizeof n[l->n].what, "%s", what);
  n[l->n].path = strdup (path);
  if (n[l->n].path == NULL)
    return kg_error (err, ENOMEM, "cannot allocate");
  l->n++;
  return 0;
}

/* The files of the posture that the configuration names: the real
   runtimes, the guard configuration, the Kata configuration and its
   drop-ins (the files the kata family read, in PF's report), the
   hypervisor table's binaries and assets, and [drift] files. */
static int
configured_items (const struct preflight *pf, struct items *l, kg_error_t *err)
{
  const struct guard_config *cfg = pf->cfg;
  const struct kata_config *k = pf->from_kata.config;

  if (items_add (l, "runtime.shim", cfg->runtime.shim, err) < 0
      || (cfg->runtime.oci[0] != '\0' && items_add (l, "runtime.oci", cfg->runtime.oci, err) < 0)
      || (cfg->path != NULL && items_add (l, "guard.config", cfg->path, err) < 0))
    return -1;
  /* The kata family adds the configuration, then its drop-ins; no
     family before this one adds any other file. */
  for (size_t i = pf->rep->kata_file; i > 0 && i <= pf->rep->n_files; i++)
    if (items_add (l, i == pf->rep->kata_file ? "kata.config" : "kata.dropin",
                   pf->rep->files[i - 1], err)
        < 0)
      return -1;
  for (size_t i = 0; k != NULL && k->hypervisor != NULL && i < ARRAY_SIZE (hv_files); i++)
    {
      const struct toml_value *v = toml_get (k->hypervisor, hv_files[i].key);

      if (v != NULL && v->kind == TOML_STRING && v->u.string[0] == '/'
          && items_add (l, hv_files[i].what, v->u.string, err) < 0)
        return -1;
    }
  for (size_t i = 0; i < cfg->drift.n_files; i++)
    if (items_add (l, "drift.file", cfg->drift.files[i], err) < 0)
      return -1;
  return 0;
}

static int
hash_file (const char *path, struct stat *st, char hex[SHA256_HEX_LEN + 1], kg_error_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

  if (fd < 0)
    return kg_error (err, errno, "%s", path);
  if (fstat (fd, st) < 0)
    return kg_error (err, errno, "%s", path);
  if (! S_ISREG (st->st_mode))
    return kg_error (err, 0, "%s is not a regular file", path);
  return sha256_fd (fd, st, path, hex, err);
}

/* ---- the record ----------------------------------------------------- */

static int
add_str (struct json_object *o, const char *key, const char *val)
{
  struct json_object *v = json_object_new_string (val ? val : "");

  if (v == NULL || json_object_object_add (o, key, v) < 0)
    {
      json_object_put (v);
      return -1;
    }
  return 0;
}

static int
add_int (struct json_object *o, const char *key, int64_t val)
{
  struct json_object *v = json_object_new_int64 (val);

  if (v == NULL || json_object_object_add (o, key, v) < 0)
    {
      json_object_put (v);
      return -1;
    }
  return 0;
}

static struct json_object *
item_json (const struct item *it)
{
  struct json_object *o = json_object_new_object ();

  if (o == NULL || add_str (o, "what", it->what) < 0 || add_str (o, "path", it->path) < 0
      || add_str (o, "sha256", it->hex) < 0 || add_int (o, "size", it->st.st_size) < 0
      || add_int (o, "dev", (int64_t) it->st.st_dev) < 0
      || add_int (o, "ino", (int64_t) it->st.st_ino) < 0
      || add_int (o, "mtime_sec", it->st.st_mtim.tv_sec) < 0
      || add_int (o, "mtime_nsec", it->st.st_mtim.tv_nsec) < 0
      || add_int (o, "ctime_sec", it->st.st_ctim.tv_sec) < 0
      || add_int (o, "ctime_nsec", it->st.st_ctim.tv_nsec) < 0
      || (it->version != NULL && add_str (o, "version", it->version) < 0))
    {
      json_object_put (o);
      return NULL;
    }
  return o;
}

/* The record's "proof": {"call", "epoch", "proven", "verdict",
   "results": [{"id", "verdict"}, ...]}. */
static int
proof_json (struct json_object *root, const struct drift_proof *p)
{
  cleanup_json struct json_object *o = json_object_new_object ();
  cleanup_json struct json_object *results = json_object_new_array ();
  char when[32];
  struct tm tm;
  time_t t = (time_t) p->epoch;

  gmtime_r (&t, &tm);
  strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (o == NULL || results == NULL || add_str (o, "call", p->call) < 0
      || add_int (o, "epoch", p->epoch) < 0 || add_str (o, "proven", when) < 0
      || add_str (o, "verdict", p->pass ? "pass" : "fail") < 0)
    return -1;
  for (size_t i = 0; i < p->n; i++)
    {
      cleanup_json struct json_object *r = json_object_new_object ();

      if (r == NULL || add_str (r, "id", p->ids[i]) < 0
          || add_str (r, "verdict", p->verdicts[i]) < 0 || json_object_array_add (results, r) < 0)
        return -1;
      r = NULL;
    }
  if (json_object_object_add (o, "results", results) < 0)
    return -1;
  results = NULL;
  /* ROOT holds O from here, even when the add failed (as before). */
  return json_object_object_add (root, "proof", steal_pointer (&o));
}

static int
posture_oom (kg_error_t *err)
{
  return kg_error (err, ENOMEM, "cannot format the posture record");
}

int
posture_text (struct preflight *pf, const struct drift_meta *meta, char **out, kg_error_t *err)
{
  cleanup_items struct items l = { 0 };
  cleanup_json struct json_object *root = NULL;
  cleanup_json struct json_object *files = NULL;
  const struct kata_config *k = pf->from_kata.config;
  struct timespec now;
  char when[32];
  struct tm tm;
  const char *s;

  if (configured_items (pf, &l, err) < 0)
    return -1;
  for (size_t i = 0; i < l.n; i++)
    if (strcmp (l.v[i].what, "runtime.shim") == 0 || strcmp (l.v[i].what, "runtime.oci") == 0)
      l.v[i].version = l.v[i].what[8] == 's' ? meta->shim_version : meta->oci_version;
  for (size_t i = 0; i < meta->n_engines; i++)
    {
      char what[40];

      snprintf (what, sizeof what, "engine.%s", meta->engines[i].name);
      if (items_add (&l, what, meta->engines[i].path, err) < 0)
        return -1;
      l.v[l.n - 1].version = meta->engines[i].version;
    }
  for (size_t i = 0; i < l.n; i++)
    if (hash_file (l.v[i].path, &l.v[i].st, l.v[i].hex, err) < 0)
      return kg_error_prefix (err, "%s", l.v[i].what), -1;
  clock_gettime (CLOCK_REALTIME, &now);
  gmtime_r (&now.tv_sec, &tm);
  strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  root = json_object_new_object ();
  files = json_object_new_array ();
  if (root == NULL || files == NULL || add_str (root, "format", DRIFT_FORMAT) < 0
      || add_str (root, "version", PACKAGE_VERSION) < 0 || add_str (root, "validated", when) < 0
      || add_int (root, "epoch", now.tv_sec) < 0 || add_int (root, "uid", (int64_t) getuid ()) < 0
      || add_str (root, "note", meta->note) < 0
      || add_str (root, "proxy", pf->cfg->egress.proxy) < 0
      || add_str (root, "proxy_denied", meta->proxy_denied) < 0
      || add_str (root, "hypervisor_name", k && k->hypervisor_name ? k->hypervisor_name : "") < 0)
    return posture_oom (err);
  for (size_t i = 0; i < l.n; i++)
    {
      cleanup_json struct json_object *o = item_json (&l.v[i]);

      if (o == NULL || json_object_array_add (files, o) < 0)
        return posture_oom (err);
      o = NULL;
    }
  if (json_object_object_add (root, "files", files) < 0)
    return posture_oom (err);
  files = NULL;
  if (meta->proof != NULL && proof_json (root, meta->proof) < 0)
    return posture_oom (err);
  s = json_object_to_json_string_ext (root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                                                | JSON_C_TO_STRING_NOSLASHESCAPE);
  if (s == NULL || asprintf (out, "%s\n", s) < 0)
    return posture_oom (err);
  return 0;
}

/* ---- reading it back ------------------------------------------------ */

struct posture
{
  struct jv *doc;
  const char *validated, *proxy;
  struct items files;
};

static void
posture_release (struct posture *r)
{
  jv_free (r->doc);
  r->doc = NULL;
  items_release (&r->files);
}
#define cleanup_posture __attribute__ ((cleanup (posture_release)))

static const char *
jstr (struct jv *o, const char *key)
{
  struct jv *v;

  return jv_get_ex (o, key, &v) && jv_is_type (v, json_type_string) ? jv_string (v) : NULL;
}

static bool
jint (struct jv *o, const char *key, int64_t *out)
{
  struct jv *v;

  if (! jv_get_ex (o, key, &v) || ! jv_is_type (v, json_type_int))
    return false;
  *out = jv_int64 (v);
  return true;
}

/* One recorded file into IT; false when a field is missing. */
static bool
posture_item (struct jv *o, struct items *l, kg_error_t *err)
{
  const char *what = jstr (o, "what"), *path = jstr (o, "path"), *hex = jstr (o, "sha256");
  int64_t size, dev, ino, ms, mns, cs, cns;
  struct item *it;

  if (what == NULL || path == NULL || path[0] != '/' || hex == NULL
      || strlen (hex) != SHA256_HEX_LEN || ! jint (o, "size", &size) || ! jint (o, "dev", &dev)
      || ! jint (o, "ino", &ino) || ! jint (o, "mtime_sec", &ms) || ! jint (o, "mtime_nsec", &mns)
      || ! jint (o, "ctime_sec", &cs) || ! jint (o, "ctime_nsec", &cns))
    return false;
  if (items_add (l, what, path, err) < 0)
    return false;
  it = &l->v[l->n - 1];
  it->have = true;
  memcpy (it->hex, hex, sizeof it->hex);
  it->st.st_size = (off_t) size;
  it->st.st_dev = (dev_t) dev;
  it->st.st_ino = (ino_t) ino;
  it->st.st_mtim.tv_sec = (time_t) ms;
  it->st.st_mtim.tv_nsec = (long) mns;
  it->st.st_ctim.tv_sec = (time_t) cs;
  it->st.st_ctim.tv_nsec = (long) cns;
  it->version = jstr (o, "version");
  return true;
}

/* Read the record at PATH into R: a regular file owned by root and
   writable by no one else, of this format and this version of the guard.
   -1 with *ERR saying what is wrong with it (ENOENT: there is none). */
static int
posture_load (const char *path, struct posture *r, char hex[SHA256_HEX_LEN + 1], kg_error_t *err)
{
  cleanup_free char *buf = NULL;
  cleanup_close int fd = -1;
  struct jv *files;
  const char *format, *version;
  struct stat st;
  size_t len;

  struct trust_info info;
  cleanup_close int pfd = -1;

  /* A trusted path (root's, writable by no one else, every directory up
     to /), the file itself no symbolic link: the confined checker could
     not open a file that is not root's anyway (it holds no
     CAP_DAC_OVERRIDE), so the owner is judged before it is opened. */
  pfd = trust_open (path, TRUST_FILE, &info, err);
  if (pfd < 0)
    return -1;
  st = info.st;
  if (info.symlinks > 0)
    return kg_error (err, 0, "%s is a symbolic link (to %s)", path, info.path);
  fd = trust_reopen (pfd, O_RDONLY | O_NOCTTY | O_NONBLOCK, &st, err);
  if (fd < 0)
    return -1;
  if (kg_read_fd_bounded (fd, path, DRIFT_RECORD_MAX, &buf, &len, err) < 0)
    return -1;
  if (hex != NULL)
    {
      unsigned char md[SHA256_LEN];

      sha256_mem (buf, len, md);
      sha256_hex (md, hex);
    }
  r->doc = policy_json_parse (path, buf, len, false, err);
  if (r->doc == NULL)
    return kg_error_prefix (err, "%s is corrupt or truncated", path), -1;
  format = jstr (r->doc, "format");
  version = jstr (r->doc, "version");
  if (format == NULL || strcmp (format, DRIFT_FORMAT) != 0)
    return kg_error (err, 0, "%s is not a kata-guard posture record (format %.40s)", path,
                     format ? format : "absent");
  if (version == NULL || strcmp (version, PACKAGE_VERSION) != 0)
    return kg_error (err, 0, "%s was written by kata-guard %.40s, this is kata-guard %s", path,
                     version ? version : "(unknown)", PACKAGE_VERSION);
  r->validated = jstr (r->doc, "validated");
  r->proxy = jstr (r->doc, "proxy");
  if (r->validated == NULL || r->proxy == NULL || ! jv_get_ex (r->doc, "files", &files)
      || ! jv_is_type (files, json_type_array) || jv_length (files) == 0)
    return kg_error (err, 0, "%s is corrupt: a field is missing", path);
  for (size_t i = 0; i < jv_length (files); i++)
    if (! posture_item (jv_at (files, i), &r->files, err))
      return *err ? -1 : kg_error (err, 0, "%s is corrupt: file %zu lacks a field", path, i);
  return 0;
}

/* The record's proof: NULL when there is none; *WHY what is wrong with
   it, or which probes failed, when it is there but no passing proof. */
static struct jv *
posture_proof (struct jv *doc, int64_t *epoch, char *why, size_t size)
{
  struct jv *p, *results;
  const char *verdict;

  *why = '\0';
  if (! jv_get_ex (doc, "proof", &p))
    return NULL;
  verdict = jstr (p, "verdict");
  if (! jv_is_type (p, json_type_object) || verdict == NULL || ! jint (p, "epoch", epoch)
      || ! jv_get_ex (p, "results", &results) || ! jv_is_type (results, json_type_array))
    {
      snprintf (why, size, "its proof is corrupt");
      return p;
    }
  if (strcmp (verdict, "pass") != 0)
    {
      size_t o = (size_t) snprintf (why, size,
                                    "its proof (%.40s) failed:", jstr (p, "proven") ?: "?");

      for (size_t i = 0; i < jv_length (results) && o < size; i++)
        {
          struct jv *r = jv_at (results, i);
          const char *id = jstr (r, "id"), *v = jstr (r, "verdict");

          if (id != NULL && v != NULL && strcmp (v, "pass") != 0)
            o += (size_t) snprintf (why + o, size - o, " %.40s", id);
        }
    }
  return p;
}

int
posture_epoch (const char *path, int64_t *epoch, int64_t *proven, kg_error_t *err)
{
  cleanup_posture struct posture r = { 0 };
  char why[256];

  if (posture_load (path, &r, NULL, err) < 0)
    return -1;
  if (! jint (r.doc, "epoch", epoch) || *epoch < 0)
    return kg_error (err, 0, "%s is corrupt: no epoch", path);
  if (proven != NULL && (posture_proof (r.doc, proven, why, sizeof why) == NULL || why[0] != '\0'))
    *proven = -1;
  return 0;
}

/* ---- the comparison ------------------------------------------------- */

static bool
same_key (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size
         && a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec
         && a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* How many touched files drift.posture's warning names (the count is
   whole). */
#define TOUCHED_NAMED 8

/* What became of recorded file REC: nothing, a change into F (*N
   counts them), or the same bytes under another stat key (*TOUCHED: each
   start hashes it again until the host is validated again). */
static void
compare_file (const struct item *rec, const char *validated, struct kg_buf *f, size_t *n,
              struct kg_buf *touched_names, size_t *touched)
{
  cleanup_error kg_error_t err = NULL;
  char hex[SHA256_HEX_LEN + 1], when[32];
  struct stat st;
  struct tm tm;

  if (stat (rec->path, &st) == 0 && S_ISREG (st.st_mode) && same_key (&st, &rec->st))
    return;
  if (hash_file (rec->path, &st, hex, &err) < 0)
    {
      sb_printf (f, "%s%s %s is gone or unreadable since validation on %s (%s)", *n ? "; " : "",
                 rec->what, rec->path, validated, err->msg);
      (*n)++;
      return;
    }
  if (strcmp (hex, rec->hex) == 0)
    {
      /* touched, or copied back: the same bytes; named, up to a few */
      if ((*touched)++ < TOUCHED_NAMED)
        sb_printf (touched_names, "%s%s %s", *touched > 1 ? ", " : "", rec->what, rec->path);
      return;
    }
  gmtime_r (&st.st_mtim.tv_sec, &tm);
  strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  sb_printf (f,
             "%s%s %s changed since validation on %s (sha256 %.12s... to %.12s..., %" PRId64
             " to %" PRId64 " bytes, modified %s)",
             *n ? "; " : "", rec->what, rec->path, validated, rec->hex, hex,
             (int64_t) rec->st.st_size, (int64_t) st.st_size, when);
  (*n)++;
}

/* The engines where the fixed PATH finds them now, against record R: one
   found earlier on it than the recorded one (which then runs whenever
   the engine is started by its name), or found where none was recorded,
   is drift, into F after N findings.  How many. */
static size_t
engines_moved (const struct posture *r, struct kg_buf *f, size_t n)
{
  size_t moved = 0;

  for (size_t i = 0; i < DRIFT_ENGINES; i++)
    {
      const struct item *rec = NULL;
      char what[40], path[PATH_MAX];

      snprintf (what, sizeof what, "engine.%s", drift_engine_names[i]);
      for (size_t j = 0; j < r->files.n && rec == NULL; j++)
        if (strcmp (r->files.v[j].what, what) == 0)
          rec = &r->files.v[j];
      if (! drift_engine_find (i, path, sizeof path)
          || (rec != NULL && strcmp (rec->path, path) == 0))
        continue;
      if (rec != NULL)
        sb_printf (f, "%s%s %s is found before %s on %s since validation on %s",
                   n + moved ? "; " : "", what, path, rec->path, DRIFT_ENGINE_PATH, r->validated);
      else
        sb_printf (f, "%s%s %s is new since validation on %s", n + moved ? "; " : "", what, path,
                   r->validated);
      moved++;
    }
  return moved;
}

bool
posture_same (const char *a, const char *b)
{
  struct json_object *ja = json_tokener_parse (a), *jb = json_tokener_parse (b);
  struct json_object *fa, *fb, *pa, *pb;
  bool same = ja != NULL && jb != NULL && json_object_object_get_ex (ja, "files", &fa)
              && json_object_object_get_ex (jb, "files", &fb)
              && json_object_object_get_ex (ja, "proxy", &pa)
              && json_object_object_get_ex (jb, "proxy", &pb) && json_object_equal (fa, fb)
              && json_object_equal (pa, pb);

  json_object_put (ja);
  json_object_put (jb);
  return same;
}

/* The token DRIFT_TOKEN_ENV=VALUE in SPEC's process.env, as the SHA-256
   of VALUE into HEX: false unless exactly one entry names it. */
static bool
spec_token (struct jv *spec, char hex[SHA256_HEX_LEN + 1])
{
  static const char name[] = DRIFT_TOKEN_ENV "=";
  struct jv *process, *env;
  size_t found = 0;

  if (! jv_get_ex (spec, "process", &process) || ! jv_get_ex (process, "env", &env)
      || ! jv_is_type (env, json_type_array))
    return false;
  for (size_t i = 0; i < jv_length (env); i++)
    {
      struct jv *e = jv_at (env, i);
      const char *s = jv_is_type (e, json_type_string) ? jv_string (e) : NULL;
      unsigned char md[SHA256_LEN];

      if (s == NULL || strncmp (s, name, sizeof name - 1) != 0)
        continue;
      if (found++ > 0)
        return false;
      sha256_mem (s + sizeof name - 1, strlen (s + sizeof name - 1), md);
      sha256_hex (md, hex);
    }
  return found == 1;
}

/* SPEC's annotation KEY (a string), or NULL. */
static const char *
spec_annotation (struct jv *spec, const char *key)
{
  struct jv *a;

  return jv_get_ex (spec, "annotations", &a) && jv_is_type (a, json_type_object) ? jstr (a, key)
                                                                                 : NULL;
}

/* The SHA-256 of the pod uid containerd's CRI annotates SPEC with, into
   HEX: false when it has none. */
static bool
cri_pod_uid (struct jv *spec, char hex[SHA256_HEX_LEN + 1])
{
  const char *uid = spec_annotation (spec, "io.kubernetes.cri.sandbox-uid");
  unsigned char md[SHA256_LEN];

  if (uid == NULL || *uid == '\0')
    return false;
  sha256_mem (uid, strlen (uid), md);
  sha256_hex (md, hex);
  return true;
}

/* Whether SPEC is a CRI pod's sandbox starting as itself (containerd's
   annotations: its type, its sandbox id the start's container id). */
static bool
cri_own_sandbox (struct jv *spec, const struct request *req)
{
  const char *type = spec_annotation (spec, "io.kubernetes.cri.container-type");
  const char *sid = spec_annotation (spec, "io.kubernetes.cri.sandbox-id");

  return type != NULL && strcmp (type, "sandbox") == 0 && sid != NULL
         && strcmp (sid, req->container_id) == 0;
}

bool
prove_window_match (const struct request *req, struct jv *spec, struct prove_window *out)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *buf = NULL;
  cleanup_close int pfd = -1, fd = -1;
  struct jv *w = NULL, *own = NULL, *na = NULL, *rec = NULL;
  const char *format, *id, *token, *pod;
  char hex[SHA256_HEX_LEN + 1];
  struct trust_info info;
  struct stat st;
  int64_t expires;
  bool ok = false;
  size_t len;

  memset (out, 0, sizeof *out);
  if (req == NULL || req->container_id == NULL || (spec == NULL && req->bundle == NULL))
    return false;
  pfd = trust_open (DRIFT_WINDOW, TRUST_FILE, &info, &err);
  if (pfd < 0 || info.symlinks > 0 || (info.st.st_mode & 077) != 0)
    return false;
  st = info.st;
  fd = trust_reopen (pfd, O_RDONLY | O_NOCTTY | O_NONBLOCK, &st, &err);
  if (fd < 0 || kg_read_fd_bounded (fd, DRIFT_WINDOW, 4096, &buf, &len, &err) < 0
      || (w = policy_json_parse (DRIFT_WINDOW, buf, len, false, &err)) == NULL)
    return false;
  if (spec == NULL)
    spec = own = policy_spec_load (req->bundle, &err);
  format = jstr (w, "format");
  id = jstr (w, "id");
  token = jstr (w, "token_sha256");
  pod = jstr (w, "pod_uid_sha256");
  if (format == NULL || strcmp (format, DRIFT_WINDOW_FORMAT) != 0 || id == NULL || token == NULL
      || ! jint (w, "expires", &expires) || (int64_t) time (NULL) > expires || spec == NULL
      || ! jv_get_ex (w, "net_admin", &na) || ! jv_is_type (na, json_type_boolean)
      || ! jv_get_ex (w, "record_sha256", &rec)
      || ! (jv_is_type (rec, json_type_null)
            || (jv_is_type (rec, json_type_string) && strlen (jv_string (rec)) == SHA256_HEX_LEN)))
    ;
  else if (id[0] != '\0')
    /* docker, podman, ctr: the id the engine gave the canary, the token. */
    ok = strcmp (id, req->container_id) == 0 && spec_token (spec, hex) && strcmp (hex, token) == 0;
  else if (pod != NULL && cri_pod_uid (spec, hex) && strcmp (hex, pod) == 0)
    /* A CRI pod (its ids are containerd's, given after it starts): the
       pod's uid as prove chose it (128 random bits, in root's files
       alone), as containerd's CRI annotates both the sandbox and its
       containers; the canary's container holds the token too, and the
       sandbox is the pod's own (its sandbox id its container id). */
    ok = (spec_token (spec, hex) && strcmp (hex, token) == 0) || cri_own_sandbox (spec, req);
  if (ok)
    {
      out->net_admin = jv_bool (na);
      if (jv_is_type (rec, json_type_string))
        snprintf (out->record, sizeof out->record, "%s", jv_string (rec));
    }
  jv_free (own);
  jv_free (w);
  return ok;
}

/* Whether this start is the canary of the `kata-guard validate --prove`
   run in progress (prove_window_match, with a candidate named): true
   with the candidate in R.  Anything else (no window, another container,
   a plain prove's window, a window or candidate that is not root's
   alone) is no canary: the start is judged against the record. */
static bool
prove_canary (const struct preflight *pf, struct posture *r)
{
  cleanup_error kg_error_t err = NULL;
  struct prove_window w;
  char hex[SHA256_HEX_LEN + 1];
  bool ok;

  if (! prove_window_match (pf->req, NULL, &w) || w.record[0] == '\0')
    return false;
  ok = posture_load (DRIFT_CANDIDATE, r, hex, &err) == 0 && strcmp (hex, w.record) == 0;
  if (! ok)
    posture_release (r);
  return ok;
}

void
check_drift (struct preflight *pf)
{
  const struct guard_config *cfg = pf->cfg;
  cleanup_error kg_error_t err = NULL;
  cleanup_posture struct posture r = { 0 };
  cleanup_items struct items now = { 0 };
  cleanup_kg_buf struct kg_buf f = { 0 }, t = { 0 };
  size_t n = 0, touched = 0;
  const char *remedy = "test the sandbox, then kata-guard validate";
  /* validate --prove's canary: judged against the posture that run is
     about to record, its proof the one in progress. */
  bool canary = prove_canary (pf, &r);

  if (! canary && posture_load (cfg->drift.record, &r, NULL, &err) < 0)
    {
      if (err->errnum == ENOENT && ! cfg->drift.lock)
        report_skip (pf->rep, "drift.posture", "no posture record (%s); [drift] lock is off",
                     cfg->drift.record);
      else if (err->errnum == ENOENT)
        report_fail (pf->rep, "drift.posture", remedy,
                     "no posture record (%s): this host's sandbox was never validated, and "
                     "[drift] lock is on",
                     cfg->drift.record);
      else if (! cfg->drift.lock)
        report_warn (pf->rep, "drift.posture", "kata-guard validate", "the posture record: %s",
                     err->msg);
      else
        report_fail (pf->rep, "drift.posture", "kata-guard validate (never edit the record)",
                     "the posture record: %s", err->msg);
      return;
    }
  if (pf->from_kata.config == NULL)
    {
      report_skip (pf->rep, "drift.posture", "not run: the Kata configuration did not load");
      return;
    }
  if (configured_items (pf, &now, &err) < 0)
    {
      report_fail (pf->rep, "drift.posture", remedy, "%s", err->msg);
      return;
    }
  for (size_t i = 0; i < now.n; i++)
    if (find (&r.files, now.v[i].what, now.v[i].path) == NULL)
      {
        sb_printf (&f, "%s%s %s is new since validation on %s", n++ ? "; " : "", now.v[i].what,
                   now.v[i].path, r.validated);
      }
  n += engines_moved (&r, &f, n);
  for (size_t i = 0; i < r.files.n; i++)
    {
      const struct item *rec = &r.files.v[i];

      if (strncmp (rec->what, "engine.", 7) != 0 && find (&now, rec->what, rec->path) == NULL)
        sb_printf (&f, "%s%s %s is no longer part of the sandbox validated on %s", n++ ? "; " : "",
                   rec->what, rec->path, r.validated);
      else
        compare_file (rec, r.validated, &f, &n, &t, &touched);
    }
  if (strcmp (r.proxy, cfg->egress.proxy) != 0)
    sb_printf (&f, "%sthe egress proxy changed from \"%s\" to \"%s\" since validation on %s",
               n++ ? "; " : "", r.proxy, cfg->egress.proxy, r.validated);
  if (cfg->drift.require_proof && ! canary)
    {
      char why[256];
      int64_t proven;

      if (posture_proof (r.doc, &proven, why, sizeof why) == NULL)
        {
          sb_printf (&f,
                     "%sthe record of %s holds no proof ([drift] require_proof: kata-guard "
                     "validate --prove)",
                     n++ ? "; " : "", r.validated);
          remedy = "prove the sandbox: kata-guard validate --prove -- --engine ...";
        }
      else if (why[0] != '\0')
        {
          sb_printf (&f, "%sthe record of %s: %s ([drift] require_proof)", n++ ? "; " : "",
                     r.validated, why);
          remedy = "fix what the proof found, then kata-guard validate --prove again";
        }
    }
  if (n == 0 && touched > 0)
    report_warn (pf->rep, "drift.posture",
                 "kata-guard validate again, so that starts stop hashing them",
                 "%zu files as validated on %s%s; %zu of them touched since (the same bytes, "
                 "hashed at every start): %s%s",
                 r.files.n, r.validated, cfg->drift.lock ? " ([drift] lock)" : "", touched,
                 sb_str (&t), touched > TOUCHED_NAMED ? ", ..." : "");
  else if (n == 0 && canary)
    report_pass (pf->rep, "drift.posture",
                 "%zu files as the kata-guard validate --prove run in progress is about to "
                 "record them (its canary %s, its proof in progress)",
                 r.files.n, pf->req->container_id);
  else if (n == 0)
    report_pass (pf->rep, "drift.posture", "%zu files as validated on %s%s", r.files.n, r.validated,
                 cfg->drift.lock ? " ([drift] lock)" : "");
  else if (cfg->drift.lock || cfg->drift.require_proof)
    report_fail (pf->rep, "drift.posture", remedy, "drift: %s", sb_str (&f));
  else
    report_warn (pf->rep, "drift.posture", remedy, "drift ([drift] lock is off): %s", sb_str (&f));
}
