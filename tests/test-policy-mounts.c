/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.mounts: binds, volumes, and sources someone other than root could swap.
   (tests/test-policy.h: what every part of policy.*'s tests shares.) */
#include "test-policy.h"

#include <json-c/json.h>

static void
mount_row (const char *name, const char *source, const char *options, const char *policy,
           const char *fails, const char *needle)
{
  cleanup_free char *m = bind_of (source, options);
  cleanup_free char *spec = spec_of (NULL, m, NULL, NULL, NULL);

  run_expect (spec, ID_A, policy, &kata_fc, name, fails, "policy.mounts", needle);
}

/* The remedy names read-only only for what read-only would let through:
   never for a bind refused whatever its options, nor one already ro. */
static void
remedy_row (const char *name, const char *mounts, const char *want, const char * not )
{
  cleanup_free char *spec = spec_of (NULL, mounts, NULL, NULL, NULL);
  struct report rep;

  run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
  expect_remedy (&rep, name, "policy.mounts", want, not );
  report_release (&rep);
}

static void
test_mount_remedies (void)
{
  cleanup_free char *ro_state = bind_of ("/var/lib/docker/image", "\"rbind\", \"ro\"");
  cleanup_free char *rw_data = bind_of ("/srv/data", "\"rbind\"");
  cleanup_free char *both = NULL;

  if (asprintf (&both, "%s, %s", ro_state, rw_data) < 0)
    abort ();
  remedy_row ("engine state bound read-only: not told to add :ro", ro_state,
              "read-only does not make them safe", ":ro");
  remedy_row ("a writable data bind: told read-only", rw_data,
              "bind it read-only (the mount's \"ro\" option)", "engine sockets");
  remedy_row ("both: each named", both, "do not bind engine sockets", NULL);
  remedy_row ("both: read-only named for the data", both, "bind data read-only", NULL);
  run_mode = KG_MODE_SHIM;
  run_ns = "moby";
  remedy_row ("Docker: a writable data bind", rw_data, "bind it read-only (:ro)", NULL);
  run_ns = "default";
  remedy_row ("ctr: a writable data bind", rw_data, "options=rbind:ro", "(:ro)");
  run_mode = KG_MODE_CHECK;
  run_ns = NULL;
}

/* Ten writable binds: the reason shows eight and counts the rest, never
   a bare "..." that reads as a cut in transport. */
static void
test_many_findings (void)
{
  cleanup_free char *mounts = NULL;
  struct report rep;
  const struct check_result *r;
  const char *tail;
  int shown = 0;

  for (int i = 0; i < 10; i++)
    {
      char src[32];
      cleanup_free char *m = NULL, *prev = mounts;

      snprintf (src, sizeof src, "/srv/data%d", i);
      m = bind_of (src, "\"rbind\"");
      mounts = NULL;
      if (asprintf (&mounts, "%s%s%s", prev ? prev : "", prev ? ", " : "", m) < 0)
        abort ();
    }
  {
    cleanup_free char *spec = spec_of (NULL, mounts, NULL, NULL, NULL);

    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
  }
  r = report_find (&rep, "policy.mounts");
  for (const char *p = r && r->reason ? r->reason : "";
       (p = strstr (p, "writable bind mount outside")); p++)
    shown++;
  tail = r && r->reason && strlen (r->reason) >= 12 ? r->reason + strlen (r->reason) - 12 : "";
  ok (r != NULL && r->verdict == VERDICT_FAIL && shown == 8 && strcmp (tail, "; and 2 more") == 0
          && strstr (r->reason, "/srv/data7") != NULL && strstr (r->reason, "/srv/data8") == NULL,
      "ten writable binds: eight shown, then \"; and 2 more\" (%s)", tail);
  report_release (&rep);
}

static void
test_mounts (void)
{
  cleanup_free char *link1 = NULL, *link2 = NULL, *home = NULL, *ssh = NULL, *sock = NULL;
  cleanup_free char *want1 = NULL, *want2 = NULL, *sockwant = NULL;
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int fd;

  if (asprintf (&link1, "%s/link-sock", tmpdir) < 0 || asprintf (&link2, "%s/link-ssh", tmpdir) < 0
      || asprintf (&home, "%s/home", tmpdir) < 0 || asprintf (&ssh, "%s/home/.ssh", tmpdir) < 0
      || asprintf (&sock, "%s/agent.sock", tmpdir) < 0
      || asprintf (&want1, "%s -> /run/docker.sock: an engine socket", link1) < 0
      || asprintf (&want2, "%s -> /root/.ssh", link2) < 0
      || asprintf (&sockwant, "%s: a host socket", sock) < 0)
    abort ();
  if (symlink ("/var/run/docker.sock", link1) < 0 || symlink ("/root/.ssh", link2) < 0
      || mkdir (home, 0755) < 0 || mkdir (ssh, 0700) < 0)
    abort ();

  mount_row ("symlink to docker.sock", link1, "\"rbind\", \"ro\"", NULL, "policy.mounts", want1);
  /* (Refused as a path that cannot be resolved where /root cannot be
     searched: expect.) */
  mount_row ("symlink to /root/.ssh", link2, "\"rbind\", \"ro\"", NULL, "policy.mounts", want2);
  mount_row ("'..' into /root", "/srv/../root/x", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/srv/../root/x -> /root/x: root's home");
  mount_row ("'..' into /etc", "/tmp/../etc", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/tmp/../etc -> /etc: the host's configuration");
  mount_row ("/etc/shadow", "/etc/shadow", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/etc/shadow: the host's configuration");
  mount_row ("/ itself", "/", "\"rbind\", \"ro\"", NULL, "policy.mounts", "/: contains");
  mount_row ("/var contains engine state", "/var", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/var: contains /var/run/containerd");
  mount_row ("/var/lib contains the engine root", "/var/lib", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/var/lib: contains /var/lib/containerd");
  mount_row ("/home contains credentials", "/home", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/home: contains /home/*/.ssh");
  mount_row ("containerd.sock anywhere", "/srv/x/containerd.sock", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/srv/x/containerd.sock: an engine socket");
  mount_row ("an .aws directory", "/home/alice/.aws/credentials", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/home/alice/.aws/credentials: credentials");
  mount_row (".config/gcloud anywhere", "/srv/u/.config/gcloud", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/srv/u/.config/gcloud: credentials");
  mount_row ("an .env file", "/srv/app/.env", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/srv/app/.env: a .env file");
  mount_row ("an .env.local file", "/srv/app/.env.local", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/srv/app/.env.local: a .env file");
  mount_row ("a directory holding .ssh", home, "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "contains .ssh");
  /* (Without root the directory holding it is refused first.) */
  if (strlen (sock) >= sizeof sa.sun_path)
    ok (1, "# SKIP a host socket, read-only: its path is too long for a socket (%s)", sock);
  else if (need_trusted ("a host socket, read-only"))
    {
      fd = socket (AF_UNIX, SOCK_STREAM, 0);
      snprintf (sa.sun_path, sizeof sa.sun_path, "%s", sock);
      if (fd < 0 || bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
        abort ();
      close (fd);
      mount_row ("a host socket, read-only", sock, "\"rbind\", \"ro\"", NULL, "policy.mounts",
                 sockwant);
    }
  mount_row ("containerd state", "/run/containerd/io.containerd.runtime.v2.task",
             "\"rbind\", \"ro\"", NULL, "policy.mounts", "containerd's state");
  mount_row ("the engine root", "/var/lib/docker/image", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/var/lib/docker/image: the engine's state ([policy] engine_roots)");
  mount_row ("another engine root", "/data/docker/x", "\"rbind\", \"ro\"",
             "engine_roots = [\"/data/docker\"]", "policy.mounts", "the engine's state");
  mount_row ("another container's resolv.conf", "/var/lib/docker/containers/" ID_B "/resolv.conf",
             "\"rbind\", \"rprivate\"", NULL, "policy.mounts",
             "resolv.conf: the engine's per-container files (not this container's)");
  /* (This container's own files: test_identity, as Docker starts it.) */
  mount_row ("'..' out of this container's dir",
             "/var/lib/docker/containers/" ID_A "/../" ID_B "/hosts", "\"rbind\"", NULL,
             "policy.mounts", "not this container's");
  mount_row ("a named volume, read-only", "/var/lib/docker/volumes/v1/_data", "\"rbind\", \"ro\"",
             NULL, "", "1 read-only");
  mount_row ("a named volume, writable", "/var/lib/docker/volumes/v1/_data", "\"rbind\"", NULL,
             "policy.mounts", "writable bind mount outside");
  mount_row ("a named volume under writable_mounts", "/var/lib/docker/volumes/v1/_data",
             "\"rbind\"", "writable_mounts = [\"/var/lib/docker/volumes\"]", "",
             "1 under [policy] writable_mounts");
  mount_row ("k3s's server state, read-only", "/var/lib/rancher/k3s/server", "\"rbind\", \"ro\"",
             NULL, "policy.mounts", "k3s's state, keys and tokens");
  mount_row ("snap Docker's data root, read-only", "/var/snap/docker/common/var-lib-docker",
             "\"rbind\", \"ro\"", NULL, "policy.mounts", "Docker's state (snap)");
  mount_row ("/tmp (ssh-agent and tmux sockets), read-only", "/tmp", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/tmp: the host's shared temporary files (ssh-agent, tmux");
  mount_row ("an ssh-agent socket directory under /tmp, read-only", "/tmp/ssh-XXXXabcd",
             "\"rbind\", \"ro\"", NULL, "policy.mounts", "the host's shared temporary files");
  mount_row ("/var/tmp, read-only", "/var/tmp", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "the host's shared temporary files");
  mount_row ("the kubelet's pki, read-only", "/var/lib/kubelet/pki", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "the kubelet's state ([policy] kubelet_roots");
  mount_row ("deny_mounts", "/srv/secret/x", "\"rbind\", \"ro\"", "deny_mounts = [\"/srv/secret\"]",
             "policy.mounts", "/srv/secret/x: listed in [policy] deny_mounts");
  mount_row ("deny_mounts beats writable_mounts", "/srv/secret", "\"rbind\"",
             "deny_mounts = [\"/srv/secret\"]\nwritable_mounts = [\"/srv\"]", "policy.mounts",
             "deny_mounts");
  mount_row ("read-only data", "/srv/data", "\"rbind\", \"ro\"", NULL, "", "1 read-only");
  /* What Docker 25 and later write for -v X:Y:ro when the runtime's
     features list "rro" (mount_setattr(2) with AT_RECURSIVE): read-only
     to the OCI runtime that listed it; Kata's shim ignores it. */
  run_mode = KG_MODE_OCI;
  mount_row ("OCI mode: \"rro\" (Docker 26: -v X:Y:ro)", "/srv/data",
             "\"rbind\", \"rro\", \"rprivate\"", NULL, "", "1 read-only");
  mount_row ("OCI mode: \"rw\" then \"rro\" (the recursive change comes last)", "/srv/data",
             "\"rbind\", \"rw\", \"rro\"", NULL, "", "1 read-only");
  mount_row ("OCI mode: \"rro\" then \"rrw\"", "/srv/data", "\"rbind\", \"rro\", \"rrw\"", NULL,
             "policy.mounts", "/srv/data: writable bind mount");
  mount_row ("OCI mode: \"ro\" then \"rrw\" (rrw clears it recursively)", "/srv/data",
             "\"rbind\", \"ro\", \"rrw\"", NULL, "policy.mounts", "/srv/data: writable bind mount");
  mount_row ("OCI mode: \"rrw\" then \"rro\"", "/srv/data", "\"rbind\", \"rrw\", \"rro\"", NULL,
             "policy.mounts", "/srv/data: writable bind mount");
  mount_row ("OCI mode: \"RRO\" is not \"rro\"", "/srv/data", "\"rbind\", \"RRO\"", NULL,
             "policy.mounts", "/srv/data: writable bind mount");
  run_mode = KG_MODE_SHIM;
  mount_row ("shim mode: \"rro\" alone is writable to Kata", "/srv/data",
             "\"rbind\", \"rro\", \"rprivate\"", NULL, "policy.mounts",
             "\"rro\" without \"ro\": Kata's shim ignores rro");
  mount_row ("shim mode: \"ro\" and \"rro\"", "/srv/data", "\"rbind\", \"ro\", \"rro\"", NULL, "",
             "1 read-only");
  mount_row ("shim mode: \"ro\" then \"rrw\"", "/srv/data", "\"rbind\", \"ro\", \"rrw\"", NULL,
             "policy.mounts", "/srv/data: writable bind mount");
  run_mode = KG_MODE_CHECK;
  mount_row ("check: \"rro\" alone is writable (which runtime is unknown)", "/srv/data",
             "\"rbind\", \"rro\"", NULL, "policy.mounts", "Kata's shim ignores rro");
  mount_row ("\"RRO\" is not \"rro\"", "/srv/data", "\"rbind\", \"RRO\"", NULL, "policy.mounts",
             "/srv/data: writable bind mount");
  mount_row ("\"ro=x\" is not \"ro\"", "/srv/data", "\"rbind\", \"ro=x\"", NULL, "policy.mounts",
             "/srv/data: writable bind mount");
  mount_row ("\"nosuid,ro\" is not \"ro\"", "/srv/data", "\"rbind\", \"nosuid,ro\"", NULL,
             "policy.mounts", "/srv/data: writable bind mount");
  mount_row ("\"ro\" then \"rw\"", "/srv/data", "\"rbind\", \"ro\", \"rw\"", NULL, "policy.mounts",
             "/srv/data: writable bind mount");
  mount_row ("\"RO\" is not \"ro\"", "/srv/data", "\"rbind\", \"RO\"", NULL, "policy.mounts",
             "/srv/data: writable bind mount");
  mount_row ("writable under writable_mounts", "/srv/data/x", "\"rbind\"",
             "writable_mounts = [\"/srv/data\"]", "", "1 under [policy] writable_mounts");
  mount_row ("'..' out of writable_mounts", "/srv/data/../other", "\"rbind\"",
             "writable_mounts = [\"/srv/data\"]", "policy.mounts",
             "/srv/data/../other -> /srv/other: writable bind mount outside");
  mount_row ("a prefix is not a parent", "/srv/database", "\"rbind\"",
             "writable_mounts = [\"/srv/data\"]", "policy.mounts", "writable bind mount outside");
  if (need_trusted ("a relative source is in the bundle"))
    mount_row ("a relative source is in the bundle", "data", "\"rbind\"", NULL, "policy.mounts",
               "data -> ");

  {
    cleanup_free char *spec
        = spec_of (NULL,
                   "{\"destination\": \"/x\", \"type\": \"overlay\", \"source\": \"overlay\", "
                   "\"options\": [\"lowerdir=/root\"]}",
                   NULL, NULL, NULL);

    run_expect (spec, ID_A, NULL, &kata_fc, "an overlay mount", "policy.mounts", "policy.mounts",
                "type \"overlay\" on /x: neither a bind mount nor a virtual filesystem");
  }
  {
    cleanup_free char *spec = NULL;

    /* Go's encoding/json would read "Mounts" as "mounts". */
    if (asprintf (&spec,
                  "{\"ociVersion\": \"1.0.2\", \"Mounts\": [{\"destination\": \"/x\", \"type\": "
                  "\"bind\", \"source\": \"/var/run/docker.sock\"}],"
                  " \"linux\": {\"namespaces\": [{\"type\": \"network\"}, {\"type\": \"pid\"}, "
                  "{\"type\": \"ipc\"}], \"resources\": {\"memory\": {\"limit\": 1048576}}}}")
        < 0)
      abort ();
    run_expect (spec, ID_A, NULL, &kata_fc, "a key in another case", "policy.spec", "policy.spec",
                "key \"Mounts\" is not \"mounts\" but Go's decoders");
  }
}

/* Bind sources someone other than root could swap before the runtime
   mounts them. */
/* Sources that share a directory are judged through a memo of it
   (denied_memo): what a whole pass over the deny lists would say, for
   the names, patterns and lists that the directory itself does or does
   not hit.  Three sources, so that the third is judged through the memo. */
static void
shared_dir_row (const char *name, const char *a, const char *b, const char *last,
                const char *policy, const char *fails, const char *needle)
{
  cleanup_free char *ma = bind_of (a, "\"rbind\", \"ro\"");
  cleanup_free char *mb = bind_of (b, "\"rbind\", \"ro\"");
  cleanup_free char *mc = bind_of (last, "\"rbind\", \"ro\"");
  cleanup_free char *mounts = NULL;
  cleanup_free char *spec = NULL;

  if (asprintf (&mounts, "%s, %s, %s", ma, mb, mc) < 0)
    abort ();
  spec = spec_of (NULL, mounts, NULL, NULL, NULL);
  run_expect (spec, ID_A, policy, &kata_fc, name, fails, "policy.mounts", needle);
}

static void
test_shared_directory (void)
{
  shared_dir_row ("one directory: three plain sources", "/srv/kg-d/a", "/srv/kg-d/b", "/srv/kg-d/c",
                  NULL, "", "3 read-only");
  shared_dir_row ("one directory: a credential name last", "/srv/kg-d/a", "/srv/kg-d/b",
                  "/srv/kg-d/.ssh", NULL, "policy.mounts", "/srv/kg-d/.ssh: credentials");
  shared_dir_row ("one directory: gcloud under .config", "/srv/.config/a", "/srv/.config/b",
                  "/srv/.config/gcloud", NULL, "policy.mounts", "/srv/.config/gcloud: credentials");
  shared_dir_row ("one directory: an engine socket last", "/srv/kg-d/a", "/srv/kg-d/b",
                  "/srv/kg-d/my-docker.sock", NULL, "policy.mounts", "an engine socket");
  shared_dir_row ("one directory: deny_mounts names the last", "/srv/kg-d/a", "/srv/kg-d/b",
                  "/srv/kg-d/secret", "deny_mounts = [\"/srv/kg-d/secret\"]", "policy.mounts",
                  "/srv/kg-d/secret: listed in [policy] deny_mounts");
  shared_dir_row ("one directory: deny_mounts holds the one below the last", "/srv/kg-d/a",
                  "/srv/kg-d/b", "/srv/kg-d/c", "deny_mounts = [\"/srv/kg-d/c/key\"]",
                  "policy.mounts", "/srv/kg-d/c: contains /srv/kg-d/c/key");
  shared_dir_row ("one directory under a denied one", "/etc/kg-a", "/etc/kg-b", "/etc/kg-c", NULL,
                  "policy.mounts", "/etc/kg-c: the host's configuration");
  shared_dir_row ("one directory under a pattern's glob", "/home/kg-u/a", "/home/kg-u/b",
                  "/home/kg-u/.aws", NULL, "policy.mounts", "/home/kg-u/.aws: credentials");
}

static void
test_redirect (void)
{
  cleanup_free char *open_dir = NULL, *sticky = NULL, *data = NULL, *sdata = NULL, *missing = NULL;
  cleanup_free char *link = NULL, *want = NULL, *swant = NULL;

  /* Below directories of root's that every host has. */
  mount_row ("a missing source below root's directories", "/usr/share/kg-test-absent/made",
             "\"rbind\", \"ro\"", NULL, "", "1 read-only");
  /* The rest makes its directories in the rows' one, which must be
     root's for the reasons to be these. */
  if (! need_trusted ("sources in directories others can write, and through their symlinks"))
    return;
  if (asprintf (&open_dir, "%s/open", tmpdir) < 0 || asprintf (&data, "%s/data", open_dir) < 0
      || asprintf (&sticky, "%s/sticky", tmpdir) < 0 || asprintf (&sdata, "%s/data", sticky) < 0
      || asprintf (&missing, "%s/not/yet", open_dir) < 0
      || asprintf (&link, "%s/userlink", tmpdir) < 0
      || asprintf (&want,
                   "others could swap it for another path before the runtime mounts it "
                   "(directory %s is writable by others",
                   open_dir)
             < 0
      || asprintf (&swant, "(directory %s is writable by others (mode 1777)", sticky) < 0)
    abort ();
  if (mkdir (open_dir, 0755) < 0 || chmod (open_dir, 0777) < 0 || mkdir (data, 0755) < 0
      || mkdir (sticky, 0755) < 0 || chmod (sticky, 01777) < 0 || mkdir (sdata, 0755) < 0
      || symlink (tmpdir, link) < 0)
    abort ();
  mount_row ("a source in a directory others can write", data, "\"rbind\", \"ro\"", NULL,
             "policy.mounts", want);
  mount_row ("a source in a sticky directory others can write", sdata, "\"rbind\", \"ro\"", NULL,
             "policy.mounts", swant);
  mount_row ("a missing source below a directory others can write", missing, "\"rbind\", \"ro\"",
             NULL, "policy.mounts", want);
  /* Another user's symlink: only where root can give one away (not in a
     user namespace that maps no other ids). */
  if (lchown (link, 65534, 65534) == 0)
    {
      cleanup_free char *via = NULL;

      if (asprintf (&via, "%s/open/data", link) < 0)
        abort ();
      chmod (open_dir, 0755);
      mount_row ("a source through a symlink of another user's", via, "\"rbind\", \"ro\"", NULL,
                 "policy.mounts", "is owned by uid 65534, not root");
    }
  else
    ok (true,
        "# SKIP a source through a symlink of another user's: cannot give a symlink to "
        "uid 65534 here (%s)",
        strerror (errno));
  /* Sources side by side in one directory: the directory is walked once,
     and still every entry that is a symlink is walked on its own. */
  {
    cleanup_free char *pair = NULL, *a = NULL, *b = NULL, *ma = NULL, *mb = NULL, *both = NULL;
    cleanup_free char *spec = NULL;

    if (asprintf (&pair, "%s/pair", tmpdir) < 0 || asprintf (&a, "%s/a", pair) < 0
        || asprintf (&b, "%s/b", pair) < 0)
      abort ();
    if (mkdir (pair, 0755) < 0 || mkdir (a, 0755) < 0 || symlink (a, b) < 0)
      abort ();
    ma = bind_of (a, "\"rbind\", \"ro\"");
    mb = bind_of (b, "\"rbind\", \"ro\"");
    if (asprintf (&both, "%s, %s", ma, mb) < 0)
      abort ();
    spec = spec_of (NULL, both, NULL, NULL, NULL);
    run_expect (spec, ID_A, NULL, &kata_fc,
                "two sources in one directory, the second root's symlink", "", "policy.mounts",
                "2 bind mounts: 2 read-only");
    if (lchown (b, 65534, 65534) == 0)
      {
        run_expect (spec, ID_A, NULL, &kata_fc,
                    "two sources in one directory, the second another user's symlink",
                    "policy.mounts", "policy.mounts", "is owned by uid 65534, not root");
      }
    else
      ok (true,
          "# SKIP two sources in one directory, the second another user's symlink: cannot "
          "give a symlink to uid 65534 here (%s)",
          strerror (errno));
  }
  chmod (open_dir, 0755);
  chmod (sticky, 0755);
}

/* A named volume whose _data is a bind of the host's /etc (what Docker's
   local driver does for volume-opt o=bind,device=/etc): in a private
   mount namespace of this test process, so the bind vanishes with it
   (and the rest of the tests run in it, which changes nothing for them). */
static void
test_volume_bind (void)
{
  cleanup_free char *root = NULL;
  cleanup_free char *data = NULL;
  cleanup_free char *policy = NULL;
  cleanup_free char *mounts = NULL;
  cleanup_free char *cmd = NULL;
  char *spec;
  struct report rep;

  if (geteuid () != 0)
    {
      ok (true, "# SKIP a bind mount needs root");
      return;
    }
  if (asprintf (&root, "%s/docker", tmpdir) < 0 || asprintf (&data, "%s/volumes/v1/_data", root) < 0
      || asprintf (&cmd, "mkdir -p '%s'", data) < 0 || system (cmd) != 0
      || asprintf (&policy, "engine_roots = [\"%s\"]", root) < 0
      || asprintf (&mounts,
                   "{\"destination\": \"/v\", \"type\": \"bind\", \"source\": "
                   "\"%s\", \"options\": [\"rbind\", \"ro\"]}",
                   data)
             < 0)
    abort ();
  spec = spec_of (NULL, mounts, NULL, NULL, NULL);
  /* A plain volume directory passes. */
  run_expect (spec, ID_A, policy, &kata_fc, "a plain named volume, read-only", "", "policy.mounts",
              "1 bind mount");
  /* (A file system type for each, though the kernel ignores it here:
     valgrind takes a NULL one for a bad pointer.) */
  if (unshare (CLONE_NEWNS) < 0 || mount ("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0
      || mount ("/etc", data, "none", MS_BIND, NULL) < 0)
    {
      ok (true, "# SKIP cannot bind-mount in a private mount namespace: %s", strerror (errno));
      free (spec);
      return;
    }
  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  expect (&rep, "a named volume whose _data is a bind of /etc", "policy.mounts", "policy.mounts",
          "a volume that is a mount of something else (");
  has_str (reason (&rep, "policy.mounts"), "/_data is a ",
           "a bind-mounted volume: the reason names the mount point and its type");
  report_release (&rep);
  umount2 (data, MNT_DETACH);
  free (spec);
}

/* RUNDIR-free: the mount table as policy.mounts reads it (mountinfo.h,
   libmount).  Mount points whose names hold a space, a tab, a newline or
   a backslash, which mountinfo escapes (\040, \011, \012, \134), are read
   as they are; a name that only spells an escape is not another's; and
   a table with a line libmount cannot parse is no table: a volume is then
   refused, never taken for a plain directory.  In a private mount
   namespace, where /proc/PID/mountinfo can be bound over too. */
static void
test_volume_mountinfo (void)
{
  static const struct
  {
    const char *what, *vol, *mnt; /* a bind of VOL's _data; a mount on MNT's */
  } row[] = {
    { "a space", "s p", "s p" },
    { "a tab", "t\tb", "t\tb" },
    { "a newline", "n\nl", "n\nl" },
    { "a backslash", "b\\s", "b\\s" },
    { "a name that spells a space's escape, beside one with a space", "e 1", "e\\0401" },
    { "a name with a space, beside one that spells its escape", "e\\0402", "e 2" },
  };
  static const struct
  {
    const char *what, *line; /* appended to the real table */
  } bad[] = {
    { "a line that is not a mount", "garbage\n" },
    { "the volume's mount without its \" - \" separator",
      "999 1 0:1 / @DATA@ rw shared:1 ext4 /dev/x rw\n" },
  };
  cleanup_free char *root = NULL;
  cleanup_free char *policy = NULL;
  char table[64];

  if (geteuid () != 0)
    {
      ok (true, "# SKIP mounts need root");
      return;
    }
  if (asprintf (&root, "%s/docker-mi", tmpdir) < 0
      || asprintf (&policy, "engine_roots = [\"%s\"]", root) < 0)
    abort ();
  if (unshare (CLONE_NEWNS) < 0 || mount ("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
    {
      ok (true, "# SKIP no private mount namespace: %s", strerror (errno));
      return;
    }
  for (size_t i = 0; i < ARRAY_SIZE (row); i++)
    {
      cleanup_free char *data = NULL;
      cleanup_free char *sub = NULL;
      cleanup_free char *mounts = NULL;
      cleanup_free char *cmd = NULL;
      json_object *src;
      char *spec;
      struct report rep;
      bool same = strcmp (row[i].vol, row[i].mnt) == 0;

      if (asprintf (&data, "%s/volumes/%s/_data", root, row[i].vol) < 0
          || asprintf (&sub, "%s/volumes/%s/_data/m", root, row[i].mnt) < 0
          || asprintf (&cmd, "mkdir -p \"$D\" \"$S\"") < 0 || setenv ("D", data, 1) < 0
          || setenv ("S", sub, 1) < 0 || system (cmd) != 0)
        abort ();
      src = json_object_new_string (data);
      if (asprintf (&mounts,
                    "{\"destination\": \"/v\", \"type\": \"bind\", \"source\": %s, "
                    "\"options\": [\"rbind\", \"ro\"]}",
                    json_object_to_json_string_ext (src, JSON_C_TO_STRING_PLAIN))
          < 0)
        abort ();
      json_object_put (src);
      if (mount ("/etc", sub, "none", MS_BIND, NULL) < 0)
        abort ();
      spec = spec_of (NULL, mounts, NULL, NULL, NULL);
      run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
      if (same)
        {
          expect (&rep, row[i].what, "policy.mounts", "policy.mounts",
                  "a volume that is a mount of something else (");
          has_str (reason (&rep, "policy.mounts"), sub, "%s: the mount point named as it is",
                   row[i].what);
        }
      else
        expect (&rep, row[i].what, "", "policy.mounts", "1 bind mount");
      report_release (&rep);
      umount2 (sub, MNT_DETACH);
      free (spec);
    }
  /* The real table with a line appended, bound over this process's
     /proc/PID/mountinfo (where /proc/self/mountinfo leads). */
  snprintf (table, sizeof table, "/proc/%d/mountinfo", (int) getpid ());
  for (size_t i = 0; i < ARRAY_SIZE (bad); i++)
    {
      cleanup_free char *data = NULL;
      cleanup_free char *mounts = NULL;
      cleanup_free char *cmd = NULL;
      cleanup_free char *file = NULL;
      cleanup_free char *text = read_text ("/proc/self/mountinfo");
      cleanup_free char *line = NULL;
      char *spec;
      struct report rep;
      FILE *f;

      if (asprintf (&data, "%s/volumes/g%zu/_data", root, i) < 0
          || asprintf (&cmd, "mkdir -p '%s'", data) < 0 || system (cmd) != 0
          || asprintf (&file, "%s/mountinfo%zu", tmpdir, i) < 0
          || asprintf (&mounts,
                       "{\"destination\": \"/v\", \"type\": \"bind\", \"source\": \"%s\", "
                       "\"options\": [\"rbind\", \"ro\"]}",
                       data)
                 < 0)
        abort ();
      line = replace (strdup (bad[i].line), "@DATA@", data);
      f = fopen (file, "we");
      if (f == NULL || fputs (text, f) < 0 || fputs (line, f) < 0 || fclose (f) != 0)
        abort ();
      spec = spec_of (NULL, mounts, NULL, NULL, NULL);
      run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
      expect (&rep, "a plain volume, the real table", "", "policy.mounts", "1 bind mount");
      report_release (&rep);
      if (mount (file, table, "none", MS_BIND, NULL) < 0)
        {
          ok (true, "# SKIP %s: cannot bind over %s: %s", bad[i].what, table, strerror (errno));
          free (spec);
          continue;
        }
      run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
      expect (&rep, bad[i].what, "policy.mounts", "policy.mounts",
              "a volume that is a mount of something else (cannot read /proc/self/mountinfo");
      report_release (&rep);
      umount2 (table, MNT_DETACH);
      free (spec);
    }
}

/* The guard's own state (issue 51): the posture record holds the
   sandbox's hashes, paths and proxy, the decision log every container's
   findings; no container reads them, read-only or not.  Its directories
   whole, what contains them, and its configured files with what is
   written beside them under their names; never their other neighbours. */
static void
test_guard_state (void)
{
  cleanup_free char *cfgfile = NULL, *cfgtmp = NULL, *link = NULL, *real = NULL;
  cleanup_free char *viarec = NULL, *recpol = NULL, *realrec = NULL, *want = NULL;
  const char *rec = "[drift]\nrecord = \"/srv/kg-rec/posture.json\"";
  const char *log = "[log]\nfile = \"/srv/kg-log/decisions.json\"";

  mount_row ("the guard's state directory, read-only", "/var/lib/kata-guard", "\"rbind\", \"ro\"",
             NULL, "policy.mounts", "/var/lib/kata-guard: kata-guard's own state");
  mount_row ("the default posture record, read-only", "/var/lib/kata-guard/posture.json",
             "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/var/lib/kata-guard/posture.json: kata-guard's own state");
  mount_row ("'..' into the guard's state", "/var/lib/x/../kata-guard", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "-> /var/lib/kata-guard: kata-guard's own state");
  mount_row ("/var/lib, which holds it", "/var/lib", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/var/lib: contains");
  mount_row ("the guard's run directory, read-only", "/run/kata-guard/capacity",
             "\"rbind\", \"ro\"", NULL, "policy.mounts", "/run/kata-guard/capacity: the host's");
  mount_row ("the guard's configuration directory, read-only", KG_SYSCONFDIR "/kata-guard",
             "\"rbind\", \"ro\"", NULL, "policy.mounts", KG_SYSCONFDIR "/kata-guard: ");
  mount_row ("a configured record, read-only", "/srv/kg-rec/posture.json", "\"rbind\", \"ro\"", rec,
             "policy.mounts", "/srv/kg-rec/posture.json: kata-guard's own file");
  mount_row ("a configured record's temporary copy", "/srv/kg-rec/.posture.json.kg-tmp.x",
             "\"rbind\", \"ro\"", rec, "policy.mounts", "kata-guard's own file");
  mount_row ("the directory of a configured record", "/srv/kg-rec", "\"rbind\", \"ro\"", rec,
             "policy.mounts", "/srv/kg-rec: contains /srv/kg-rec/posture.json");
  mount_row ("/srv, above a configured record", "/srv", "\"rbind\", \"ro\"", rec, "policy.mounts",
             "/srv: contains /srv/kg-rec/posture.json");
  mount_row ("a configured record's neighbour", "/srv/kg-rec/data", "\"rbind\", \"ro\"", rec, "",
             "1 read-only");
  mount_row ("the decision log, read-only", "/srv/kg-log/decisions.json", "\"rbind\", \"ro\"", log,
             "policy.mounts", "kata-guard's own file");
  mount_row ("the decision log rotated", "/srv/kg-log/decisions.json.1", "\"rbind\", \"ro\"", log,
             "policy.mounts", "kata-guard's own file");
  mount_row ("the decision log's neighbour", "/srv/kg-log/pods", "\"rbind\", \"ro\"", log, "",
             "1 read-only");
  if (asprintf (&cfgfile, "%s/guard.toml", tmpdir) < 0
      || asprintf (&cfgtmp, "%s/.guard.toml.kg-tmp", tmpdir) < 0
      || asprintf (&link, "%s/state-link", tmpdir) < 0
      || asprintf (&real, "%s/real-rec", tmpdir) < 0
      || asprintf (&realrec, "%s/real-rec/posture.json", tmpdir) < 0
      || asprintf (&viarec, "%s/state-link/posture.json", tmpdir) < 0
      || asprintf (&recpol, "[drift]\nrecord = \"%s\"", viarec) < 0
      || asprintf (&want, "%s: kata-guard's own file", realrec) < 0)
    abort ();
  mount_row ("the configuration file itself", cfgfile, "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "kata-guard's own file");
  mount_row ("the configuration's temporary copy", cfgtmp, "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "kata-guard's own file");
  if (mkdir (real, 0755) < 0 || symlink (real, link) < 0)
    abort ();
  /* A record configured through a symlinked directory: its real place
     is the guard's too. */
  mount_row ("a record behind a symlinked directory, by its real path", realrec,
             "\"rbind\", \"ro\"", recpol, "policy.mounts", want);
  unlink (link);
  /* A symlink to the state directory is judged where it leads. */
  if (symlink ("/var/lib/kata-guard", link) < 0)
    abort ();
  mount_row ("a symlink to the guard's state directory", link, "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "-> /var/lib/kata-guard: kata-guard's own state");
  unlink (link);
  rmdir (real);
}

/* ---- Kata's own mount semantics ------------------------------------------
   What Kata's runtimes do with a mount beyond what its type says: an
   io.katacontainers.* option, a type of Kata's own, a source that is a
   block device or a direct-assigned volume. */

/* A mount of TYPE from SOURCE with OPTIONS (a JSON list's inside). */
static char *
typed_of (const char *type, const char *source, const char *options)
{
  char *s;

  if (asprintf (&s,
                "{\"destination\": \"/x\", \"type\": \"%s\", \"source\": \"%s\", "
                "\"options\": [%s]}",
                type, source, options)
      < 0)
    abort ();
  return s;
}

static void
typed_row (const char *name, const char *type, const char *source, const char *options,
           const char *fails, const char *needle)
{
  cleanup_free char *m = typed_of (type, source, options);
  cleanup_free char *spec = spec_of (NULL, m, NULL, NULL, NULL);

  run_expect (spec, ID_A, NULL, &kata_fc, name, fails, "policy.mounts", needle);
}

#define FSOPT_FILE "io.katacontainers.fs-opt.block_device=file"

/* A block device of this host, /dev/NAME of the first in /sys/block, in
   OUT; false when there is none. */
static bool
host_block_device (char *out, size_t size)
{
  DIR *d = opendir ("/sys/block");
  struct dirent *e;
  struct stat st;
  bool found = false;

  while (d != NULL && ! found && (e = readdir (d)) != NULL)
    if (e->d_name[0] != '.' && snprintf (out, size, "/dev/%s", e->d_name) < (int) size
        && stat (out, &st) == 0 && S_ISBLK (st.st_mode))
      found = true;
  if (d != NULL)
    closedir (d);
  return found;
}

static void
test_kata_options (void)
{
  static const struct
  {
    const char *name, *option, *more;
    bool on_disk; /* the source the host file, not "tmpfs" */
  } options[] = {
    { "removeIgnoredOCIMount@3.30.0: fs-opt.is-layer", "io.katacontainers.fs-opt.is-layer",
      ": Kata drops the mount", false },
    { "copyLayersToMounts@3.30.0: fs-opt.layer=", "io.katacontainers.fs-opt.layer=/x,ext4",
      ": a rootfs layer", false },
    { "createVirtualVolumeDevices@3.30.0: volume=", "io.katacontainers.volume=e30=",
      ": a virtual volume", false },
    { "fs_share_linux.go@3.30.0: volume.overlayfs.create_directory",
      "io.katacontainers.volume.overlayfs.create_directory=/x", ": a storage option", false },
    { "fs_handler.rs@4.1.0 (agent): fs-opt.overlay-rw", "io.katacontainers.fs-opt.overlay-rw",
      ": a storage option of Kata's agent", false },
    { "an io.katacontainers option kata-guard does not know", "io.katacontainers.fs-opt.frob",
      ": an io.katacontainers option kata-guard does not know", false },
    { "HasOption@3.30.0: the option in upper case", "IO.KATACONTAINERS.FS-OPT.BLOCK_DEVICE=FILE",
      "", true },
    { "HasOption@3.30.0: the option in mixed case", "Io.KataContainers.fs-opt.block_device=file",
      "", true },
    { "HasOption@3.30.0: the option after a space", " " FSOPT_FILE, "", true },
    { "HasOption@3.30.0: the option inside a comma list", "nosuid," FSOPT_FILE, "", true },
  };
  /* (A second procfs, a writable sysfs or cgroup fs: policy.confinement
     refuses them too.) */
  static const struct
  {
    const char *type, *fails;
  } types[] = {
    { "tmpfs", "policy.mounts" },
    { "proc", "policy.mounts policy.confinement" },
    { "sysfs", "policy.mounts policy.confinement" },
    { "mqueue", "policy.mounts" },
    { "devpts", "policy.mounts" },
    { "cgroup", "policy.mounts policy.confinement" },
    { "cgroup2", "policy.mounts policy.confinement" },
  };
  cleanup_free char *disk = NULL;
  cleanup_free char *want = NULL;
  char dev[PATH_MAX];

  if (asprintf (&disk, "%s/disk.img", tmpdir) < 0
      || asprintf (&want, "mounts[1] on /x: option \"" FSOPT_FILE "\": Kata hot-plugs the source")
             < 0)
    abort ();
  test_write_text (disk, "not a disk yet");
  /* The red team's mount: a virtual file system's type, the option, a
     host file (createBlockDevices, container.go@3.30.0). */
  for (size_t i = 0; i < ARRAY_SIZE (types); i++)
    {
      cleanup_free char *name = NULL;

      if (asprintf (&name, "createBlockDevices@3.30.0: " FSOPT_FILE " on a %s mount of a host file",
                    types[i].type)
          < 0)
        abort ();
      typed_row (name, types[i].type, disk, "\"" FSOPT_FILE "\"", types[i].fails, want);
    }
  typed_row ("createBlockDevices@3.30.0: " FSOPT_FILE ", read-only, on tmpfs", "tmpfs", disk,
             "\"ro\", \"" FSOPT_FILE "\"", "policy.mounts", want);
  typed_row ("createBlockDevices@3.30.0: " FSOPT_FILE " on a bind, read-only", "bind", disk,
             "\"rbind\", \"ro\", \"" FSOPT_FILE "\"", "policy.mounts", want);
  typed_row ("createBlockDevices@3.30.0: " FSOPT_FILE " on tmpfs of source \"tmpfs\"", "tmpfs",
             "tmpfs", "\"" FSOPT_FILE "\"", "policy.mounts", "option \"" FSOPT_FILE "\"");
  if (host_block_device (dev, sizeof dev))
    {
      cleanup_free char *src = NULL;

      if (asprintf (&src, "mounts[1] on /x: option \"" FSOPT_FILE "\"") < 0)
        abort ();
      typed_row ("createDeviceInfo@3.30.0: " FSOPT_FILE " on tmpfs of the host's disk", "tmpfs",
                 dev, "\"" FSOPT_FILE "\"", "policy.mounts", src);
    }
  else
    ok (1, "# SKIP " FSOPT_FILE " on the host's disk: no block device in /sys/block");
  /* Every io.katacontainers option, what Kata does with it or not, and
     the case and spelling variants: Kata's match is exact (HasOption,
     mount.go@3.30.0), the guard's is not. */
  for (size_t i = 0; i < ARRAY_SIZE (options); i++)
    {
      cleanup_free char *quoted = NULL;
      cleanup_free char *needle = NULL;

      if (asprintf (&quoted, "\"%s\"", options[i].option) < 0
          || asprintf (&needle, "option \"%s\"%s", options[i].option, options[i].more) < 0)
        abort ();
      typed_row (options[i].name, "tmpfs", options[i].on_disk ? disk : "tmpfs", quoted,
                 "policy.mounts", needle);
    }
  /* What a virtual file system is otherwise: its source is no path. */
  typed_row ("a plain tmpfs passes", "tmpfs", "tmpfs", "\"nosuid\", \"size=65536k\"", "",
             "0 bind mounts");
}

/* Types of Kata's own, and the sources it reads beyond their type. */
static void
test_kata_types (void)
{
  static const struct
  {
    const char *type, *needle;
  } rows[] = {
    { "ephemeral", "handleEphemeralStorage" }, { "local", "handleLocalStorage" },
    { "directvol", "is_direct_volume" },       { "vfiovol", "is_direct_volume" },
    { "spdkvol", "is_direct_volume" },         { "spoolvol", "is_direct_volume" },
    { "kata:guest-mount:nfs", "kata:" },
  };
  cleanup_free char *blk = NULL;
  cleanup_free char *bwant = NULL;

  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      cleanup_free char *name = NULL;
      cleanup_free char *want = NULL;

      if (asprintf (&name, "Kata's type \"%s\" (%s)", rows[i].type, rows[i].needle) < 0
          || asprintf (&want, "type \"%s\" on /x: ", rows[i].type) < 0)
        abort ();
      typed_row (name, rows[i].type, "/srv/data", "\"ro\"", "policy.mounts", want);
      free (name);
      if (asprintf (&name, "Kata's type \"%s\": names %s", rows[i].type, rows[i].needle) < 0)
        abort ();
      typed_row (name, rows[i].type, "/srv/data", "\"ro\"", "policy.mounts", rows[i].needle);
    }
  /* Isk8sHostEmptyDir (mount.go@3.30.0) and is_disk_empty_dir
     (k8s.rs@4.1.0) read the source of a mount of any type. */
  typed_row ("Isk8sHostEmptyDir@3.30.0: a tmpfs of another pod's emptyDir", "tmpfs",
             "/var/lib/kubelet/pods/0d7e3c5a-1111-4222-8333-944455556666/volumes/"
             "kubernetes.io~empty-dir/v",
             "\"nosuid\"", "policy.mounts", "the kubelet's state");
  typed_row ("Isk8sHostEmptyDir@3.30.0: a proc mount of an emptyDir under /etc", "proc",
             "/etc/kubernetes.io~empty-dir/v", "", "policy.mounts policy.confinement",
             "the host's configuration");
  /* A block device anywhere: createDeviceInfo (container.go@3.30.0) and
     is_block_volume (block_volume.rs@4.1.0) hot-plug it into the VM. */
  if (geteuid () != 0)
    ok (1, "# SKIP a block device node: mknod needs root");
  else if (need_trusted ("a block device node outside /dev"))
    {
      if (asprintf (&blk, "%s/vda", tmpdir) < 0
          || asprintf (&bwant, "%s: a block device (Kata hot-plugs it", blk) < 0)
        abort ();
      if (mknod (blk, S_IFBLK | 0600, makedev (7, 200)) < 0)
        abort ();
      mount_row ("createDeviceInfo@3.30.0, is_block_volume@4.1.0: a block device, read-only bind",
                 blk, "\"rbind\", \"ro\"", NULL, "policy.mounts", bwant);
      typed_row ("createDeviceInfo@3.30.0: a block device with no option, tmpfs type", "tmpfs", blk,
                 "\"bind\", \"ro\"", "policy.mounts", bwant);
      unlink (blk);
    }
  /* Direct-assigned volumes: the state kata-runtime direct-volume add
     writes (direct-volume/utils.go@3.30.0) under Kata's own root. */
  mount_row ("VolumeMountInfo@3.30.0: a source in the direct-volume state",
             "/run/kata-containers/shared/direct-volumes/L3Nydi9kYXRh", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "Kata's runtime state");
  mount_row ("VolumeMountInfo@3.30.0: Kata's state through /var/run",
             "/var/run/kata-containers/shared", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "Kata's runtime state");
  if (geteuid () != 0)
    ok (1, "# SKIP a registered direct-assigned volume: needs root (Kata's state is in /run)");
  else
    {
      /* base64url ("/srv/kg-dv-test") */
      static const char enc[] = "L3Nydi9rZy1kdi10ZXN0";
      static const char root[] = "/run/kata-containers/shared/direct-volumes";
      cleanup_free char *dir = NULL;
      cleanup_free char *cmd = NULL;
      bool made_root = access ("/run/kata-containers", F_OK) != 0;

      if (asprintf (&dir, "%s/%s", root, enc) < 0
          || asprintf (&cmd,
                       "mkdir -p '%s' && echo '{\"device\": \"/dev/sda\"}' >'%s/mountInfo.json'",
                       dir, dir)
                 < 0)
        abort ();
      if (access (dir, F_OK) == 0 || system (cmd) != 0)
        ok (1, "# SKIP a registered direct-assigned volume: cannot make %s", dir);
      else
        {
          mount_row ("VolumeMountInfo@3.30.0, is_direct_volume@4.1.0: a registered source, "
                     "read-only bind",
                     "/srv/kg-dv-test", "\"rbind\", \"ro\"", NULL, "policy.mounts",
                     "/srv/kg-dv-test: a direct-assigned volume");
          typed_row ("is_direct_volume@4.1.0: a registered source, type directvol", "directvol",
                     "/srv/kg-dv-test", "", "policy.mounts", "is_direct_volume");
        }
      free (cmd);
      if (asprintf (&cmd, "rm -rf '%s'%s", made_root ? "/run/kata-containers" : dir, "") < 0)
        abort ();
      if (system (cmd) != 0)
        ok (0, "cannot remove %s", dir);
    }
}

/* The option in a pod's sandbox and in a member of the pod, as CRI
   starts them behind the shim. */
static void
test_kata_options_pod (void)
{
  static const char sandbox_ann[] = "\"annotations\": {"
                                    "\"io.kubernetes.cri.container-type\": \"sandbox\", "
                                    "\"io.kubernetes.cri.sandbox-id\": \"" ID_B "\", "
                                    "\"io.kubernetes.cri.sandbox-uid\": "
                                    "\"0d7e3c5a-1111-4222-8333-944455556666\", "
                                    "\"io.kubernetes.cri.sandbox-memory\": \"268435456\", "
                                    "\"io.kubernetes.cri.sandbox-cpu-quota\": \"100000\", "
                                    "\"io.kubernetes.cri.sandbox-cpu-period\": \"100000\"}";
  static const char member_ann[] = "\"annotations\": {"
                                   "\"io.kubernetes.cri.container-type\": \"container\", "
                                   "\"io.kubernetes.cri.sandbox-id\": \"" ID_B "\", "
                                   "\"io.kubernetes.cri.sandbox-uid\": "
                                   "\"0d7e3c5a-1111-4222-8333-944455556666\"}";
  cleanup_free char *m = typed_of ("tmpfs", "/srv/disk.img", "\"" FSOPT_FILE "\"");
  cleanup_free char *sb_spec = spec_of (NULL, m, NULL, NULL, sandbox_ann);
  cleanup_free char *member_spec = spec_of (NULL, m, NULL, NULL, member_ann);

  pod_sandbox_write (ID_B, "0d7e3c5a-1111-4222-8333-944455556666");
  run_mode = KG_MODE_SHIM;
  run_ns = "k8s.io";
  run_expect (sb_spec, ID_B, NULL, &kata_fc, "shim: " FSOPT_FILE " on tmpfs in a pod's sandbox",
              "policy.mounts", "policy.mounts", "option \"" FSOPT_FILE "\"");
  run_expect (member_spec, ID_A, NULL, &kata_fc, "shim: " FSOPT_FILE " on tmpfs in a pod member",
              "policy.mounts", "policy.mounts", "option \"" FSOPT_FILE "\"");
  run_mode = KG_MODE_OCI;
  run_ns = NULL;
  /* (CRI's annotations are believed from containerd's CRI alone.) */
  run_expect (member_spec, ID_A, NULL, &kata_fc, "OCI: " FSOPT_FILE " on tmpfs in a pod member",
              "policy.identity policy.mounts", "policy.mounts", "option \"" FSOPT_FILE "\"");
  run_mode = KG_MODE_CHECK;
}

int
main (void)
{
  policy_test_start ();
  test_mounts ();
  test_many_findings ();
  test_guard_state ();
  test_mount_remedies ();
  test_volume_bind ();
  test_volume_mountinfo ();
  test_shared_directory ();
  test_redirect ();
  test_kata_options ();
  test_kata_types ();
  test_kata_options_pod ();
  return policy_test_end ();
}
