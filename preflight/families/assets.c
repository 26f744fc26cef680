/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * assets.*: the files the VM boots from cannot be rewritten in place
 * (kata-guard(8), CHECKS).
 *
 * A file is protected when it carries the immutable attribute
 * (FS_IMMUTABLE_FL, chattr +i) or lives on a read-only mount.  Each file is
 * reached with trust_open (), so every directory and symlink on the way is
 * root-owned and not writable by group or others; every later step works on
 * the descriptor of the very file that passed: the attribute is read from
 * it, the mount that holds it is confirmed by its mount id, and a pinned
 * digest is computed from its contents.
 *
 * Digests of immutable files are cached in a root-only file under /run,
 * keyed by (dev, inode, size, mtime, ctime): changing an immutable file
 * means clearing the attribute first, which moves its ctime, so a stale
 * entry can never match again.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "assets.h"
#include "checks.h"
#include "cleanup.h"
#include "error.h"
#include "kata.h"
#include "mountinfo.h"
#include "rundir.h"
#include "sha256.h"
#include "toml.h"
#include "trust.h"

/* In root's private directory (rundir.h). */
#define CACHE_NAME "sha256.cache"
#define CACHE_PATH RUNDIR "/" CACHE_NAME
#define CACHE_MAGIC "kata-guard sha256 cache 1\n"
#define CACHE_MAX_ENTRIES 128
/* The longest line: seven 20-digit numbers, a digest, 7 spaces, '\n'. */
#define CACHE_LINE_MAX (7 * 20 + SHA256_HEX_LEN + 8)
#define CACHE_MAX_SIZE (sizeof CACHE_MAGIC - 1 + CACHE_MAX_ENTRIES * CACHE_LINE_MAX)

static const char remedy_trust[]
    = "make the file a regular file, and every directory and symlink on the way to it owned "
      "by root and not writable by group or others (chown root:root; chmod go-w)";

/* ---- the digest cache ------------------------------------------------- */

struct cache_entry
{
  uint64_t dev, ino, size;
  uint64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
  char hex[SHA256_HEX_LEN + 1];
};

struct digest_cache
{
  bool loaded;
  bool usable;           /* root, and the directory (if it exists) is root's alone */
  bool dirty;            /* an entry was added: write the file back */
  struct cache_entry *e; /* newest first */
  size_t n;
  char ignored[PATH_MAX + 160]; /* why the file on disk was not used, or "" */
};

static bool
cache_key (const struct stat *st, struct cache_entry *k)
{
  /* Times before 1970 have no place in the strict, unsigned format:
     such a file is simply hashed every time. */
  if (st->st_mtim.tv_sec < 0 || st->st_ctim.tv_sec < 0 || st->st_size < 0)
    return false;
  memset (k, 0, sizeof *k);
  k->dev = (uint64_t) st->st_dev;
  k->ino = (uint64_t) st->st_ino;
  k->size = (uint64_t) st->st_size;
  k->mtime_sec = (uint64_t) st->st_mtim.tv_sec;
  k->mtime_nsec = (uint64_t) st->st_mtim.tv_nsec;
  k->ctime_sec = (uint64_t) st->st_ctim.tv_sec;
  k->ctime_nsec = (uint64_t) st->st_ctim.tv_nsec;
  return true;
}

static bool
cache_same_file (const struct cache_entry *a, const struct cache_entry *b)
{
  return a->dev == b->dev && a->ino == b->ino;
}

static bool
cache_same_key (const struct cache_entry *a, const struct cache_entry *b)
{
  return cache_same_file (a, b) && a->size == b->size && a->mtime_sec == b->mtime_sec
         && a->mtime_nsec == b->mtime_nsec && a->ctime_sec == b->ctime_sec
         && a->ctime_nsec == b->ctime_nsec;
}

/* One unsigned decimal field followed by SEP: digits only, no sign, no
   leading zero, no overflow. */
static bool
parse_u64 (const char **pp, char sep, uint64_t *out)
{
  const char *p = *pp;
  uint64_t v = 0;
  size_t n = 0;

  while (p[n] >= '0' && p[n] <= '9')
    {
      unsigned d = (unsigned) (p[n] - '0');

      if (v > (UINT64_MAX - d) / 10)
        return false;
      v = v * 10 + d;
      n++;
    }
  if (n == 0 || (n > 1 && p[0] == '0') || p[n] != sep)
    return false;
  *out = v;
  *pp = p + n + 1;
  return true;
}

