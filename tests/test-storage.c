/* SPDX-License-Identifier: GPL-2.0-or-later */
/* storage.*: the thin pool's status line and its verdict, the engines'
   snapshotter as Docker and containerd read their files, and the family
   on firecracker and qemu Kata configurations (fixtures/storage/README.md
   says where every input comes from). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "buf.h"
#include "check-helpers.h"
#include "checks.h"
#include "preflight.h"
#include "cleanup.h"
#include "conf.h"
#include "error.h"
#include "fdio.h"
#include "kata.h"
#include "request.h"
#include "storage.h"
#include "tap.h"
#include "test-files.h"
#include "toml.h"

static const char *fixtures;
static char tmpdir[] = "/tmp/kg-test-storage.XXXXXX";

/* ---- the status line -------------------------------------------------- */

/* Real `dmsetup status` lines of thin pools, the params after
   "START LENGTH thin-pool " verbatim (fixtures/storage/README.md). */
/* Docker's devicemapper documentation: Linux 4.2 to 4.18, 8 fields. */
#define L_DOCKER_DOCS "91 422/524288 18338/1638400 - rw discard_passdown queue_if_no_space -"
/* A Docker devicemapper host, Linux 3.14 to 4.1, 7 fields. */
#define L_DOCKER_314 "339 876/524288 32432/1638400 - rw discard_passdown queue_if_no_space"
/* CentOS 6 (2.6.32-431), trailing space as dmsetup printed it: 66% data. */
#define L_CENTOS "32 542/262144 43775/65536 - rw discard_passdown queue_if_no_space "
/* Fedora Atomic, a read-only pool, trailing space. */
#define L_ATOMIC_RO "3 224/524288 8633/1638400 - ro discard_passdown queue_if_no_space "
/* The kernel's fail mode, the single word. */
#define L_FAIL "Fail"

static void
test_parse (void)
{
  struct thin_pool_status s;
  kg_error_t err = NULL;

  ok (storage_thin_pool_parse (L_DOCKER_DOCS, &s, &err) == 0 && s.fields == 8
          && s.transaction_id == 91 && s.used_meta == 422 && s.total_meta == 524288
          && s.used_data == 18338 && s.total_data == 1638400 && s.mode == THIN_POOL_RW
          && ! s.needs_check && ! s.failed,
      "Docker's documented line (Linux 4.2-4.18): 8 fields read");
  ok (storage_thin_pool_parse (L_DOCKER_314, &s, &err) == 0 && s.fields == 7
          && s.mode == THIN_POOL_RW && s.used_data == 32432,
      "Linux 3.14-4.1's line: 7 fields, no needs_check");
  ok (storage_thin_pool_parse (L_CENTOS, &s, &err) == 0 && s.fields == 7 && s.used_data == 43775
          && s.total_data == 65536,
      "CentOS 6's line with its trailing space");
  ok (storage_thin_pool_parse (L_ATOMIC_RO, &s, &err) == 0 && s.mode == THIN_POOL_RO,
      "Fedora Atomic's read-only pool: ro");
  ok (storage_thin_pool_parse (L_FAIL, &s, &err) == 0 && s.failed, "Fail: the fail mode");
  ok (storage_thin_pool_parse ("Error", &s, &err) == 0 && s.error,
      "Error: the kernel could not read the metadata");
  /* Linux 4.19+: the metadata low watermark after needs_check. */
  ok (storage_thin_pool_parse (L_DOCKER_DOCS " 1024", &s, &err) == 0 && s.fields == 9,
      "Linux 4.19+'s 9 fields (the docs' line with a low watermark)");
  ok (storage_thin_pool_parse ("91 422/524288 18338/1638400 - rw discard_passdown "
                               "queue_if_no_space needs_check",
                               &s, &err)
              == 0
          && s.needs_check,
      "needs_check in its place");
  ok (storage_thin_pool_parse ("339 876/524288 1638400/1638400 - out_of_data_space "
                               "discard_passdown error_if_no_space",
                               &s, &err)
              == 0
          && s.mode == THIN_POOL_OUT_OF_DATA_SPACE,
      "out_of_data_space with error_if_no_space");
  ok (storage_thin_pool_parse ("91 422/524288 18338/1638400 1290 rw ignore_discard "
                               "queue_if_no_space -",
                               &s, &err)
          == 0,
      "a held metadata root and ignore_discard");
  ok (storage_thin_pool_parse ("1 20/4096 0/16384 -", &s, &err) == 0 && s.fields == 4
          && s.mode == THIN_POOL_MODE_NONE,
      "the first kernels' 4 fields");

  static const char *const bad[] = {
    "",
    "x",
    "91",
    "91 422/524288",
    "91 422/524288 18338/1638400",
    "91 422/524288 18338/1638400 - rw", /* mode without the discard setting */
    "91 422/524288 18338/1638400 - out_of_data_space discard_passdown",   /* no policy */
    "91 600/524 18338/1638400 - rw discard_passdown queue_if_no_space -", /* used > total */
    "91 0/0 18338/1638400 - rw discard_passdown queue_if_no_space -",     /* total 0 */
    "99999999999999999999 422/524288 18338/1638400 - rw discard_passdown queue_if_no_space -",
    "91 422/524288 18338/1638400 - rw discard_passdown queue_if_no_space - 1024 7",
    "91 422/524288 18338/1638400 - rw discard_passdown queue_if_no_space - x",
    "91 422/524288 18338/1638400 - rw discard_passdown queue_if_no_space maybe",
    "91 422/524288 18338/1638400 - rw discard_passdown drop_if_no_space",
    "91 422/524288 18338/1638400 - rw discard queue_if_no_space",
    "91 422/524288 18338/1638400 - RW discard_passdown queue_if_no_space",
    "91 422/524288 18338/1638400 x rw discard_passdown queue_if_no_space",
    "91  422/524288 18338/1638400 - rw discard_passdown queue_if_no_space",
    "91 422/524288 18338/1638400 -  rw discard_passdown queue_if_no_space",
    "91 -422/524288 18338/1638400 - rw discard_passdown queue_if_no_space",
    "Fail now",
    " Fail",
    "0 209715200 thin-pool 91 422/524288 18338/1638400 - rw discard_passdown queue_if_no_space -",
  };
  for (size_t i = 0; i < ARRAY_SIZE (bad); i++)
    {
      int r = storage_thin_pool_parse (bad[i], &s, &err);

      ok (r < 0 && err != NULL, "refused: \"%s\"", bad[i]);
      kg_error_release (&err);
    }
}

