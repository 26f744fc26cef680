/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * assets.*, on real files: immutable, writable, missing, behind symlinks,
 * on a read-only tmpfs (superblock ro) and a read-only bind mount
 * (per-mount ro).  The Kata hypervisor table is built by hand from a TOML
 * snippet, as the kata family would leave it in pf->from_kata.config.
 *
 * The test runs in its own mount namespace, so its mounts vanish with it;
 * immutable flags are cleared at exit.  No pin here touches the digest
 * cache (only immutable pinned files are cached; tests/assets.test owns
 * the cache).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ftw.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assets.h"
#include "check-helpers.h"
#include "checks.h"
#include "preflight.h"
#include "error.h"
#include "kata.h"
#include "request.h"
#include "sha256.h"
#include "tap.h"
#include "toml.h"

static char base[] = "/var/lib/kata-guard-test/unit-assets.XXXXXX";
static bool have_base;

static char *
at (const char *rel)
{
  static char buf[8][PATH_MAX];
  static int i;

  i = (i + 1) % 8;
  snprintf (buf[i], sizeof buf[i], "%s/%s", base, rel);
  return buf[i];
}

static void
mkfile (const char *rel, const char *content, mode_t mode)
{
  int fd = open (at (rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  size_t len = strlen (content);

  if (fd < 0 || write (fd, content, len) != (ssize_t) len)
    abort ();
  close (fd);
  if (chmod (at (rel), mode) < 0)
    abort ();
}

static int
set_immutable (const char *path, bool on)
{
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  int flags = 0, r = -1;

  if (fd < 0)
    return -1;
  if (ioctl (fd, FS_IOC_GETFLAGS, &flags) == 0)
    {
      flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
      r = ioctl (fd, FS_IOC_SETFLAGS, &flags);
    }
  close (fd);
  return r;
}

static int
cleanup_one (const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  (void) st;
  (void) ftw;
  if (type == FTW_F)
    set_immutable (path, false);
  if (type == FTW_DP || type == FTW_D)
    return rmdir (path) < 0 ? 0 : 0;
  unlink (path);
  return 0;
}

static void
cleanup (void)
{
  if (! have_base)
    return;
  /* The mounts go with the namespace; detach them now so that the walk
     below stays on the tree's own file system. */
  umount2 (at ("rofs"), MNT_DETACH);
  umount2 (at ("robind"), MNT_DETACH);
  nftw (base, cleanup_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* One run of the family against a hand-made hypervisor table (TOML text,
   or NULL for "the Kata configuration did not load"). */
struct run
{
  struct report rep;
  struct guard_config cfg;
  struct toml_value *doc;
  struct kata_config kata;
};

static void
run_assets (struct run *r, const char *hv_toml, char **extra, size_t n_extra,
            struct sha256_pin *pins, size_t n_pins)
{
  static const struct request req = { .mode = KG_MODE_CHECK };
  struct preflight pf;
  kg_error_t err = NULL;

  memset (r, 0, sizeof *r);
  r->cfg.assets.extra = extra;
  r->cfg.assets.n_extra = n_extra;
  r->cfg.assets.pins = pins;
  r->cfg.assets.n_pins = n_pins;
  preflight_init (&pf, &req, &r->cfg, &r->rep);
  if (hv_toml != NULL)
    {
      r->doc = toml_parse ("test", hv_toml, strlen (hv_toml), &err);
      if (r->doc == NULL)
        {
          printf ("# %s\n", err->msg);
          abort ();
        }
      r->kata.doc = r->doc;
      r->kata.hypervisor_name = "firecracker";
      r->kata.hypervisor = toml_get_path (r->doc, "hypervisor", "firecracker", NULL);
      if (r->kata.hypervisor == NULL)
        abort ();
      pf.from_kata.config = &r->kata;
    }
  check_assets (&pf);
  pf.from_kata.config = NULL; /* ours, not preflight_release's */
  preflight_release (&pf);
}

static void
run_release (struct run *r)
{
  toml_free (r->doc);
  report_release (&r->rep);
}

static const char *
remedy_of (const struct run *r, const char *id)
{
  const struct check_result *c = report_find (&r->rep, id);

  return c ? c->remedy : NULL;
}

static char *
hv (const char *kernel, const char *image, const char *initrd)
{
  static char buf[4 * PATH_MAX];
  size_t n = (size_t) snprintf (buf, sizeof buf, "[hypervisor.firecracker]\n");

  if (kernel)
    n += (size_t) snprintf (buf + n, sizeof buf - n, "kernel = \"%s\"\n", kernel);
  if (image)
    n += (size_t) snprintf (buf + n, sizeof buf - n, "image = \"%s\"\n", image);
  if (initrd)
    snprintf (buf + n, sizeof buf - n, "initrd = \"%s\"\n", initrd);
  return buf;
}

/* The firmware keys and up to two extension images (named e0, e1) beside
   an immutable kernel; NULL leaves a key out. */
static char *
hv_fw (const char *firmware, const char *volume, const char *ext0, const char *ext1)
{
  static char buf[6 * PATH_MAX];
  const char *ext[] = { ext0, ext1 };
  size_t n = (size_t) snprintf (buf, sizeof buf, "[hypervisor.firecracker]\nkernel = \"%s\"\n",
                                at ("vmlinux"));

  if (firmware)
    n += (size_t) snprintf (buf + n, sizeof buf - n, "firmware = \"%s\"\n", firmware);
  if (volume)
    n += (size_t) snprintf (buf + n, sizeof buf - n, "firmware_volume = \"%s\"\n", volume);
  for (size_t i = 0; i < 2; i++)
    if (ext[i])
      n += (size_t) snprintf (buf + n, sizeof buf - n,
                              "[[hypervisor.firecracker.guest_extension_images]]\n"
                              "name = \"e%zu\"\npath = \"%s\"\nverity_params = \"\"\n",
                              i, ext[i]);
  return buf;
}

static size_t
count_id (const struct run *r, const char *prefix)
{
  size_t n = 0;

  for (size_t i = 0; i < r->rep.n; i++)
    if (strncmp (r->rep.results[i].id, prefix, strlen (prefix)) == 0)
      n++;
  return n;
}

/* printf 'ro\n' | sha256sum */
#define SHA_RO "ecd8a0e06e165df468fc47920cf65f056c5aa5a38e1aedb182e6ecdc8bb764fd"

/* ---- the checker's digest cache, as its parent takes it ---------------- */

#define CACHE_HEAD "kata-guard sha256 cache 1\n"
#define WRONG_HEX "0000000000000000000000000000000000000000000000000000000000000000"

/* The cache line for REL as it is now, with digest HEX; CTIME_SKEW moves
   its ctime nanoseconds. */
static char *
cache_line (const char *rel, const char *hex, unsigned ctime_skew)
{
  static char line[512];
  struct stat st;

  if (stat (at (rel), &st) < 0)
    abort ();
  snprintf (line, sizeof line, "%ju %ju %jd %jd %ld %jd %ld %s\n", (uintmax_t) st.st_dev,
            (uintmax_t) st.st_ino, (intmax_t) st.st_size, (intmax_t) st.st_mtim.tv_sec,
            st.st_mtim.tv_nsec, (intmax_t) st.st_ctim.tv_sec,
            (st.st_ctim.tv_nsec + ctime_skew) % 1000000000, hex);
  return line;
}

/* What the parent keeps of a cache of one LINE (NULL: none). */
static void
vet (const struct guard_config *cfg, const char *line, bool kept, const char *name)
{
  char text[1024];
  char *out = NULL;
  size_t out_len = 0, dropped = 9;
  kg_error_t err = NULL;
  int rc;

  snprintf (text, sizeof text, "%s%s", CACHE_HEAD, line);
  rc = assets_cache_vet (cfg, text, strlen (text), &out, &out_len, &dropped, &err);
  ok (rc == 0, "%s: a valid cache (%s)", name, err ? err->msg : "ok");
  if (kept)
    ok (out != NULL && strcmp (out, text) == 0 && dropped == 0, "%s: the entry is written", name);
  else
    ok (out != NULL && strcmp (out, CACHE_HEAD) == 0 && dropped == 1, "%s: the entry is dropped",
        name);
  free (out);
  kg_error_release (&err);
}

static void
test_cache_vet (void)
{
  struct guard_config cfg;
  struct sha256_pin pin;
  char hex[SHA256_HEX_LEN + 1], other[SHA256_HEX_LEN + 1];
  char *out = NULL;
  size_t out_len, dropped;
  kg_error_t err = NULL;
  struct stat st;
  int fd;

  mkfile ("cached", "cached\n", 0644);
  mkfile ("cached-writable", "cached-writable\n", 0644);
  if (set_immutable (at ("cached"), true) < 0)
    abort ();
  fd = open (at ("cached"), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) < 0 || sha256_fd (fd, &st, "cached", hex, &err) < 0)
    abort ();
  close (fd);
  fd = open (at ("cached-writable"), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) < 0 || sha256_fd (fd, &st, "cached-writable", other, &err) < 0)
    abort ();
  close (fd);
  memset (&cfg, 0, sizeof cfg);
  pin.path = at ("cached");
  pin.hex = hex;
  cfg.assets.pins = &pin;
  cfg.assets.n_pins = 1;

  vet (&cfg, cache_line ("cached", hex, 0), true, "a pinned immutable file's true digest");
  vet (&cfg, cache_line ("cached", WRONG_HEX, 0), false,
       "a pinned file with a digest it does not have");
  vet (&cfg, cache_line ("cached", hex, 1), false,
       "a pinned file's digest under a key it does not have");
  vet (&cfg, cache_line ("vmlinux", WRONG_HEX, 0), false, "a file nothing pins");
  pin.path = at ("cached-writable");
  pin.hex = other;
  vet (&cfg, cache_line ("cached-writable", other, 0), false,
       "a pinned file that is not immutable (its digest can change under the key)");
  pin.path = at ("cached");
  pin.hex = hex;

  ok (assets_cache_vet (&cfg, CACHE_HEAD "1 2 3\n", strlen (CACHE_HEAD "1 2 3\n"), &out, &out_len,
                        &dropped, &err)
              < 0
          && out == NULL,
      "a cache that does not parse is refused whole");
  has_str (err ? err->msg : "", "not a valid cache", "... and says why");
  kg_error_release (&err);
}

int
main (void)
{
  struct run r;
  bool mounts = false;
  char *extra[4];
  struct sha256_pin pins[2];

  if (geteuid () != 0)
    tap_skip_all ("needs root: the files must be root-owned, immutable, on mounts");
  mkdir ("/var/lib/kata-guard-test", 0755);
  if (chmod ("/var/lib/kata-guard-test", 0755) < 0 || mkdtemp (base) == NULL
      || chmod (base, 0755) < 0)
    abort ();
  have_base = true;
  atexit (cleanup);
  umask (022);

  mkfile ("vmlinux", "kernel\n", 0644);
  mkfile ("image", "image\n", 0644);
  mkfile ("writable", "writable\n", 0644);
  if (symlink ("vmlinux", at ("vmlinux.link")) < 0)
    abort ();
  if (set_immutable (at ("vmlinux"), true) < 0)
    {
      char why[128];

      /* EPERM: without CAP_LINUX_IMMUTABLE over the file system (root in
         a user namespace); ENOTTY, EOPNOTSUPP: a file system without it. */
      snprintf (why, sizeof why, "cannot make a file immutable (chattr +i) here: %s",
                strerror (errno));
      tap_skip_all (why);
    }

  /* A private mount namespace: a read-only tmpfs, and a read-only bind
     mount of a directory of the tree. */
  if (mkdir (at ("rofs"), 0755) < 0 || mkdir (at ("robind"), 0755) < 0
      || mkdir (at ("src"), 0755) < 0)
    abort ();
  mkfile ("src/initrd", "initrd\n", 0644);
  if (unshare (CLONE_NEWNS) == 0 && mount ("none", "/", "", MS_REC | MS_PRIVATE, NULL) == 0
      && mount ("tmpfs", at ("rofs"), "tmpfs", 0, "size=64k,mode=0755") == 0)
    {
      mkfile ("rofs/kernel", "ro\n", 0644);
      mounts = mount ("none", at ("rofs"), "", MS_REMOUNT | MS_RDONLY, NULL) == 0
               && mount (at ("src"), at ("robind"), "", MS_BIND, NULL) == 0
               && mount ("none", at ("robind"), "", MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0;
    }

  /* 1. immutable kernel, writable image, no initrd. */
  run_assets (&r, hv (at ("vmlinux"), at ("writable"), NULL), NULL, 0, NULL, 0);
  is_int (report_verdict (&r.rep, "assets.kernel"), VERDICT_PASS, "an immutable kernel passes");
  has_str (report_reason (&r.rep, "assets.kernel"), "immutable (chattr +i)", "... and says how");
  has_str (report_reason (&r.rep, "assets.kernel"), "[hypervisor.firecracker] kernel",
           "... and which key");
  is_int (report_verdict (&r.rep, "assets.image"), VERDICT_FAIL, "a writable image fails");
  has_str (report_reason (&r.rep, "assets.image"), "neither immutable nor on a read-only mount",
           "... as unprotected");
  has_str (report_reason (&r.rep, "assets.image"), at ("writable"), "... naming the path");
  {
    char want[PATH_MAX + 16];

    snprintf (want, sizeof want, "chattr +i %s", at ("writable"));
    has_str (remedy_of (&r, "assets.image"), want, "... and the remedy is chattr +i PATH");
  }
  is_int (report_verdict (&r.rep, "assets.initrd"), VERDICT_SKIP, "an unset initrd is skipped");
  is_str (report_reason (&r.rep, "assets.initrd"), "not set in [hypervisor.firecracker]",
          "... saying where it is not set");
  is_int (report_verdict (&r.rep, "assets.extra"), VERDICT_SKIP, "no extra files: skip");
  is_int (report_verdict (&r.rep, "assets.sha256"), VERDICT_SKIP, "no pins: skip");
  is_int (report_verdict (&r.rep, "assets.firmware"), VERDICT_SKIP, "no firmware: skip");
  is_str (report_reason (&r.rep, "assets.firmware"),
          "firmware and firmware_volume not set in [hypervisor.firecracker]", "... saying where");
  is_int (report_verdict (&r.rep, "assets.extension"), VERDICT_SKIP, "no extension images: skip");
  is_int (count_id (&r, "assets."), 7, "one result per id");
  run_release (&r);

  /* 2. through a symlink; an empty image; a missing initrd. */
  run_assets (&r, hv (at ("vmlinux.link"), "", at ("missing")), NULL, 0, NULL, 0);
  is_int (report_verdict (&r.rep, "assets.kernel"), VERDICT_PASS,
          "a kernel reached through a symlink passes");
  {
    char want[2 * PATH_MAX + 8];

    snprintf (want, sizeof want, "%s -> %s", at ("vmlinux.link"), at ("vmlinux"));
    has_str (report_reason (&r.rep, "assets.kernel"), want, "... naming the resolved path");
  }
  is_int (report_verdict (&r.rep, "assets.image"), VERDICT_SKIP, "an empty image is skipped");
  is_int (report_verdict (&r.rep, "assets.initrd"), VERDICT_FAIL, "a missing initrd fails");
  has_str (report_reason (&r.rep, "assets.initrd"), "No such file or directory", "... as missing");
  has_str (remedy_of (&r, "assets.initrd"), "install the file", "... with a remedy");
  run_release (&r);

  /* 3. no kernel key: Kata would boot its built-in default. */
  run_assets (&r, "[hypervisor.firecracker]\nimage = 3\ninitrd = \"relative/initrd\"\n", NULL, 0,
              NULL, 0);
  is_int (report_verdict (&r.rep, "assets.kernel"), VERDICT_FAIL, "an unset kernel fails");
  has_str (report_reason (&r.rep, "assets.kernel"), "built-in default kernel", "... saying why");
  is_int (report_verdict (&r.rep, "assets.image"), VERDICT_FAIL,
          "an image that is not a string fails");
  has_str (report_reason (&r.rep, "assets.image"), "has type integer, not string", "... saying so");
  is_int (report_verdict (&r.rep, "assets.initrd"), VERDICT_FAIL, "a relative initrd fails");
  has_str (report_reason (&r.rep, "assets.initrd"), "not an absolute path", "... saying so");
  run_release (&r);

  /* 4. the Kata configuration did not load: skip the hypervisor files,
     still check the extra ones. */
  extra[0] = at ("vmlinux");
  extra[1] = at ("vmlinux.link");
  run_assets (&r, NULL, extra, 2, NULL, 0);
  is_str (report_reason (&r.rep, "assets.kernel"), "not run: the Kata configuration did not load",
          "no Kata configuration: kernel not run");
  is_int (report_verdict (&r.rep, "assets.image"), VERDICT_SKIP, "... nor image");
  is_int (report_verdict (&r.rep, "assets.initrd"), VERDICT_SKIP, "... nor initrd");
  is_int (report_verdict (&r.rep, "assets.firmware"), VERDICT_SKIP, "... nor firmware");
  is_int (report_verdict (&r.rep, "assets.extension"), VERDICT_SKIP, "... nor extension images");
  is_int (report_verdict (&r.rep, "assets.extra"), VERDICT_PASS,
          "... but the extra files are checked");
  has_str (report_reason (&r.rep, "assets.extra"), "2 files protected", "... and counted");
  run_release (&r);

  /* 5. extra: the first failure is named, the rest counted. */
  extra[0] = at ("vmlinux");
  extra[1] = at ("writable");
  extra[2] = at ("missing");
  extra[3] = at ("image");
  run_assets (&r, NULL, extra, 4, NULL, 0);
  is_int (report_verdict (&r.rep, "assets.extra"), VERDICT_FAIL,
          "extra with unprotected files fails");
  has_str (report_reason (&r.rep, "assets.extra"), at ("writable"),
           "... naming the first failing file");
  has_str (report_reason (&r.rep, "assets.extra"), "2 more of the 4 files fail",
           "... counting the rest");
  run_release (&r);

  /* 5b. guest extension images and firmware, judged like the kernel. */
  run_assets (&r, hv_fw (at ("vmlinux"), NULL, at ("vmlinux.link"), NULL), NULL, 0, NULL, 0);
  is_int (report_verdict (&r.rep, "assets.extension"), VERDICT_PASS,
          "an immutable extension image through a trusted symlink passes");
  has_str (report_reason (&r.rep, "assets.extension"),
           "[hypervisor.firecracker] guest_extension_images[0] (e0) path", "... naming the entry");
  has_str (report_reason (&r.rep, "assets.extension"), "immutable (chattr +i)", "... and how");
  is_int (report_verdict (&r.rep, "assets.firmware"), VERDICT_PASS, "an immutable firmware passes");
  has_str (report_reason (&r.rep, "assets.firmware"), "[hypervisor.firecracker] firmware ",
           "... naming the key");
  is_int (count_id (&r, "assets."), 7, "... one result per id");
  run_release (&r);

  run_assets (&r, hv_fw (at ("writable"), "", at ("vmlinux"), at ("writable")), NULL, 0, NULL, 0);
  is_int (report_verdict (&r.rep, "assets.extension"), VERDICT_FAIL,
          "a writable extension image fails");
  has_str (report_reason (&r.rep, "assets.extension"), "guest_extension_images[1] (e1) path",
           "... naming the entry");
  has_str (report_reason (&r.rep, "assets.extension"), "neither immutable nor on a read-only mount",
           "... as unprotected");
  {
    char want[PATH_MAX + 16];

    snprintf (want, sizeof want, "chattr +i %s", at ("writable"));
    has_str (remedy_of (&r, "assets.extension"), want, "... the remedy is chattr +i PATH");
    is_int (report_verdict (&r.rep, "assets.firmware"), VERDICT_FAIL, "a writable firmware fails");
    has_str (remedy_of (&r, "assets.firmware"), want, "... the remedy is chattr +i PATH");
  }
  run_release (&r);

  if (mkdir (at ("open"), 0755) < 0 || chmod (at ("open"), 0777) < 0
      || symlink (at ("vmlinux"), at ("open/link")) < 0)
    abort ();
  run_assets (&r, hv_fw ("", at ("open/link"), at ("open/link"), ""), NULL, 0, NULL, 0);
  is_int (report_verdict (&r.rep, "assets.extension"), VERDICT_FAIL,
          "an immutable extension image behind a symlink in a world-writable directory fails");
  has_str (report_reason (&r.rep, "assets.extension"), "writable by others", "... saying why");
  is_int (report_verdict (&r.rep, "assets.firmware"), VERDICT_FAIL,
          "a firmware_volume behind the same symlink fails");
  has_str (report_reason (&r.rep, "assets.firmware"), "[hypervisor.firecracker] firmware_volume",
           "... naming the key");
  run_release (&r);

  /* Kata 4.1.0's nvidia runtime-rs configuration ships this value. */
  run_assets (&r, hv_fw ("", "@FIRMWAREVOLUMEPATH_NV@", "", NULL), NULL, 0, NULL, 0);
  is_int (report_verdict (&r.rep, "assets.firmware"), VERDICT_FAIL,
          "an unrendered firmware_volume placeholder fails");
  has_str (report_reason (&r.rep, "assets.firmware"),
           "firmware_volume @FIRMWAREVOLUMEPATH_NV@ is not an absolute path (a placeholder",
           "... saying it is not a path");
  is_int (report_verdict (&r.rep, "assets.extension"), VERDICT_SKIP,
          "an extension image whose path is \"\" is skipped (Kata attaches none)");
  run_release (&r);

  run_assets (&r, "[hypervisor.firecracker]\nfirmware = 1\nguest_extension_images = \"x\"\n", NULL,
              0, NULL, 0);
  has_str (report_reason (&r.rep, "assets.firmware"), "firmware has type integer, not string",
           "a firmware that is not a string fails");
  has_str (report_reason (&r.rep, "assets.extension"),
           "guest_extension_images has type string, not an array of tables",
           "guest_extension_images that is no array fails");
  run_release (&r);
  run_assets (&r, "[hypervisor.firecracker]\nguest_extension_images = [1]\n", NULL, 0, NULL, 0);
  has_str (report_reason (&r.rep, "assets.extension"), "[0] has type integer, not table",
           "an extension entry that is no table fails");
  run_release (&r);

  /* 6. read-only mounts. */
  if (mounts)
    {
      char sum[65];

      run_assets (&r, hv (at ("rofs/kernel"), at ("robind/initrd"), NULL), NULL, 0, NULL, 0);
      is_int (report_verdict (&r.rep, "assets.kernel"), VERDICT_PASS,
              "a kernel on a read-only tmpfs passes");
      has_str (report_reason (&r.rep, "assets.kernel"), "(superblock ro)", "... as superblock ro");
      has_str (report_reason (&r.rep, "assets.kernel"), at ("rofs"), "... naming the mount");
      is_int (report_verdict (&r.rep, "assets.image"), VERDICT_PASS,
              "an image on a read-only bind mount passes");
      has_str (report_reason (&r.rep, "assets.image"), "(per-mount ro)", "... as per-mount ro");
      run_release (&r);

      /* The same file through its writable path is not protected. */
      run_assets (&r, hv (at ("src/initrd"), NULL, NULL), NULL, 0, NULL, 0);
      is_int (report_verdict (&r.rep, "assets.kernel"), VERDICT_FAIL,
              "the bind-mounted file through its writable path fails");
      has_str (report_reason (&r.rep, "assets.kernel"), "is read-write",
               "... its mount is read-write");
      run_release (&r);

      /* Pins on read-only files (never cached): right, then wrong. */
      snprintf (sum, sizeof sum, "%s", SHA_RO);
      pins[0].path = at ("rofs/kernel");
      pins[0].hex = sum;
      run_assets (&r, NULL, NULL, 0, pins, 1);
      is_int (report_verdict (&r.rep, "assets.sha256"), VERDICT_PASS, "a right pin passes");
      has_str (report_reason (&r.rep, "assets.sha256"),
               "1 pinned file matches (0 digests from the cache)",
               "... and was hashed, not cached");
      run_release (&r);
      sum[0] = sum[0] == '0' ? '1' : '0';
      pins[1].path = at ("writable");
      pins[1].hex = sum;
      run_assets (&r, NULL, NULL, 0, pins, 2);
      is_int (report_verdict (&r.rep, "assets.sha256"), VERDICT_FAIL, "a wrong pin fails");
      has_str (report_reason (&r.rep, "assets.sha256"), "has SHA-256 " SHA_RO ", not the pinned",
               "... naming both digests");
      has_str (report_reason (&r.rep, "assets.sha256"), "1 more of the 2 pins fail",
               "... and an unprotected pinned file fails too");
      has_str (remedy_of (&r, "assets.sha256"), "sha256sum", "... with a remedy");
      run_release (&r);

      /* Extension images and firmware on read-only mounts, pinned: the
         pins take them over, right, then wrong. */
      snprintf (sum, sizeof sum, "%s", SHA_RO);
      pins[0].path = at ("rofs/kernel");
      pins[0].hex = sum;
      run_assets (&r, hv_fw (at ("robind/initrd"), NULL, at ("rofs/kernel"), NULL), NULL, 0, pins,
                  1);
      is_int (report_verdict (&r.rep, "assets.extension"), VERDICT_PASS,
              "an extension image on a read-only tmpfs passes");
      has_str (report_reason (&r.rep, "assets.extension"), "(superblock ro)",
               "... as superblock ro");
      is_int (report_verdict (&r.rep, "assets.firmware"), VERDICT_PASS,
              "a firmware on a read-only bind mount passes");
      is_int (report_verdict (&r.rep, "assets.sha256"), VERDICT_PASS,
              "... the extension's right pin passes");
      run_release (&r);
      sum[0] = sum[0] == '0' ? '1' : '0';
      run_assets (&r, hv_fw (NULL, NULL, at ("rofs/kernel"), NULL), NULL, 0, pins, 1);
      has_str (report_reason (&r.rep, "assets.sha256"), "has SHA-256 " SHA_RO ", not the pinned",
               "pinned extension image: a wrong pin fails");
      run_release (&r);
      run_assets (&r, hv_fw (NULL, NULL, at ("src/initrd"), NULL), NULL, 0, NULL, 0);
      has_str (report_reason (&r.rep, "assets.extension"), "is read-write",
               "an extension image through its writable path fails");
      run_release (&r);

      /* A pinned boot asset, listed in extra too: the pin takes over the
         descriptors of the file that passed, with the same verdicts. */
      {
        char *extra_kernel[] = { at ("rofs/kernel") };

        snprintf (sum, sizeof sum, "%s", SHA_RO);
        pins[0].path = at ("rofs/kernel");
        run_assets (&r, hv (at ("rofs/kernel"), NULL, NULL), extra_kernel, 1, pins, 1);
        is_int (report_verdict (&r.rep, "assets.kernel"), VERDICT_PASS,
                "pinned boot asset: kernel passes");
        is_int (report_verdict (&r.rep, "assets.extra"), VERDICT_PASS, "... and as an extra file");
        is_int (report_verdict (&r.rep, "assets.sha256"), VERDICT_PASS,
                "... and its right pin passes");
        run_release (&r);
        sum[0] = sum[0] == '0' ? '1' : '0';
        run_assets (&r, hv (at ("rofs/kernel"), NULL, NULL), extra_kernel, 1, pins, 1);
        has_str (report_reason (&r.rep, "assets.sha256"), "has SHA-256 " SHA_RO ", not the pinned",
                 "pinned boot asset: a wrong pin fails");
        run_release (&r);
        /* A boot asset that failed is not handed on: the pin checks the
           file itself, and fails on its own account. */
        pins[0].path = at ("src/initrd");
        run_assets (&r, hv (at ("src/initrd"), NULL, NULL), NULL, 0, pins, 1);
        is_int (report_verdict (&r.rep, "assets.kernel"), VERDICT_FAIL,
                "an unprotected pinned kernel fails");
        has_str (report_reason (&r.rep, "assets.sha256"), "[assets.sha256] ",
                 "... and its pin fails with its own reason");
        has_str (report_reason (&r.rep, "assets.sha256"),
                 "neither immutable nor on a read-only mount", "... the same protection check");
        run_release (&r);
      }
    }
  else
    for (int i = 0; i < 26; i++)
      printf ("ok %d # SKIP no private mount namespace\n", ++tap_count);

  test_cache_vet ();
  return tap_done ();
}