static bool
parse_hex (const char **pp, char *hex)
{
  const char *p = *pp;

  for (size_t i = 0; i < SHA256_HEX_LEN; i++)
    if (! ((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
      return false;
  if (p[SHA256_HEX_LEN] != '\n')
    return false;
  memcpy (hex, p, SHA256_HEX_LEN);
  hex[SHA256_HEX_LEN] = '\0';
  *pp = p + SHA256_HEX_LEN + 1;
  return true;
}

/* The whole file or nothing: a cache that does not parse is never partly
   trusted.  Returns the line that failed, or 0. */
static unsigned
cache_parse (const char *buf, size_t len, struct cache_entry **out, size_t *n_out)
{
  cleanup_free struct cache_entry *e = NULL;
  const char *p = buf, *end = buf + len;
  size_t n = 0;
  unsigned line = 1;

  if (strlen (buf) != len || len < sizeof CACHE_MAGIC - 1
      || memcmp (buf, CACHE_MAGIC, sizeof CACHE_MAGIC - 1) != 0)
    return 1;
  p += sizeof CACHE_MAGIC - 1;
  e = calloc (CACHE_MAX_ENTRIES, sizeof *e);
  if (e == NULL)
    return 1;
  while (p < end)
    {
      struct cache_entry *c = &e[n];

      line++;
      if (n == CACHE_MAX_ENTRIES)
        return line;
      if (! parse_u64 (&p, ' ', &c->dev) || ! parse_u64 (&p, ' ', &c->ino)
          || ! parse_u64 (&p, ' ', &c->size) || ! parse_u64 (&p, ' ', &c->mtime_sec)
          || ! parse_u64 (&p, ' ', &c->mtime_nsec) || ! parse_u64 (&p, ' ', &c->ctime_sec)
          || ! parse_u64 (&p, ' ', &c->ctime_nsec) || ! parse_hex (&p, c->hex)
          || c->mtime_nsec >= 1000000000 || c->ctime_nsec >= 1000000000)
        return line;
      /* One entry per file: two would mean the file was not written by us. */
      for (size_t i = 0; i < n; i++)
        if (cache_same_file (&e[i], c))
          return line;
      n++;
    }
  *out = steal_pointer (&e);
  *n_out = n;
  return 0;
}

static void
cache_load (struct digest_cache *c)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_close int dfd = -1;
  cleanup_free char *buf = NULL;
  size_t len;
  unsigned bad;

  c->loaded = true;
  /* The cache is root's: anyone else neither reads nor writes it. */
  if (geteuid () != 0)
    return;
  dfd = rundir_open (NULL, false, &err);
  if (dfd < 0)
    {
      /* No directory yet: it is made when the first entry is written. */
      c->usable = err->errnum == ENOENT;
      if (! c->usable)
        snprintf (c->ignored, sizeof c->ignored, "%s", err->msg);
      return;
    }
  c->usable = true;
  if (rundir_read (dfd, RUNDIR, CACHE_NAME, CACHE_MAX_SIZE, &buf, &len, &err) < 0)
    {
      if (err->errnum != ENOENT)
        snprintf (c->ignored, sizeof c->ignored, "%s", err->msg);
      return;
    }
  bad = cache_parse (buf, len, &c->e, &c->n);
  if (bad != 0)
    snprintf (c->ignored, sizeof c->ignored, "%s:%u: not a valid cache line", CACHE_PATH, bad);
}

static const char *
cache_lookup (const struct digest_cache *c, const struct cache_entry *key)
{
  for (size_t i = 0; i < c->n; i++)
    if (cache_same_key (&c->e[i], key))
      return c->e[i].hex;
  return NULL;
}

/* Put KEY first, dropping any older entry for the same file and, past the
   bound, the oldest entries. */
static void
cache_add (struct digest_cache *c, const struct cache_entry *key)
{
  size_t j = 0;

  if (! c->usable)
    return;
  if (c->e == NULL)
    {
      c->e = calloc (CACHE_MAX_ENTRIES, sizeof *c->e);
      if (c->e == NULL)
        return;
      c->n = 0;
    }
  for (size_t i = 0; i < c->n; i++)
    if (! cache_same_file (&c->e[i], key))
      c->e[j++] = c->e[i];
  c->n = j < CACHE_MAX_ENTRIES ? j : CACHE_MAX_ENTRIES - 1;
  memmove (&c->e[1], &c->e[0], c->n * sizeof *c->e);
  c->e[0] = *key;
  c->n++;
  c->dirty = true;
}

/* The cache file's text: what the confined checker hands its parent
   (struct preflight from_assets), since it may not write files itself. */
static int
cache_encode (const struct digest_cache *c, char **out, size_t *out_len, kg_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0, cap = CACHE_MAX_SIZE + 1;
  int r;

  buf = malloc (cap);
  if (buf == NULL)
    return kg_error (err, errno, "cannot allocate");
  len = (size_t) snprintf (buf, cap, "%s", CACHE_MAGIC);
  for (size_t i = 0; i < c->n && i < CACHE_MAX_ENTRIES; i++)
    {
      const struct cache_entry *e = &c->e[i];

      r = snprintf (buf + len, cap - len,
                    "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                    " %" PRIu64 " %s\n",
                    e->dev, e->ino, e->size, e->mtime_sec, e->mtime_nsec, e->ctime_sec,
                    e->ctime_nsec, e->hex);
      if (r < 0 || (size_t) r >= cap - len)
        return kg_error (err, 0, "cache entry too long");
      len += (size_t) r;
    }
  *out = steal_pointer (&buf);
  *out_len = len;
  return 0;
}

static void cache_release (struct digest_cache *c);

/* ---- the parent's check of the checker's cache ------------------------ */

/* A pinned file as the parent itself reaches it: by the trusted-path walk,
   immutable, with its key; its digest once an entry asks for it. */
struct vetted_pin
{
  bool usable; /* reached, immutable and keyed */
  bool hashed, hash_ok;
  struct cache_entry key; /* hex: the digest, once hash_ok */
  int rfd;
};

static void
vetted_pin_open (const char *path, struct vetted_pin *v)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_close int fd = -1;
  struct trust_info info;
  struct stat st;
  int flags = 0;

  memset (v, 0, sizeof *v);
  v->rfd = -1;
  if (path == NULL || path[0] != '/' || (fd = trust_open (path, TRUST_REGULAR, &info, &err)) < 0)
    return;
  v->rfd = trust_reopen (fd, O_RDONLY | O_NONBLOCK | O_NOCTTY, &info.st, &err);
  if (v->rfd < 0 || ioctl (v->rfd, FS_IOC_GETFLAGS, &flags) < 0 || ! (flags & FS_IMMUTABLE_FL)
      || fstat (v->rfd, &st) < 0)
    return;
  v->usable = cache_key (&st, &v->key);
}

/* V's digest, computed once; the file may not change while it is read. */
static bool
vetted_pin_hash (struct vetted_pin *v, const char *path)
{
  cleanup_error kg_error_t err = NULL;
  struct stat before, after;
  struct cache_entry k;

  if (v->hashed)
    return v->hash_ok;
  v->hashed = true;
  if (fstat (v->rfd, &before) < 0 || ! cache_key (&before, &k) || ! cache_same_key (&k, &v->key)
      || sha256_fd (v->rfd, &before, path, v->key.hex, &err) < 0 || fstat (v->rfd, &after) < 0
      || ! cache_key (&after, &k) || ! cache_same_key (&k, &v->key))
    return false;
  v->hash_ok = true;
  return true;
}

/* Whether the parent stands behind E: the cache on disk (which only a
   parent writes) holds it as it is, or E is the key of a file CFG pins,
   reached and found immutable by the parent itself, and the parent's own
   hash of that file is E's digest. */
static bool
cache_entry_vetted (const struct cache_entry *e, const struct digest_cache *disk,
                    const struct guard_config *cfg, struct vetted_pin *pins)
{
  for (size_t i = 0; i < disk->n; i++)
    if (cache_same_key (&disk->e[i], e) && strcmp (disk->e[i].hex, e->hex) == 0)
      return true;
  for (size_t i = 0; i < cfg->assets.n_pins; i++)
    if (pins[i].usable && cache_same_key (&pins[i].key, e))
      return vetted_pin_hash (&pins[i], cfg->assets.pins[i].path)
             && strcmp (pins[i].key.hex, e->hex) == 0;
  return false;
}

int
assets_cache_vet (const struct guard_config *cfg, const char *buf, size_t len, char **out,
                  size_t *out_len, size_t *dropped, kg_error_t *err)
{
  cleanup_free struct cache_entry *entries = NULL;
  cleanup_free struct vetted_pin *pins = NULL;
  struct digest_cache disk = { 0 }, kept = { 0 };
  size_t n_entries = 0;
  int rc;

  *dropped = 0;
  if (len > CACHE_MAX_SIZE || cache_parse (buf, len, &entries, &n_entries) != 0)
    return kg_error (err, 0, "%s: the checker's cache is not a valid cache", CACHE_PATH);
  pins = calloc (cfg->assets.n_pins + 1, sizeof *pins);
  if (pins == NULL)
    return kg_error (err, ENOMEM, "cannot allocate");
  for (size_t i = 0; i < cfg->assets.n_pins; i++)
    vetted_pin_open (cfg->assets.pins[i].path, &pins[i]);
  cache_load (&disk);
  kept.e = entries;
  for (size_t i = 0; i < n_entries; i++)
    if (cache_entry_vetted (&entries[i], &disk, cfg, pins))
      entries[kept.n++] = entries[i];
    else
      (*dropped)++;
  rc = cache_encode (&kept, out, out_len, err);
  for (size_t i = 0; i < cfg->assets.n_pins; i++)
    if (pins[i].rfd >= 0)
      close (pins[i].rfd);
  cache_release (&disk);
  return rc;
}

/* Write the whole cache atomically: a temporary file in the same
   directory, fsync, rename, fsync the directory.  A reader sees the old
   file or the new one, never half of one.  BUF came from the confined
   checker: what is written is only what assets_cache_vet keeps of it. */
int
assets_cache_write (const struct guard_config *cfg, const char *buf, size_t len, kg_error_t *err)
{
  cleanup_close int dir = -1;
  cleanup_free char *vetted = NULL;
  size_t vetted_len = 0, dropped = 0;

  if (assets_cache_vet (cfg, buf, len, &vetted, &vetted_len, &dropped, err) < 0)
    return -1;
  dir = rundir_open (NULL, true, err);
  if (dir < 0)
    return -1;
  return rundir_write (dir, RUNDIR, CACHE_NAME, vetted, vetted_len, err);
}

static void
cache_release (struct digest_cache *c)
{
  free (c->e);
  c->e = NULL;
  c->n = 0;
}

/* ---- one file ---------------------------------------------------------- */

/* At most this many checked files are kept for the pins (below). */
#define ASSETS_KEPT_MAX 8

/* What one run of the family shares: the mount table is read once. */
struct assets_run
{
  struct preflight *pf;
  struct libmnt_table *mounts;
  bool mounts_tried;
  char mounts_why[320]; /* why the mount table is not there */
  struct digest_cache cache;
  /* Boot assets and extra files that passed and are pinned too, by the
     path as configured, with their open descriptors: check_pins takes
     them over instead of walking to and opening the same file again. */
  struct asset *kept[ASSETS_KEPT_MAX];
  const char *kept_path[ASSETS_KEPT_MAX];
  size_t n_kept;
};

enum protection
{
  PROT_NONE,
  PROT_IMMUTABLE,
  PROT_RO_MOUNT,
};

struct asset
{
  int fd;  /* O_PATH descriptor from trust_open */
  int rfd; /* the same file, read-only */
  struct trust_info info;
  enum protection prot;
  char name[2 * PATH_MAX + 8]; /* "PATH" or "PATH -> RESOLVED" */
  char how[PATH_MAX + 128];    /* how it is protected (pass) */
  char reason[3 * PATH_MAX + 512];
  char remedy[PATH_MAX + 256];
};

static void
asset_release (struct asset *a)
{
  if (a->fd >= 0)
    close (a->fd);
  if (a->rfd >= 0)
    close (a->rfd);
  a->fd = a->rfd = -1;
}

/* After A passed for PATH: when a pin names PATH too, move A (and its
   descriptors) into RUN for check_pins.  Only a saving: when it cannot be
   kept, the pin checks the file itself. */
static void
asset_keep_for_pins (struct assets_run *run, const char *path, struct asset *a)
{
  const struct guard_config *cfg = run->pf->cfg;
  bool pinned = false;
  struct asset *copy;

  for (size_t i = 0; i < cfg->assets.n_pins && ! pinned; i++)
    pinned = strcmp (cfg->assets.pins[i].path, path) == 0;
  if (! pinned || run->n_kept == ASSETS_KEPT_MAX)
    return;
  for (size_t i = 0; i < run->n_kept; i++)
    if (strcmp (run->kept_path[i], path) == 0)
      return;
  copy = malloc (sizeof *copy);
  if (copy == NULL)
    return;
  *copy = *a;
  a->fd = a->rfd = -1;
  run->kept[run->n_kept] = copy;
  run->kept_path[run->n_kept++] = path;
}

/* The file kept for PATH, moved into A; false when none was. */
static bool
asset_take_kept (struct assets_run *run, const char *path, struct asset *a)
{
  for (size_t i = 0; i < run->n_kept; i++)
    if (run->kept[i] != NULL && strcmp (run->kept_path[i], path) == 0)
      {
        *a = *run->kept[i];
        free (run->kept[i]);
        run->kept[i] = NULL;
        return true;
      }
  return false;
}

static struct libmnt_table *
run_mounts (struct assets_run *run)
{
  if (! run->mounts_tried)
    {
      run->mounts_tried = true;
      run->mounts = mountinfo_read (MOUNTINFO, run->mounts_why, sizeof run->mounts_why);
    }
  return run->mounts;
}

static bool
has_ro (const char *opts)
{
  char *value = NULL;
  size_t size = 0;

  return opts != NULL && kg_mnt.optstr_get_option (opts, "ro", &value, &size) == 0;
}

/* Whether A's file lives on a read-only mount.  Writes what was found,
   either way, to A->how. */
static bool
on_ro_mount (struct assets_run *run, struct asset *a)
{
  struct libmnt_table *tb = run_mounts (run);
  struct libmnt_fs *fs;
  struct statx stx;
  const char *target;

  if (tb == NULL)
    {
      snprintf (a->how, sizeof a->how, "%s", run->mounts_why);
      return false;
    }
  /* By the physical path, the last mount first (the one on top). */
  fs = kg_mnt.find_mountpoint (tb, a->info.path, MNT_ITER_BACKWARD);
  target = fs ? kg_mnt.get_target (fs) : NULL;
  if (target == NULL)
    {
      snprintf (a->how, sizeof a->how, "no mount in %s holds %s", MOUNTINFO, a->info.path);
      return false;
    }
  /* The mount found by the path must be the one that holds the file the
     descriptor names: otherwise a mount made over a directory after the
     walk could lend its "ro" to another file system.  The mount id says
     so exactly; st_dev cannot (bind mounts share it, btrfs subvolumes and
     overlayfs report other numbers), so it is only the fallback for
     kernels without STATX_MNT_ID (before 5.8), where it must match. */
  if (statx (a->fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) == 0
      && (stx.stx_mask & STATX_MNT_ID))
    {
      if (stx.stx_mnt_id != (uint64_t) kg_mnt.get_id (fs))
        {
          snprintf (a->how, sizeof a->how,
                    "it is on mount id %" PRIu64 ", not on the mount %s (id %d) its path leads to",
                    (uint64_t) stx.stx_mnt_id, target, kg_mnt.get_id (fs));
          return false;
        }
    }
  else if (kg_mnt.get_devno (fs) != a->info.st.st_dev)
    {
      snprintf (a->how, sizeof a->how, "its device does not match the mount %s its path leads to",
                target);
      return false;
    }
  /* Superblock first: a read-only file system is read-only through every
     mount of it, and mountinfo then shows "ro" per mount as well. */
  if (has_ro (kg_mnt.get_fs_options (fs)))
    {
      snprintf (a->how, sizeof a->how, "on the read-only mount %s (superblock ro)", target);
      return true;
    }
  if (has_ro (kg_mnt.get_vfs_options (fs)))
    {
      snprintf (a->how, sizeof a->how, "on the read-only mount %s (per-mount ro)", target);
      return true;
    }
  snprintf (a->how, sizeof a->how, "its mount %s is read-write", target);
  return false;
}

/* Reach PATH (named WHERE in the configuration) and decide whether it is
   protected.  On success A holds both descriptors and A->how; on failure
   A->reason and A->remedy say why and what to do. */
static bool
asset_check (struct assets_run *run, const char *where, const char *path, struct asset *a)
{
  cleanup_error kg_error_t err = NULL;
  char imm[160];
  int flags = 0;

  /* Field by field: the texts are tens of kilobytes (see tally_init). */
  a->fd = a->rfd = -1;
  memset (&a->info, 0, sizeof a->info);
  a->prot = PROT_NONE;
  a->name[0] = a->how[0] = a->reason[0] = a->remedy[0] = '\0';
  snprintf (a->name, sizeof a->name, "%s", path);
  if (path[0] != '/')
    {
      /* Kata's build fills in @NAME@ placeholders; one it left (4.1.0's
         nvidia firmware_volume) names no file at all. */
      bool placeholder = path[0] == '@' && strlen (path) > 1 && path[strlen (path) - 1] == '@';

      snprintf (a->reason, sizeof a->reason, "%s %s is not an absolute path%s", where, path,
                placeholder ? " (a placeholder Kata's build left unfilled)" : "");
      snprintf (a->remedy, sizeof a->remedy, "write the absolute path in %s%s", where,
                placeholder ? ", or \"\" where Kata allows no file (a config.d drop-in)" : "");
      return false;
    }
  a->fd = trust_open (path, TRUST_REGULAR, &a->info, &err);
  if (a->fd < 0)
    {
      size_t len = strlen (path);

      /* The walk's message usually starts with the path already. */
      if (strncmp (err->msg, path, len) == 0 && err->msg[len] == ':')
        snprintf (a->reason, sizeof a->reason, "%s %s", where, err->msg);
      else
        snprintf (a->reason, sizeof a->reason, "%s %s: %s", where, path, err->msg);
      if (err->errnum == ENOENT || err->errnum == ENOTDIR)
        snprintf (a->remedy, sizeof a->remedy, "install the file, or correct %s", where);
      else if (err->errnum == ELOOP)
        snprintf (a->remedy, sizeof a->remedy, "remove the symlink loop on the way to %s", path);
      else
        snprintf (a->remedy, sizeof a->remedy, "%s", remedy_trust);
      return false;
    }
  if (strcmp (a->info.path, path) != 0)
    snprintf (a->name, sizeof a->name, "%s -> %s", path, a->info.path);

  /* FS_IOC_GETFLAGS needs a real descriptor; the same one serves to hash.
     The kernel reads and writes an int, whatever the macro's type says. */
  a->rfd = trust_reopen (a->fd, O_RDONLY | O_NONBLOCK | O_NOCTTY, &a->info.st, &err);
  if (a->rfd < 0)
    {
      snprintf (a->reason, sizeof a->reason, "%s %s: %s", where, a->name, err->msg);
      snprintf (a->remedy, sizeof a->remedy, "run the check as root, or make %s readable",
                a->info.path);
      return false;
    }
  if (ioctl (a->rfd, FS_IOC_GETFLAGS, &flags) == 0)
    {
      if (flags & FS_IMMUTABLE_FL)
        {
          a->prot = PROT_IMMUTABLE;
          snprintf (a->how, sizeof a->how, "immutable (chattr +i)");
          return true;
        }
      snprintf (imm, sizeof imm, "not immutable");
    }
  else if (errno == ENOTTY || errno == EOPNOTSUPP || errno == EINVAL)
    snprintf (imm, sizeof imm, "its file system has no immutable attribute");
  else
    snprintf (imm, sizeof imm, "cannot read its attributes: %s", strerror (errno));

  if (on_ro_mount (run, a))
    {
      a->prot = PROT_RO_MOUNT;
      return true;
    }
  snprintf (a->reason, sizeof a->reason,
            "%s %s is neither immutable nor on a read-only mount (%s; %s)", where, a->name, imm,
            a->how);
  snprintf (a->remedy, sizeof a->remedy, "chattr +i %s, or keep it on a read-only mount",
            a->info.path);
  return false;
}

/* ---- the files of the hypervisor table ---------------------------------- */

/* Whether the Kata configuration is there to read; if not, ID is skipped. */
static bool
kata_loaded (struct assets_run *run, const char *id)
{
  const struct kata_config *kc = run->pf->from_kata.config;

  if (kc != NULL && kc->hypervisor != NULL)
    return true;
  report_skip (run->pf->rep, id, "not run: the Kata configuration did not load");
  return false;
}

static const char *
hv_name (const struct assets_run *run)
{
  const char *hv = run->pf->from_kata.config->hypervisor_name;

  return hv != NULL ? hv : "?";
}

/* ---- several files under one id --------------------------------------- */

/* The files one id judges together (assets.extra, assets.extension,
   assets.firmware): the first failure is named, the rest counted. */
struct tally
{
  size_t n, failed, immutable, ro;
  char passed[3 * PATH_MAX + 256]; /* "WHERE NAME is HOW", the last that passed */
  char first_reason[sizeof ((struct asset *) 0)->reason];
  char first_remedy[sizeof ((struct asset *) 0)->remedy];
};

/* T empty.  Its texts are tens of kilobytes of which only the first byte
   needs to be set: zeroing all of them (= { 0 }) was most of the assets
   family's work. */
static void
tally_init (struct tally *t)
{
  t->n = t->failed = t->immutable = t->ro = 0;
  t->passed[0] = t->first_reason[0] = t->first_remedy[0] = '\0';
}

static void
tally_fail (struct tally *t, const char *reason, const char *remedy)
{
  t->n++;
  if (t->failed++ == 0)
    {
      snprintf (t->first_reason, sizeof t->first_reason, "%s", reason);
      snprintf (t->first_remedy, sizeof t->first_remedy, "%s", remedy);
    }
}

/* Check PATH, named WHERE in the configuration, into T; a file that passed
   is kept for the pins. */
static void
tally_check (struct assets_run *run, struct tally *t, const char *where, const char *path)
{
  struct asset a;

  if (asset_check (run, where, path, &a))
    {
      t->n++;
      if (a.prot == PROT_IMMUTABLE)
        t->immutable++;
      else
        t->ro++;
      snprintf (t->passed, sizeof t->passed, "%s %s is %s", where, a.name, a.how);
      asset_keep_for_pins (run, path, &a);
    }
  else
    tally_fail (t, a.reason, a.remedy);
  asset_release (&a);
}

/* Report T (at least one file) as ID; NOUN names one of its files. */
static void
tally_report (struct report *rep, const char *id, const struct tally *t, const char *noun)
{
  const char *s = t->n == 1 ? "" : "s";

  if (t->failed == 1)
    report_fail (rep, id, t->first_remedy, "%s", t->first_reason);
  else if (t->failed > 1)
    report_fail (rep, id, t->first_remedy, "%s; %zu more of the %zu %ss fail", t->first_reason,
                 t->failed - 1, t->n, noun);
  else
    report_pass (rep, id, "%zu %s%s protected (%zu immutable, %zu on read-only mounts)%s%s", t->n,
                 noun, s, t->immutable, t->ro, t->n == 1 ? ": " : "", t->n == 1 ? t->passed : "");
}

/* ---- assets.kernel, assets.image, assets.initrd ----------------------- */

static void
check_boot_asset (struct assets_run *run, const char *key)
{
  struct preflight *pf = run->pf;
  const struct toml_value *v;
  const char *hv;
  char id[32], where[128];
  struct asset a;

  snprintf (id, sizeof id, "assets.%s", key);
  if (! kata_loaded (run, id))
    return;
  hv = hv_name (run);
  snprintf (where, sizeof where, "[hypervisor.%s] %s", hv, key);
  v = toml_get (pf->from_kata.config->hypervisor, key);
  if (v != NULL && v->kind != TOML_STRING)
    {
      report_fail (pf->rep, id, "set it to the absolute path of the file",
                   "%s has type %s, not string", where, toml_kind_name (v->kind));
      return;
    }
  if (v == NULL || v->u.string[0] == '\0')
    {
      /* Kata boots a kernel it was built with when none is named, a path
         this guard cannot know: that kernel would run unchecked. */
      if (strcmp (key, "kernel") == 0)
        {
          char remedy[160];

          snprintf (remedy, sizeof remedy, "set kernel in [hypervisor.%s] to the guest kernel", hv);
          report_fail (pf->rep, id, remedy,
                       "%s is not set: Kata would boot its built-in default kernel, which "
                       "kata-guard cannot check",
                       where);
        }
      else
        report_skip (pf->rep, id, "not set in [hypervisor.%s]", hv);
      return;
    }
  if (asset_check (run, where, v->u.string, &a))
    {
      report_pass (pf->rep, id, "%s %s is %s", where, a.name, a.how);
      asset_keep_for_pins (run, v->u.string, &a);
    }
  else
    report_fail (pf->rep, id, a.remedy, "%s", a.reason);
  asset_release (&a);
}

/* ---- assets.firmware -------------------------------------------------- */

/* firmware (both runtimes; Go's qemu, clh and firecracker, runtime-rs's
   boot info) and firmware_volume (Go's qemu only: runtime-rs 4.1 ships it
   in its nvidia configurations, unrendered, and never reads it, so under
   runtime-rs it is not judged).  "" or no key means no firmware file from
   the configuration (the VMM's own default), as both runtimes read it:
   skipped. */
static void
check_firmware (struct assets_run *run)
{
  static const char *const keys[] = { "firmware", "firmware_volume" };
  size_t n_keys = run->pf->from_kata.config != NULL
                          && run->pf->from_kata.config->runtime == KATA_RUNTIME_RS
                      ? 1
                      : ARRAY_SIZE (keys);
  struct tally t;

  tally_init (&t);
  if (! kata_loaded (run, "assets.firmware"))
    return;
  for (size_t i = 0; i < n_keys; i++)
    {
      const struct toml_value *v = toml_get (run->pf->from_kata.config->hypervisor, keys[i]);
      char where[128], reason[192];

      snprintf (where, sizeof where, "[hypervisor.%s] %s", hv_name (run), keys[i]);
      if (v != NULL && v->kind != TOML_STRING)
        {
          snprintf (reason, sizeof reason, "%s has type %s, not string", where,
                    toml_kind_name (v->kind));
          tally_fail (&t, reason, "set it to the absolute path of the file");
        }
      else if (v != NULL && v->u.string[0] != '\0')
        tally_check (run, &t, where, v->u.string);
    }
  if (t.n == 0)
    report_skip (run->pf->rep, "assets.firmware", "%s not set in [hypervisor.%s]",
                 n_keys == 1 ? "firmware (runtime-rs reads no firmware_volume)"
                             : "firmware and firmware_volume",
                 hv_name (run));
  else
    tally_report (run->pf->rep, "assets.firmware", &t, "firmware file");
}

/* ---- assets.extension ------------------------------------------------- */

/* One [[hypervisor.NAME.guest_extension_images]] entry, the Ith.  Both
   runtimes attach the file at path read-only to every VM, and skip an
   entry whose path is "" (not counted here either).  verity_params lets
   the guest verify the image, but the host must still keep it from being
   rewritten: it is judged like any boot asset. */
static void
check_extension_one (struct assets_run *run, struct tally *t, size_t i, const struct toml_value *e)
{
  const struct toml_value *name = toml_get (e, "name"), *path = toml_get (e, "path");
  char where[320], reason[448];
  int n;

  n = snprintf (where, sizeof where, "[hypervisor.%s] guest_extension_images[%zu]", hv_name (run),
                i);
  if (e->kind != TOML_TABLE)
    {
      snprintf (reason, sizeof reason, "%s has type %s, not table", where,
                toml_kind_name (e->kind));
      tally_fail (t, reason, "write each extension image as a [[guest_extension_images]] table");
      return;
    }
  if (name != NULL && name->kind == TOML_STRING && n > 0 && (size_t) n < sizeof where)
    snprintf (where + n, sizeof where - (size_t) n, " (%.64s)", name->u.string);
  snprintf (where + strlen (where), sizeof where - strlen (where), " path");
  if (path != NULL && path->kind != TOML_STRING)
    {
      snprintf (reason, sizeof reason, "%s has type %s, not string", where,
                toml_kind_name (path->kind));
      tally_fail (t, reason, "set it to the absolute path of the image");
    }
  else if (path != NULL && path->u.string[0] != '\0')
    tally_check (run, t, where, path->u.string);
}

static void
check_extension (struct assets_run *run)
{
  struct report *rep = run->pf->rep;
  const struct toml_value *v;
  struct tally t;

  tally_init (&t);
  if (! kata_loaded (run, "assets.extension"))
    return;
  v = toml_get (run->pf->from_kata.config->hypervisor, "guest_extension_images");
  if (v != NULL && v->kind != TOML_ARRAY)
    {
      report_fail (rep, "assets.extension",
                   "write each extension image as a [[guest_extension_images]] table",
                   "[hypervisor.%s] guest_extension_images has type %s, not an array of tables",
                   hv_name (run), toml_kind_name (v->kind));
      return;
    }
  for (size_t i = 0; v != NULL && i < v->u.array.n; i++)
    check_extension_one (run, &t, i, v->u.array.items[i]);
  if (t.n == 0)
    report_skip (rep, "assets.extension",
                 "no guest_extension_images path set in "
                 "[hypervisor.%s]",
                 hv_name (run));
  else
    tally_report (rep, "assets.extension", &t, "extension image");
}

/* ---- assets.extra ----------------------------------------------------- */

static void
check_extra (struct assets_run *run)
{
  const struct guard_config *cfg = run->pf->cfg;
  struct tally t;

  tally_init (&t);
  if (cfg->assets.n_extra == 0)
    {
      report_skip (run->pf->rep, "assets.extra", "no files listed in [assets] extra");
      return;
    }
  for (size_t i = 0; i < cfg->assets.n_extra; i++)
    tally_check (run, &t, "[assets] extra", cfg->assets.extra[i]);
  tally_report (run->pf->rep, "assets.extra", &t, "file");
}

/* ---- assets.sha256 ---------------------------------------------------- */

/* The digest of A's file, from the cache when it is immutable and known.
   *CACHED says which. */
static int
asset_digest (struct assets_run *run, struct asset *a, char hex[SHA256_HEX_LEN + 1], bool *cached,
              kg_error_t *err)
{
  struct cache_entry key;
  struct stat before, after;
  bool keyed;
  const char *hit;

  *cached = false;
  /* Stat after the attribute was seen: the key must describe the file as
     it is while it cannot change. */
  if (fstat (a->rfd, &before) < 0)
    return kg_error (err, errno, "%s", a->name);
  keyed = a->prot == PROT_IMMUTABLE && cache_key (&before, &key);
  if (keyed)
    {
      if (! run->cache.loaded)
        cache_load (&run->cache);
      hit = cache_lookup (&run->cache, &key);
      if (hit != NULL)
        {
          memcpy (hex, hit, SHA256_HEX_LEN + 1);
          *cached = true;
          return 0;
        }
    }
  if (sha256_fd (a->rfd, &before, a->name, hex, err) < 0)
    return -1;
  if (fstat (a->rfd, &after) < 0)
    return kg_error (err, errno, "%s", a->name);
  if (after.st_size != before.st_size || after.st_mtim.tv_sec != before.st_mtim.tv_sec
      || after.st_mtim.tv_nsec != before.st_mtim.tv_nsec
      || after.st_ctim.tv_sec != before.st_ctim.tv_sec
      || after.st_ctim.tv_nsec != before.st_ctim.tv_nsec)
    return kg_error (err, 0, "%s changed while it was read", a->name);
  if (keyed)
    {
      memcpy (key.hex, hex, SHA256_HEX_LEN + 1);
      cache_add (&run->cache, &key);
    }
  return 0;
}

static void
check_pins (struct assets_run *run)
{
  const struct guard_config *cfg = run->pf->cfg;
  struct report *rep = run->pf->rep;
  size_t n = cfg->assets.n_pins, failed = 0, from_cache = 0;
  char first_reason[sizeof ((struct asset *) 0)->reason];
  char first_remedy[sizeof ((struct asset *) 0)->remedy];
  char note[PATH_MAX + 256] = "";

  if (n == 0)
    {
      report_skip (rep, "assets.sha256", "no files pinned in [assets.sha256]");
      return;
    }
  for (size_t i = 0; i < n; i++)
    {
      const struct sha256_pin *pin = &cfg->assets.pins[i];
      cleanup_error kg_error_t err = NULL;
      char hex[SHA256_HEX_LEN + 1];
      struct asset a;
      bool cached;
      bool ok = asset_take_kept (run, pin->path, &a)
                || asset_check (run, "[assets.sha256]", pin->path, &a);

      if (ok && asset_digest (run, &a, hex, &cached, &err) < 0)
        {
          ok = false;
          snprintf (a.reason, sizeof a.reason, "[assets.sha256] %s", err->msg);
          snprintf (a.remedy, sizeof a.remedy, "make %s readable and stable", a.info.path);
        }
      else if (ok && strcmp (hex, pin->hex) != 0)
        {
          ok = false;
          snprintf (a.reason, sizeof a.reason,
                    "[assets.sha256] %s has SHA-256 %s, not the pinned %s", a.name, hex, pin->hex);
          snprintf (a.remedy, sizeof a.remedy,
                    "restore the file; if it was replaced on purpose, pin its new digest: "
                    "sha256sum %s",
                    a.info.path);
        }
      else if (ok && cached)
        from_cache++;
      if (! ok && failed++ == 0)
        {
          snprintf (first_reason, sizeof first_reason, "%s", a.reason);
          snprintf (first_remedy, sizeof first_remedy, "%s", a.remedy);
        }
      asset_release (&a);
    }

  /* The cache only saves work: a cache that cannot be written costs time
     on the next start, never a verdict.  Say so, without failing. */
  if (run->cache.dirty)
    {
      cleanup_error kg_error_t err = NULL;

      free (run->pf->from_assets.cache);
      run->pf->from_assets.cache = NULL;
      if (cache_encode (&run->cache, &run->pf->from_assets.cache, &run->pf->from_assets.cache_len,
                        &err)
          < 0)
        snprintf (note, sizeof note, "; digest cache not written: %s", err->msg);
    }
  if (run->cache.ignored[0] != '\0')
    snprintf (note + strlen (note), sizeof note - strlen (note), "; digest cache ignored: %s",
              run->cache.ignored);

  if (failed == 1)
    report_fail (rep, "assets.sha256", first_remedy, "%s%s", first_reason, note);
  else if (failed > 1)
    report_fail (rep, "assets.sha256", first_remedy, "%s; %zu more of the %zu pins fail%s",
                 first_reason, failed - 1, n, note);
  else
    report_pass (rep, "assets.sha256", "%zu pinned file%s (%zu digest%s from the cache)%s", n,
                 n == 1 ? " matches" : "s match", from_cache, from_cache == 1 ? "" : "s", note);
}

void
release_assets (struct preflight *pf)
{
  free (pf->from_assets.cache);
  pf->from_assets.cache = NULL;
  pf->from_assets.cache_len = 0;
}

void
check_assets (struct preflight *pf)
{
  struct assets_run run = { .pf = pf };

  check_boot_asset (&run, "kernel");
  check_boot_asset (&run, "image");
  check_boot_asset (&run, "initrd");
  check_firmware (&run);
  check_extension (&run);
  check_extra (&run);
  check_pins (&run);
  for (size_t i = 0; i < run.n_kept; i++)
    if (run.kept[i] != NULL)
      {
        asset_release (run.kept[i]);
        free (run.kept[i]);
      }
  if (run.mounts != NULL)
    kg_mnt.unref_table (run.mounts);
  cache_release (&run.cache);
}