static void
test_judge (void)
{
  struct thin_pool_status s;
  kg_error_t err = NULL;
  char why[256];

  storage_thin_pool_parse (L_DOCKER_DOCS, &s, &err);
  is_int (storage_pool_judge (&s, 90, 90, why, sizeof why), VERDICT_PASS, "a 1%% pool passes");
  has_str (why, "data 1% (18338/1638400)", "the reason has the numbers");
  storage_thin_pool_parse (L_CENTOS, &s, &err);
  is_int (storage_pool_judge (&s, 90, 90, why, sizeof why), VERDICT_PASS,
          "CentOS's 66%% pool passes at 90");
  is_int (storage_pool_judge (&s, 60, 90, why, sizeof why), VERDICT_FAIL,
          "and fails at pool_data_max_percent = 60");
  has_str (why,
           "uses 66% of its data blocks (43775/65536), over [storage] pool_data_max_percent = 60",
           "naming the key");
  is_int (storage_pool_judge (&s, 67, 90, why, sizeof why), VERDICT_PASS, "66.8%% is not over 67");
  is_int (storage_pool_judge (&s, 66, 90, why, sizeof why), VERDICT_FAIL, "66.8%% is over 66");
  storage_thin_pool_parse ("1 50/100 1/100 - rw discard_passdown queue_if_no_space -", &s, &err);
  is_int (storage_pool_judge (&s, 90, 50, why, sizeof why), VERDICT_PASS,
          "metadata exactly at the maximum passes");
  is_int (storage_pool_judge (&s, 90, 49, why, sizeof why), VERDICT_FAIL, "one over fails");
  has_str (why, "pool_metadata_max_percent = 49", "naming the metadata key");
  storage_thin_pool_parse (L_ATOMIC_RO, &s, &err);
  is_int (storage_pool_judge (&s, 100, 100, why, sizeof why), VERDICT_FAIL, "ro fails");
  has_str (why, "read-only", "saying so");
  /* Metadata full: the kernel switches the pool to ro (dm-thin's
     PM_OUT_OF_METADATA_SPACE reads as ro). */
  storage_thin_pool_parse ("3 524288/524288 8633/1638400 - ro discard_passdown "
                           "queue_if_no_space -",
                           &s, &err);
  is_int (storage_pool_judge (&s, 100, 100, why, sizeof why), VERDICT_FAIL,
          "metadata full (ro) fails");
  storage_thin_pool_parse ("339 876/524288 1638400/1638400 - out_of_data_space discard_passdown "
                           "queue_if_no_space",
                           &s, &err);
  is_int (storage_pool_judge (&s, 100, 100, why, sizeof why), VERDICT_FAIL,
          "out of data space fails");
  has_str (why, "out of data space", "saying so");
  storage_thin_pool_parse ("91 422/524288 18338/1638400 - rw discard_passdown "
                           "queue_if_no_space needs_check 1024",
                           &s, &err);
  is_int (storage_pool_judge (&s, 90, 90, why, sizeof why), VERDICT_FAIL, "needs_check fails");
  has_str (why, "needs_check", "saying so");
  storage_thin_pool_parse (L_FAIL, &s, &err);
  is_int (storage_pool_judge (&s, 100, 100, why, sizeof why), VERDICT_FAIL, "Fail fails");
  storage_thin_pool_parse ("Error", &s, &err);
  is_int (storage_pool_judge (&s, 100, 100, why, sizeof why), VERDICT_FAIL, "Error fails");
}

/* ---- files ---------------------------------------------------------------- */

static char *
fixture (const char *name)
{
  char *p;

  if (asprintf (&p, "%s/storage/%s", fixtures, name) < 0)
    abort ();
  return p;
}

/* DATA with every FROM replaced by TO (DATA freed). */
static char *
replace_all (char *data, const char *from, const char *to)
{
  struct kg_buf sb = { 0 };
  char *p, *hit, *res;

  for (p = data; from != NULL && (hit = strstr (p, from)) != NULL; p = hit + strlen (from))
    sb_printf (&sb, "%.*s%s", (int) (hit - p), p, to);
  sb_printf (&sb, "%s", p);
  if ((res = strdup (sb_str (&sb))) == NULL)
    abort ();
  kg_buf_release (&sb);
  free (data);
  return res;
}

/* The fixture NAME with every FROM replaced by TO and every FROM2 by TO2,
   APPEND added, written as OUT. */
static char *
variant2 (const char *name, const char *from, const char *to, const char *from2, const char *to2,
          const char *out, const char *append)
{
  cleanup_free char *path = fixture (name), *data = NULL, *all = NULL;
  kg_error_t err = NULL;
  size_t len;

  if (kg_read_file_bounded (path, 0, 1 << 20, &data, &len, &err) < 0)
    abort ();
  data = replace_all (replace_all (data, from, to), from2, to2);
  if (asprintf (&all, "%s%s", data, append ? append : "") < 0)
    abort ();
  return test_write_in (tmpdir, out, all);
}

/* The fixture NAME with every FROM replaced by TO, written as OUT. */
static char *
variant (const char *name, const char *from, const char *to, const char *out, const char *append)
{
  return variant2 (name, from, to, NULL, NULL, out, append);
}

static void
test_docker (void)
{
  static const struct
  {
    const char *file;
    bool store;
    const char *driver;
    bool set;
  } rows[] = {
    { "docker-overlay2.json", false, "overlay2", true },
    { "docker-snapshotter-devmapper.json", true, "devmapper", true },
    { "docker-snapshotter-overlayfs.json", true, "overlayfs", true },
    { "docker-snapshotter-default.json", true, "overlayfs", false },
    { "docker-graphdriver-devmapper.json", false, "devmapper", true },
    { "docker-devicemapper.json", false, "devicemapper", true },
  };
  struct docker_storage d;
  kg_error_t err = NULL;

  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      cleanup_free char *p = fixture (rows[i].file);

      ok (storage_docker_read (p, &d, &err) == 0 && d.exists && d.containerd_store == rows[i].store
              && strcmp (d.driver, rows[i].driver) == 0 && d.driver_set == rows[i].set,
          "%s: %s %s", rows[i].file, rows[i].store ? "containerd store" : "graphdriver",
          rows[i].driver);
      kg_error_release (&err);
    }
  ok (storage_docker_read ("/nonexistent/daemon.json", &d, &err) == 0 && ! d.exists
          && strcmp (d.driver, "overlay2") == 0,
      "no daemon.json: Docker's default graphdriver overlay2");
  {
    cleanup_free char *p = fixture ("docker-malformed.json");

    ok (storage_docker_read (p, &d, &err) < 0, "a trailing comma: refused as dockerd refuses it");
    kg_error_release (&err);
  }
  {
    cleanup_free char *p = fixture ("docker-features-string.json");

    ok (storage_docker_read (p, &d, &err) < 0 && strstr (err->msg, "not a boolean") != NULL,
        "containerd-snapshotter \"true\": not a boolean, as dockerd says");
    kg_error_release (&err);
  }
  {
    cleanup_free char *p = test_write_in (tmpdir, "sd.json", "{\"storage-driver\": 7}");

    ok (storage_docker_read (p, &d, &err) < 0, "storage-driver 7: refused");
    kg_error_release (&err);
  }
  {
    cleanup_free char *p = test_write_in (tmpdir, "ft.json", "{\"features\": []}");

    ok (storage_docker_read (p, &d, &err) < 0, "features []: refused");
    kg_error_release (&err);
  }
  {
    cleanup_free char *p = test_write_in (tmpdir, "empty.json", "{\"storage-driver\": \"\"}");

    ok (storage_docker_read (p, &d, &err) == 0 && ! d.driver_set
            && strcmp (d.driver, "overlay2") == 0,
        "storage-driver \"\": the default");
  }
}

/* A kata-guard handler for containerd's v2 (1.6/1.7) and v3 (2.x) configs. */
#define V2_GUARD_HANDLER                                                                           \
  "\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.kata-guard]\n"                     \
  "  runtime_type = \"io.containerd.kata-guard.v2\"\n"
#define V3_GUARD_HANDLER                                                                           \
  "\n[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.kata-guard]\n"                    \
  "  runtime_type = 'io.containerd.kata-guard.v2'\n"

static void
test_containerd (void)
{
  struct containerd_storage c;
  kg_error_t err = NULL;

  static const char *const defaults[] = { "containerd-1.6.20-default.toml",
                                          "containerd-1.7.24-default.toml",
                                          "containerd-2.1.9-default.toml" };
  static const int versions[] = { 2, 2, 3 };
  for (size_t i = 0; i < ARRAY_SIZE (defaults); i++)
    {
      cleanup_free char *p = fixture (defaults[i]);

      ok (storage_containerd_read (p, &c, &err) == 0 && c.exists && c.version == versions[i]
              && strcmp (c.snapshotter, "overlayfs") == 0 && c.n_handlers == 0 && ! c.pool_set,
          "%s (containerd config default): overlayfs, no kata-guard handler, no pool", defaults[i]);
      if (err)
        printf ("# %s\n", err->msg);
      kg_error_release (&err);
    }
  ok (storage_containerd_read ("/nonexistent/config.toml", &c, &err) == 0 && ! c.exists
          && strcmp (c.snapshotter, "overlayfs") == 0,
      "no config.toml: containerd's default overlayfs");

  /* 1.7's default with the CRI plugin on devmapper and a pool. */
  {
    cleanup_free char *p = variant ("containerd-1.7.24-default.toml",
                                    "      snapshotter = \"overlayfs\"\n",
                                    "      snapshotter = \"devmapper\"\n", "v2dm.toml", NULL);
    cleanup_free char *q = variant ("containerd-1.7.24-default.toml", "pool_name = \"\"",
                                    "pool_name = \"containerd-pool\"", "v2pool.toml", NULL);

    ok (storage_containerd_read (p, &c, &err) == 0 && strcmp (c.snapshotter, "devmapper") == 0
            && ! c.pool_set,
        "1.7, [plugins.\"io.containerd.grpc.v1.cri\".containerd] snapshotter = \"devmapper\"");
    ok (storage_containerd_read (q, &c, &err) == 0 && c.pool_set
            && strcmp (c.pool_name, "containerd-pool") == 0,
        "1.7, the devmapper plugin's pool_name");
  }
  {
    cleanup_free char *p = variant ("containerd-1.7.24-default.toml",
                                    "      snapshotter = \"overlayfs\"\n",
                                    "      snapshotter = \"blockfile\"\n", "v2bf.toml",
                                    V2_GUARD_HANDLER);

    ok (storage_containerd_read (p, &c, &err) == 0 && c.n_handlers == 1
            && strcmp (c.handlers[0].name, "kata-guard") == 0
            && strcmp (c.handlers[0].snapshotter, "blockfile") == 0 && ! c.handlers[0].own,
        "1.7, blockfile: the kata-guard handler takes the CRI plugin's");
  }
  {
    cleanup_free char *p = variant ("containerd-1.6.20-default.toml", NULL, NULL, "v16h.toml",
                                    V2_GUARD_HANDLER "  snapshotter = \"devmapper\"\n");

    ok (storage_containerd_read (p, &c, &err) == 0 && c.n_handlers == 1
            && strcmp (c.handlers[0].snapshotter, "devmapper") == 0 && c.handlers[0].own,
        "a handler's own snapshotter (read as 1.7+ reads it; 1.6 ignores it: the man page)");
  }
  /* The runc handler of the default is not judged, a guard by path is. */
  {
    cleanup_free char *p
        = variant ("containerd-2.1.9-default.toml", "          snapshotter = ''\n",
                   "          snapshotter = 'native'\n", "v3runc.toml",
                   "\n[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.kg]\n"
                   "  runtime_type = '/proc/self/exe'\n  snapshotter = 'devmapper'\n");

    ok (storage_containerd_read (p, &c, &err) == 0 && c.n_handlers == 1
            && strcmp (c.handlers[0].name, "kg") == 0
            && strcmp (c.handlers[0].snapshotter, "devmapper") == 0,
        "2.1: runc's handler is not judged; one whose runtime_type is this binary's path is");
  }
  {
    cleanup_free char *p = variant ("containerd-2.1.9-default.toml",
                                    "    snapshotter = 'overlayfs'\n",
                                    "    snapshotter = 'devmapper'\n", "v3dm.toml",
                                    V3_GUARD_HANDLER);

    ok (storage_containerd_read (p, &c, &err) == 0 && c.version == 3 && c.n_handlers == 1
            && strcmp (c.handlers[0].snapshotter, "devmapper") == 0,
        "2.1, [plugins.'io.containerd.cri.v1.images'] snapshotter = 'devmapper'");
  }
  /* Version 1 (none written): the short plugin names. */
  {
    cleanup_free char *p = test_write_in (tmpdir, "v1.toml",
                                          "[plugins.cri.containerd]\n"
                                          "  snapshotter = \"devmapper\"\n"
                                          "[plugins.devmapper]\n"
                                          "  pool_name = \"p1\"\n");

    ok (storage_containerd_read (p, &c, &err) == 0 && c.version == 1
            && strcmp (c.snapshotter, "devmapper") == 0 && strcmp (c.pool_name, "p1") == 0,
        "version 1 (no version key): plugins.cri and plugins.devmapper");
  }
  /* Imports: agreeing, disagreeing, globbed, mixed versions. */
  {
    cleanup_free char *d = NULL, *main = NULL, *drop = NULL;

    if (asprintf (&d, "%s/conf.d", tmpdir) < 0 || mkdir (d, 0755) < 0)
      abort ();
    drop = test_write_in (tmpdir, "conf.d/kata-guard.toml",
                          "version = 2\n" V2_GUARD_HANDLER "  snapshotter = \"devmapper\"\n"
                          "[plugins.\"io.containerd.snapshotter.v1.devmapper\"]\n"
                          "  pool_name = \"pool0\"\n");
    main = variant ("containerd-1.7.24-default.toml", "imports = []",
                    "imports = [\"conf.d/*.toml\"]", "imp.toml", NULL);
    ok (storage_containerd_read (main, &c, &err) == 0 && c.n_files == 2 && c.n_handlers == 1
            && strcmp (c.handlers[0].snapshotter, "devmapper") == 0
            && strcmp (c.pool_name, "pool0") == 0,
        "a globbed, relative import (the shipped drop-in's shape): its handler and pool");
    if (err)
      printf ("# %s\n", err->msg);
    kg_error_release (&err);
    free (drop);
    drop = test_write_in (tmpdir, "conf.d/kata-guard.toml", "version = 2\n" V2_GUARD_HANDLER);
    {
      /* The main file sets devmapper for the CRI plugin; the drop-in
         writes the CRI plugin's table too: 1.x takes the drop-in's whole
         (overlayfs), 2.x merges (devmapper). */
      cleanup_free char *m = test_write_in (tmpdir, "imp3.toml",
                                            "version = 2\nimports = [\"conf.d/*.toml\"]\n"
                                            "[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
                                            "  snapshotter = \"devmapper\"\n");

      ok (storage_containerd_read (m, &c, &err) < 0
              && strstr (err->msg, "differently to containerd 1.x") != NULL,
          "an import that 1.x and 2.x read differently: refused");
      kg_error_release (&err);
    }
    free (drop);
    drop = test_write_in (tmpdir, "conf.d/kata-guard.toml", "version = 3\n");
    {
      cleanup_free char *m = test_write_in (tmpdir, "imp4.toml",
                                            "version = 2\nimports = [\"conf.d/*.toml\"]\n");

      ok (storage_containerd_read (m, &c, &err) < 0 && strstr (err->msg, "a mix") != NULL,
          "a version 3 import of a version 2 file: refused");
      kg_error_release (&err);
    }
    {
      cleanup_free char *m = test_write_in (tmpdir, "imp5.toml",
                                            "version = 2\nimports = [\"/nonexistent/x.toml\"]\n");

      ok (storage_containerd_read (m, &c, &err) < 0, "an import that does not exist: refused "
                                                     "(containerd does not start either)");
      kg_error_release (&err);
    }
    {
      cleanup_free char *m = test_write_in (tmpdir, "imp6.toml",
                                            "version = 2\nimports = [\"/nonexistent/*.toml\"]\n");

      ok (storage_containerd_read (m, &c, &err) == 0 && c.n_files == 1,
          "a pattern that matches nothing: nothing imported");
      kg_error_release (&err);
    }
    unlink (drop);
    rmdir (d);
  }
  /* Refused as containerd refuses them. */
  static const char *const bad[] = {
    "version = 4\n",
    "version = \"2\"\n",
    "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  snapshotter = 3\n",
    "version = 2\n[plugins.\"io.containerd.snapshotter.v1.devmapper\"]\n  pool_name = true\n",
    "version = 2\nimports = \"conf.d\"\n",
    "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd\n",
    "version = 2\nversion = 2\n",
  };
  for (size_t i = 0; i < ARRAY_SIZE (bad); i++)
    {
      cleanup_free char *p = test_write_in (tmpdir, "bad.toml", bad[i]);

      int rc = storage_containerd_read (p, &c, &err);

      ok (rc < 0, "refused: bad config %zu (%s)", i, err ? err->msg : "accepted");
      kg_error_release (&err);
    }
}

/* ---- the family ------------------------------------------------------------ */

static struct kata_config kata_fc, kata_qemu;

static void
load_kata (struct kata_config *k, const char *name)
{
  cleanup_free char *path = NULL;
  kg_error_t err = NULL;
  const struct toml_value *hvs;

  if (asprintf (&path, "%s/kata/%s", fixtures, name) < 0
      || (k->doc = toml_parse_file (path, &err)) == NULL)
    abort ();
  hvs = toml_get (k->doc, "hypervisor");
  if (hvs == NULL || hvs->kind != TOML_TABLE || hvs->u.table.n != 1)
    abort ();
  k->hypervisor_name = hvs->u.table.items[0].key;
  k->hypervisor = hvs->u.table.items[0].value;
}

/* What the fake parent answers a pool request with. */
static const char *pool_answer;
static int pool_errno;
static int pool_asked;

static int
fake_pool (char *buf, size_t size, kg_error_t *err)
{
  pool_asked++;
  if (pool_errno != 0)
    {
      kg_error (err, 0, "fake: %s", strerror (pool_errno));
      (*err)->errnum = pool_errno;
      return -1;
    }
  snprintf (buf, size, "%s", pool_answer);
  return 0;
}

/* Run the family with ENGINE (BUNDLE: whether a bundle is named) on KATA,
   Docker's DAEMON and containerd's CONTAINERD files (fixtures or paths). */
static void
run (struct report *rep, struct kata_config *kata, enum engine engine, bool bundle,
     const char *daemon, const char *containerd, bool fake)
{
  struct request req = { .mode = KG_MODE_CHECK, .bundle = bundle ? "/nonexistent/bundle" : NULL };
  struct guard_config cfg;
  struct preflight pf;
  kg_error_t err = NULL;

  if (guard_config_defaults (&cfg, &err) < 0)
    abort ();
  free (cfg.docker.daemon_json);
  free (cfg.storage.containerd_config);
  cfg.docker.daemon_json = daemon[0] == '/' ? strdup (daemon) : fixture (daemon);
  cfg.storage.containerd_config = containerd[0] == '/' ? strdup (containerd) : fixture (containerd);
  if (fake)
    req.pool_status = fake_pool;
  memset (rep, 0, sizeof *rep);
  preflight_init (&pf, &req, &cfg, rep);
  pf.from_kata.config = kata;
  pf.from_policy.engine = engine;
  check_storage (&pf);
  guard_config_release (&cfg);
}

#define NO_FILE "/nonexistent/none"

static void
expect (struct report *rep, enum verdict snap, enum verdict pool, const char *needle,
        const char *what)
{
  const char *r = report_reason (rep, "storage.snapshotter");

  ok (report_verdict (rep, "storage.snapshotter") == snap
          && report_verdict (rep, "storage.pool") == pool
          && (needle == NULL || (r && strstr (r, needle))
              || strstr (report_reason (rep, "storage.pool") ?: "", needle)),
      "%s: snapshotter %s, pool %s", what, verdict_name (snap), verdict_name (pool));
  if (report_find (rep, "storage.snapshotter"))
    printf ("#   %s\n#   pool: %s\n", r, report_reason (rep, "storage.pool") ?: "-");
  report_release (rep);
}

/* The CRI plugin's own snapshotter line of containerd-1.7.24-default.toml. */
#define PLUGIN_OVERLAYFS "no_pivot = false\n      snapshotter = \"overlayfs\""
#define PLUGIN_DEVMAPPER "no_pivot = false\n      snapshotter = \"devmapper\""

static void
test_family (void)
{
  struct report rep;
  /* A version 2 config: the CRI plugin's snapshotter (1.6 reads only
     that one) and the handler's (1.7 and later) both devmapper. */
  cleanup_free char *dm = variant2 ("containerd-1.7.24-default.toml", "pool_name = \"\"",
                                    "pool_name = \"containerd-pool\"", PLUGIN_OVERLAYFS,
                                    PLUGIN_DEVMAPPER, "fam-dm.toml",
                                    V2_GUARD_HANDLER "  snapshotter = \"devmapper\"\n");
  cleanup_free char *dm_nopool = variant ("containerd-1.7.24-default.toml", PLUGIN_OVERLAYFS,
                                          PLUGIN_DEVMAPPER, "fam-nopool.toml",
                                          V2_GUARD_HANDLER "  snapshotter = \"devmapper\"\n");
  /* Only the handler's: containerd 1.6 would run overlayfs. */
  cleanup_free char *dm_handler = variant ("containerd-1.7.24-default.toml", "pool_name = \"\"",
                                           "pool_name = \"containerd-pool\"", "fam-handler.toml",
                                           V2_GUARD_HANDLER "  snapshotter = \"devmapper\"\n");
  cleanup_free char *dm_v3 = variant ("containerd-2.1.9-default.toml", "pool_name = ''",
                                      "pool_name = 'containerd-pool'", "fam-v3.toml",
                                      V3_GUARD_HANDLER "  snapshotter = 'devmapper'\n");
  cleanup_free char *bad = test_write_in (tmpdir, "fam-bad.toml", "version = 2\n[plugins\n");

  /* The kata family did not load a configuration. */
  run (&rep, NULL, ENGINE_DOCKER, true, "docker-overlay2.json", NO_FILE, false);
  ok (report_verdict (&rep, "storage.snapshotter") == VERDICT_SKIP
          && strcmp (report_reason (&rep, "storage.snapshotter"),
                     "not run: the Kata configuration did not load")
                 == 0
          && report_verdict (&rep, "storage.pool") == VERDICT_SKIP,
      "no Kata configuration: both skip, never pass");
  report_release (&rep);

  /* Docker, firecracker. */
  run (&rep, &kata_fc, ENGINE_DOCKER, true, "docker-overlay2.json", NO_FILE, false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "graphdriver \"overlay2\"",
          "Docker overlay2, firecracker");
  run (&rep, &kata_fc, ENGINE_DOCKER, true, "docker-snapshotter-overlayfs.json", NO_FILE, false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "snapshotter \"overlayfs\"",
          "Docker containerd store on overlayfs, firecracker");
  run (&rep, &kata_fc, ENGINE_DOCKER, true, "docker-snapshotter-default.json", NO_FILE, false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "storage-driver not set",
          "Docker containerd store, default snapshotter, firecracker");
  run (&rep, &kata_fc, ENGINE_DOCKER, true, NO_FILE, NO_FILE, false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "absent: Docker's defaults",
          "no daemon.json, firecracker");
  run (&rep, &kata_fc, ENGINE_DOCKER, true, "docker-graphdriver-devmapper.json", NO_FILE, false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "graphdriver \"devmapper\"",
          "Docker storage-driver devmapper without the containerd store (no such graphdriver)");
  run (&rep, &kata_fc, ENGINE_DOCKER, true, "docker-devicemapper.json", NO_FILE, false);
  /* Docker's devicemapper is a graph driver, not containerd's devmapper
     (issue 48: "devicemapper, blockfile, not devmapper"). */
  expect (&rep, VERDICT_PASS, VERDICT_SKIP,
          "the engine stores rootfs with graph driver devicemapper: no containerd devmapper "
          "snapshotter, whose thin pool this reads",
          "Docker devicemapper graphdriver: the pool's skip names it a graph driver");
  run (&rep, &kata_fc, ENGINE_DOCKER, true, "docker-malformed.json", NO_FILE, false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "cannot read", "malformed daemon.json, firecracker");
  run (&rep, &kata_qemu, ENGINE_DOCKER, true, "docker-malformed.json", NO_FILE, false);
  expect (&rep, VERDICT_WARN, VERDICT_SKIP, "cannot read", "malformed daemon.json, qemu: warn");
  run (&rep, &kata_qemu, ENGINE_DOCKER, true, "docker-overlay2.json", NO_FILE, false);
  expect (&rep, VERDICT_WARN, VERDICT_SKIP, "shared file system", "Docker overlay2, qemu: warn");
  /* Docker's containerd store on devmapper: containerd's pool. */
  run (&rep, &kata_fc, ENGINE_DOCKER, true, "docker-snapshotter-devmapper.json", NO_FILE, false);
  expect (&rep, VERDICT_PASS, VERDICT_FAIL, "names no pool",
          "Docker devmapper snapshotter, containerd without a pool: the pool fails");
  run (&rep, &kata_fc, ENGINE_DOCKER, true, "docker-snapshotter-devmapper.json", dm, false);
  expect (&rep, VERDICT_PASS, VERDICT_SKIP, "device-mapper is absent here",
          "Docker devmapper snapshotter, this kernel without device-mapper: the pool skips");
  pool_answer = L_DOCKER_DOCS;
  pool_errno = 0;
  pool_asked = 0;
  run (&rep, &kata_fc, ENGINE_DOCKER, true, "docker-snapshotter-devmapper.json", dm, true);
  ok (pool_asked == 1, "the pool is asked of the parent once");
  expect (&rep, VERDICT_PASS, VERDICT_PASS, "containerd-pool is read-write",
          "Docker devmapper snapshotter, a healthy pool");

  /* containerd's CRI. */
  run (&rep, &kata_fc, ENGINE_CRI, true, NO_FILE, "containerd-2.1.9-default.toml", false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "no handler runs kata-guard",
          "CRI, 2.1's default (overlayfs), firecracker");
  run (&rep, &kata_qemu, ENGINE_CRI, true, NO_FILE, "containerd-1.6.20-default.toml", false);
  expect (&rep, VERDICT_WARN, VERDICT_SKIP, "\"overlayfs\"", "CRI, 1.6's default, qemu: warn");
  run (&rep, &kata_fc, ENGINE_CRI, true, NO_FILE, NO_FILE, false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "absent: containerd's defaults",
          "CRI, no config.toml, firecracker");
  run (&rep, &kata_fc, ENGINE_CRI, true, NO_FILE, bad, false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "cannot read",
          "CRI, malformed config.toml, firecracker");
  run (&rep, &kata_qemu, ENGINE_CRI, true, NO_FILE, bad, false);
  expect (&rep, VERDICT_WARN, VERDICT_SKIP, "cannot read", "CRI, malformed config.toml, qemu");
  run (&rep, &kata_fc, ENGINE_CRI, true, NO_FILE, dm_nopool, false);
  expect (&rep, VERDICT_PASS, VERDICT_FAIL, "missing or empty",
          "CRI devmapper handler, no pool_name");
  run (&rep, &kata_fc, ENGINE_CRI, true, NO_FILE, dm_handler, false);
  ok (report_verdict (&rep, "storage.snapshotter") == VERDICT_FAIL
          && strstr (report_reason (&rep, "storage.snapshotter"),
                     "1.6 ignores it and uses the CRI plugin's \"overlayfs\"")
                 != NULL,
      "CRI, version 2, only the handler's snapshotter devmapper: refused (1.6 ignores it)");
  ok (strstr (report_find (&rep, "storage.snapshotter")->remedy,
              "[plugins.\"io.containerd.grpc.v1.cri\".containerd] of")
          != NULL,
      "...the remedy names the CRI plugin's own key");
  report_release (&rep);
  run (&rep, &kata_fc, ENGINE_CRI, true, NO_FILE, dm_v3, false);
  ok (report_verdict (&rep, "storage.snapshotter") == VERDICT_PASS,
      "CRI, version 3 (containerd 2.x only), the handler's snapshotter devmapper: passes");
  report_release (&rep);
  static const struct
  {
    const char *line;
    int e;
    enum verdict v;
    const char *needle;
  } pools[] = {
    { L_DOCKER_314, 0, VERDICT_PASS, "data 1%" },
    { L_CENTOS, 0, VERDICT_PASS, "data 66%" },
    { L_ATOMIC_RO, 0, VERDICT_FAIL, "read-only" },
    { L_FAIL, 0, VERDICT_FAIL, "fail mode" },
    { "91 422/524288 18338/1638400 - rw", 0, VERDICT_FAIL, "not understood" },
    { NULL, ENXIO, VERDICT_FAIL, "fake" },
    { NULL, EMEDIUMTYPE, VERDICT_FAIL, "fake" },
    { NULL, ENODEV, VERDICT_SKIP, "not read" },
    { NULL, ELIBACC, VERDICT_SKIP, "not read" },
    { NULL, EACCES, VERDICT_SKIP, "root only" },
    { NULL, EIO, VERDICT_FAIL, "fake" },
  };
  for (size_t i = 0; i < ARRAY_SIZE (pools); i++)
    {
      char what[128];

      pool_answer = pools[i].line;
      pool_errno = pools[i].e;
      snprintf (what, sizeof what, "CRI devmapper handler, pool %s",
                pools[i].line ? pools[i].line : strerror (pools[i].e));
      run (&rep, &kata_fc, ENGINE_CRI, true, NO_FILE, dm, true);
      expect (&rep, VERDICT_PASS, pools[i].v, pools[i].needle, what);
    }
  run (&rep, &kata_fc, ENGINE_CRI, true, NO_FILE, dm, false);
  expect (&rep, VERDICT_PASS, VERDICT_SKIP, "no /dev/mapper/control",
          "CRI devmapper, read in place on this kernel (no device-mapper)");

  /* The other engines. */
  run (&rep, &kata_fc, ENGINE_CONTAINERD, true, NO_FILE, dm, false);
  expect (&rep, VERDICT_SKIP, VERDICT_SKIP, "ctr run --snapshotter", "plain containerd: skip");
  run (&rep, &kata_fc, ENGINE_PODMAN, true, NO_FILE, NO_FILE, false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "podman's containers/storage", "podman, firecracker");
  run (&rep, &kata_qemu, ENGINE_CRIO, true, NO_FILE, NO_FILE, false);
  expect (&rep, VERDICT_PASS, VERDICT_SKIP, "CRI-O's containers/storage", "CRI-O, qemu: pass");
  run (&rep, &kata_fc, ENGINE_UNKNOWN, true, "docker-devicemapper.json", dm, false);
  expect (&rep, VERDICT_SKIP, VERDICT_SKIP, "not known", "an unknown engine with a bundle: skip");

  /* kata-guard check without a bundle: every configuration present. */
  run (&rep, &kata_fc, ENGINE_UNKNOWN, false, NO_FILE, NO_FILE, false);
  expect (&rep, VERDICT_SKIP, VERDICT_SKIP, "no engine configuration",
          "check, no engine configured");
  run (&rep, &kata_fc, ENGINE_UNKNOWN, false, "docker-devicemapper.json", NO_FILE, false);
  expect (&rep, VERDICT_PASS, VERDICT_SKIP, "Docker (", "check, Docker's alone");
  run (&rep, &kata_fc, ENGINE_UNKNOWN, false, "docker-devicemapper.json",
       "containerd-1.7.24-default.toml", false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "containerd (",
          "check, Docker's block, containerd's not: fail");
  pool_answer = L_DOCKER_DOCS;
  pool_errno = 0;
  run (&rep, &kata_qemu, ENGINE_UNKNOWN, false, "docker-overlay2.json", dm, true);
  expect (&rep, VERDICT_WARN, VERDICT_PASS, "; containerd (",
          "check on qemu: both named, the worst wins");
  /* Docker says it, but the bundle names none: the engine is unknown. */
  run (&rep, &kata_fc, ENGINE_DOCKER, false, NO_FILE, "containerd-1.7.24-default.toml", false);
  expect (&rep, VERDICT_FAIL, VERDICT_SKIP, "containerd (", "check: the engine is only a bundle's");
}

int
main (void)
{
  fixtures = getenv ("KG_FIXTURES");
  if (fixtures == NULL)
    fixtures = "tests/fixtures";
  if (mkdtemp (tmpdir) == NULL)
    abort ();
  load_kata (&kata_fc, "configuration-fc.toml");
  load_kata (&kata_qemu, "configuration-qemu.toml");
  test_parse ();
  test_judge ();
  test_docker ();
  test_containerd ();
  test_family ();
  toml_free (kata_fc.doc);
  toml_free (kata_qemu.doc);
  {
    char cmd[sizeof tmpdir + 16];

    snprintf (cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system (cmd) != 0)
      return 1;
  }
  return tap_done ();
}
