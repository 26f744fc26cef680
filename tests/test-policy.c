/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.* as a family: the real Docker and containerd specs (every rule at once), config.json read strictly, paths resolved, policy.confinement.
   (tests/test-policy.h: what every part of policy.*'s tests shares.) */
#include "test-policy.h"

static void
test_fixtures (void)
{
  struct host_device dev;
  bool have_dev = host_device (&dev);

  if (have_dev)
    printf ("# /dev/kvm as a device of this host's: %s (%c %u:%u)\n", dev.path, dev.type, dev.maj,
            dev.min);
  for (size_t i = 0; i < ARRAY_SIZE (fixture_rows); i++)
    {
      bool host_dev = fixture_rows[i].host_dev;
      const char *policy = fixture_rows[i].policy;
      cleanup_free char *path = NULL;
      cleanup_free char *id = NULL;
      cleanup_free char *name = NULL;
      cleanup_free char *dev_policy = NULL;
      cleanup_free char *dev_needle = NULL;
      const char *needle = fixture_rows[i].needle;
      char *spec;
      struct report rep;

      if (asprintf (&path, "%s/oci/%s", fixtures, fixture_rows[i].file) < 0
          || asprintf (&name, "%s%s%s%s%s", fixture_rows[i].file,
                       fixture_rows[i].hook == HOOK_STALE ? " (stale hook)" : "",
                       host_dev ? ", /dev/kvm as a device of this host's" : "",
                       policy == NULL ? ""
                       : host_dev     ? " in [policy] devices"
                                      : " with ",
                       policy && ! host_dev ? policy : "")
                 < 0)
        abort ();
      if (host_dev && ! have_dev)
        {
          ok (true, "# SKIP %s: no device under /dev but those every engine grants", name);
          continue;
        }
      spec = read_text (path);
      if (host_dev)
        {
          spec = as_host_device (spec, &dev);
          dev_needle = as_host_device (strdup (needle), &dev);
          needle = dev_needle;
          if (policy != NULL)
            policy = dev_policy = as_host_device (strdup (policy), &dev);
        }
      id = docker_id (spec);
      if (fixture_rows[i].hook == HOOK_DOCKERD)
        spec = replace (spec, "/proc/12695/exe", "/usr/sbin/dockerd");
      /* The engine's own network namespace, as Docker's netns/default is. */
      spec = replace (spec, "/var/run/docker/netns/default", "/proc/self/ns/net");
      /* Docker's specs as Docker starts them: in its namespace, with its
         record of the container in its data root; ctr's in "default". */
      if (strncmp (fixture_rows[i].file, "docker", 6) == 0)
        run_docker (&spec, id, policy, &kata_fc, &rep);
      else
        {
          run_ns = "default";
          run_policy (spec, id, policy, &kata_fc, &rep, NULL);
        }
      run_ns = NULL;
      expect (&rep, name, fixture_rows[i].fails, fixture_rows[i].item_id, needle);
      if (strstr (fixture_rows[i].fails, "policy.privileged") == fixture_rows[i].fails
          && *fixture_rows[i].fails)
        {
          const char *first = NULL;

          for (size_t j = 0; j < rep.n && first == NULL; j++)
            if (rep.results[j].verdict == VERDICT_FAIL)
              first = rep.results[j].id;
          is_str (first, "policy.privileged", "%s: the first failure is policy.privileged", name);
        }
      report_release (&rep);
      free (spec);
    }
}

/* policy.confinement: a spec_of () spec with FROM replaced by TO (or,
   with FROM NULL, LINUX_MORE and MOUNTS added). */
static void
confine_row (const char *name, const char *from, const char *to, const char *mounts,
             const char *linux_more, const char *fails, const char *item, const char *needle)
{
  char *spec = spec_of (NULL, mounts, NULL, linux_more, NULL);

  if (from != NULL)
    spec = replace (spec, from, to);
  run_expect (spec, ID_A, NULL, &kata_fc, name, fails, item, needle);
  free (spec);
}

static void
test_confinement (void)
{
  confine_row ("the default confinement", NULL, NULL, NULL, NULL, "", "policy.confinement",
               "own mount namespace, /proc masked");
  confine_row ("no mount namespace", "{\"type\": \"mount\"}", "{\"type\": \"cgroup\"}", NULL, NULL,
               "policy.confinement", "policy.confinement", "no mount namespace");
  confine_row ("the host's mount namespace joined", "{\"type\": \"mount\"}",
               "{\"type\": \"mount\", \"path\": \"/proc/1/ns/mnt\"}", NULL, NULL,
               "policy.confinement", "policy.confinement",
               "the mount namespace is joined (/proc/1/ns/mnt)");
  confine_row ("a user namespace joined", "{\"type\": \"mount\"}",
               "{\"type\": \"mount\"}, {\"type\": \"user\", \"path\": \"/proc/1/ns/user\"}", NULL,
               NULL, "policy.confinement", "policy.confinement",
               "the user namespace is joined (/proc/1/ns/user)");
  /* OCI mode: a runc-style runtime joins these on the host (runc's
     nsexec.c join_namespaces); Kata empties them (constrainGRPCSpec). */
  {
    static const struct
    {
      const char *name, *entry, *fails, *needle;
    } joins[] = {
      { "mount", "{\"type\": \"mount\", \"path\": \"/proc/1/ns/mnt\"}",
        "policy.namespaces policy.confinement",
        "the mount namespace is joined by path "
        "(/proc/1/ns/mnt): the OCI runtime joins it on the host" },
      { "user", "{\"type\": \"mount\"}, {\"type\": \"user\", \"path\": \"/proc/1/ns/user\"}",
        "policy.namespaces policy.confinement", "the user namespace is joined by path" },
      { "cgroup", "{\"type\": \"mount\"}, {\"type\": \"cgroup\", \"path\": \"/proc/1/ns/cgroup\"}",
        "policy.namespaces", "the cgroup namespace is joined by path" },
      { "time", "{\"type\": \"mount\"}, {\"type\": \"time\", \"path\": \"/proc/1/ns/time\"}",
        "policy.namespaces", "the time namespace is joined by path" },
    };

    for (size_t i = 0; i < ARRAY_SIZE (joins); i++)
      {
        char name[96];

        run_mode = KG_MODE_OCI;
        snprintf (name, sizeof name, "OCI mode: the host's %s namespace joined", joins[i].name);
        confine_row (name, "{\"type\": \"mount\"}", joins[i].entry, NULL, NULL, joins[i].fails,
                     "policy.namespaces", joins[i].needle);
        run_mode = KG_MODE_SHIM;
        snprintf (name, sizeof name, "shim mode: the host's %s namespace joined", joins[i].name);
        confine_row (name, "{\"type\": \"mount\"}", joins[i].entry, NULL, NULL,
                     strstr (joins[i].fails, "confinement") ? "policy.confinement" : "",
                     "policy.namespaces", "new network namespace");
        run_mode = KG_MODE_CHECK;
      }
    run_mode = KG_MODE_OCI;
    confine_row ("OCI mode: a new cgroup and time namespace", "{\"type\": \"mount\"}",
                 "{\"type\": \"mount\"}, {\"type\": \"cgroup\"}, {\"type\": \"time\"}", NULL, NULL,
                 "", "policy.namespaces", "new network namespace");
    run_mode = KG_MODE_CHECK;
  }
  confine_row ("no uts namespace (--uts host)", "{\"type\": \"uts\"}, ", "", NULL, NULL,
               "policy.namespaces", "policy.namespaces", "no uts namespace");
  confine_row ("procMount Unmasked (empty maskedPaths)", MASKED, "\"maskedPaths\": []", NULL, NULL,
               "policy.confinement", "policy.confinement",
               "/proc/acpi is not masked (linux.maskedPaths)");
  confine_row ("no readonlyPaths", READONLY ",", "", NULL, NULL, "policy.confinement",
               "policy.confinement", "/proc/bus is not read-only");
  confine_row ("/proc/sys writable", "\"/proc/sys\", ", "", NULL, NULL, "policy.confinement",
               "policy.confinement", "/proc/sys is not read-only");
  confine_row ("AppArmor unconfined", "\"process\": {",
               "\"process\": {\"apparmorProfile\": "
               "\"unconfined\", ",
               NULL, NULL, "policy.confinement", "policy.confinement",
               "AppArmor profile \"unconfined\" (process.apparmorProfile) is not one of [policy] "
               "apparmor_profiles");
  /* An allowlist: the engines' own profiles, not merely "not unconfined". */
  {
    static const char *const engines[] = { "docker-default", "containers-default-0.62.1",
                                           "cri-containerd.apparmor.d", "crio-default", "" };
    static const char *const others[] = { "unconfined ", "Unconfined", "kata-guard",
                                          "/usr/sbin/libvirtd", "docker-defaults" };

    for (size_t i = 0; i < ARRAY_SIZE (engines) + ARRAY_SIZE (others); i++)
      {
        bool ours = i < ARRAY_SIZE (engines);
        const char *p = ours ? engines[i] : others[i - ARRAY_SIZE (engines)];
        cleanup_free char *to = NULL, *name = NULL, *needle = NULL;

        if (asprintf (&to, "\"process\": {\"apparmorProfile\": \"%s\", ", p) < 0
            || asprintf (&name, "AppArmor profile \"%s\"", p) < 0
            || asprintf (&needle, "AppArmor profile \"%s\" (process.apparmorProfile) is not one", p)
                   < 0)
          abort ();
        confine_row (name, "\"process\": {", to, NULL, NULL, ours ? "" : "policy.confinement",
                     "policy.confinement", ours ? "own mount namespace" : needle);
      }
  }
  {
    char *spec = replace (spec_of (NULL, NULL, NULL, NULL, NULL), "\"process\": {",
                          "\"process\": {\"apparmorProfile\": \"docker-default\", ");

    run_expect (spec, ID_A, "apparmor_profiles = [\"site-*\"]", &kata_fc,
                "docker-default when [policy] apparmor_profiles lists another",
                "policy.confinement", "policy.confinement",
                "AppArmor profile \"docker-default\" (process.apparmorProfile) is not one");
    free (spec);
    spec = replace (spec_of (NULL, NULL, NULL, NULL, NULL), "\"process\": {",
                    "\"process\": {\"apparmorProfile\": \"site-web\", ");
    run_expect (spec, ID_A, "apparmor_profiles = [\"site-*\"]", &kata_fc,
                "a profile [policy] apparmor_profiles matches", "", "policy.confinement",
                "own mount namespace");
    free (spec);
  }
  confine_row ("an AppArmor profile that is a number", "\"process\": {",
               "\"process\": {\"apparmorProfile\": 7, ", NULL, NULL, "policy.confinement",
               "policy.confinement", "apparmorProfile");
  /* SELinux: the process's label is policy.labels' (it reaches the host);
     the mount label, the agent's in the guest, is confinement's. */
  confine_row ("SELinux spc_t", "\"process\": {",
               "\"process\": {\"selinuxLabel\": "
               "\"system_u:system_r:spc_t:s0\", ",
               NULL, NULL, "policy.labels", "policy.confinement", "own mount namespace");
  confine_row ("the engines' mount label", NULL, NULL, NULL,
               "\"mountLabel\": \"system_u:object_r:container_file_t:s0:c1,c2\"", "",
               "policy.confinement", "own mount namespace");
  confine_row ("a mount label of the host's", NULL, NULL, NULL,
               "\"mountLabel\": \"system_u:object_r:shadow_t:s0\"", "policy.confinement",
               "policy.confinement",
               "linux.mountLabel \"system_u:object_r:shadow_t:s0\": type \"shadow_t\" is not one");
  confine_row ("a mount label in a process role", NULL, NULL, NULL,
               "\"mountLabel\": \"system_u:system_r:container_file_t:s0\"", "policy.confinement",
               "policy.confinement", "role \"system_r\" is not object_r");
  confine_row ("a mount label over every category", NULL, NULL, NULL,
               "\"mountLabel\": \"system_u:object_r:container_file_t:s0-s0:c0.c1023\"",
               "policy.confinement", "policy.confinement", "level \"s0-s0:c0.c1023\" is not");
  confine_row ("rshared root propagation", NULL, NULL, NULL, "\"rootfsPropagation\": \"rshared\"",
               "policy.confinement", "policy.confinement", "rootfsPropagation \"rshared\"");
  confine_row ("a kernel sysctl", NULL, NULL, NULL,
               "\"sysctl\": {\"net.ipv4.ip_forward\": \"1\", \"kernel.core_pattern\": \"|/tmp/x\"}",
               "policy.confinement", "policy.confinement",
               "sysctl kernel.core_pattern is the kernel's, not the container's namespace's");
  confine_row ("namespaced sysctls", NULL, NULL, NULL,
               "\"sysctl\": {\"net.ipv4.ip_unprivileged_port_start\": \"0\", "
               "\"kernel/shmmax\": \"1\", \"fs.mqueue.msg_max\": \"10\"}",
               "", "policy.confinement", "only namespaced sysctls");
  confine_row ("a shared bind", NULL, NULL,
               "{\"destination\": \"/x\", \"type\": \"bind\", \"source\": \"/srv\", "
               "\"options\": [\"rbind\", \"ro\", \"rshared\"]}",
               NULL, "policy.confinement", "policy.confinement",
               "mount /x is shared (mounts made inside would appear outside)");
  confine_row ("an id-mapped bind", NULL, NULL,
               "{\"destination\": \"/x\", \"type\": \"bind\", \"source\": \"/srv\", "
               "\"options\": [\"rbind\", \"ro\"], \"uidMappings\": [{\"containerID\": 0, "
               "\"hostID\": 0, \"size\": 1}]}",
               NULL, "policy.confinement", "policy.confinement", "mount /x is id-mapped");
  confine_row ("a second procfs", NULL, NULL,
               "{\"destination\": \"/hostproc\", \"type\": \"proc\", \"source\": \"proc\"}", NULL,
               "policy.confinement", "policy.confinement",
               "a second procfs at /hostproc (the masks apply at /proc only)");
  confine_row ("a writable sysfs", NULL, NULL,
               "{\"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\", "
               "\"options\": [\"nosuid\", \"noexec\", \"nodev\"]}",
               NULL, "policy.confinement", "policy.confinement", "sysfs at /sys is writable");
  /* The decoder oracle's crash: options that are not an array. */
  confine_row ("mount options that are an object", NULL, NULL,
               "{\"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\", "
               "\"options\": {}}",
               NULL, "policy.mounts policy.confinement", "policy.confinement",
               "sysfs at /sys is writable");
  confine_row ("a read-only sysfs", NULL, NULL,
               "{\"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\", "
               "\"options\": [\"nosuid\", \"noexec\", \"nodev\", \"ro\"]}",
               NULL, "", "policy.confinement", "own mount namespace");
}

/* ---- reading config.json -------------------------------------------- */

static void
spec_row (const char *name, const char *spec, const char *needle)
{
  struct report rep;

  run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
  ok (once_each (&rep), "%s: every policy id reported once", name);
  is_int (report_count (&rep, VERDICT_FAIL), 1, "%s: only policy.spec fails", name);
  is_int (report_count (&rep, VERDICT_SKIP), (int) ARRAY_SIZE (all_ids) - 1,
          "%s: the rules are not run", name);
  has_str (reason (&rep, "policy.spec"), needle, "%s: %s", name, needle);
  report_release (&rep);
}

static void
test_spec (void)
{
  char *big, *deep;
  size_t n;

  spec_row ("not JSON", "{\"ociVersion\": \"1.0.2\",", "truncated JSON");
  spec_row ("a syntax error", "{\"ociVersion\": \"1.0.2\" \"x\": 1}", "invalid JSON at byte 23");
  spec_row ("single quotes (strict)", "{'ociVersion': '1.0.2'}", "invalid JSON at byte");
  spec_row ("a comment (strict)", "{/* c */ \"ociVersion\": \"1.0.2\"}", "invalid JSON");
  spec_row ("invalid UTF-8", "{\"ociVersion\": \"1.0.2\", \"x\": \"\xff\"}", "invalid JSON");
  /* Four-byte characters (json-c 0.18's own UTF-8 check refuses them). */
  {
    cleanup_free char *spec = spec_of (NULL, NULL, NULL, NULL,
                                       "\"annotations\": {\"note\": \"\xc3\xa9\xf0\x9f\x98\x80 "
                                       "\\ud83d\\ude00\"}");

    run_expect (spec, ID_A, NULL, &kata_fc, "a four-byte UTF-8 character, raw and escaped", "",
                "policy.spec", "OCI 1.0.2");
  }
  /* What Go's decoders read and json-c does not keep. */
  spec_row ("a key given twice (hooks)",
            "{\"ociVersion\": \"1.0.2\", \"hooks\": {\"prestart\": [{\"path\": \"/bin/sh\"}]}, "
            "\"hooks\": {}}",
            "duplicate key \"hooks\"");
  spec_row ("\"hooKs\" with U+212A for k",
            "{\"ociVersion\": \"1.0.2\", \"hoo\xe2\x84\xaas\": {\"prestart\": []}}",
            "is not \"hooks\" but Go's decoders");
  spec_row ("\"mountſ\" with U+017F for s", "{\"ociVersion\": \"1.0.2\", \"mount\xc5\xbf\": []}",
            "is not \"mounts\"");
  spec_row ("a nested \"Namespaces\"",
            "{\"ociVersion\": \"1.0.2\", \"linux\": {\"Namespaces\": []}}",
            "key \"Namespaces\" is not \"namespaces\"");
  spec_row ("\"annotationſ\"", "{\"ociVersion\": \"1.0.2\", \"annotation\xc5\xbf\": {}}",
            "is not \"annotations\"");
  {
    /* Map keys are data: an annotation may be called anything. */
    cleanup_free char *spec = spec_of (
        NULL, NULL, NULL, NULL, "\"annotations\": {\"Hooks\": \"x\", \"mount\xc5\xbf\": \"y\"}");

    run_expect (spec, ID_A, NULL, &kata_fc, "annotations named like fields", "", "policy.spec",
                "OCI 1.0.2");
  }
  spec_row ("an overlong UTF-8 form", "{\"ociVersion\": \"1.0.2\", \"x\": \"\xc0\xaf\"}",
            "invalid UTF-8");
  spec_row ("a UTF-8 surrogate", "{\"ociVersion\": \"1.0.2\", \"x\": \"\xed\xa0\x80\"}",
            "invalid UTF-8");
  spec_row ("two documents", "{\"ociVersion\": \"1.0.2\"} {}", "invalid JSON at byte 24");
  spec_row ("an array", "[1]", "the document is an array, not an object");
  spec_row ("no ociVersion", "{}", "ociVersion is missing");
  spec_row ("ociVersion a number", "{\"ociVersion\": 1}", "ociVersion is an integer");
  spec_row ("ociVersion 2", "{\"ociVersion\": \"2.0.0\"}", "ociVersion \"2.0.0\" is not 1.x");
  spec_row ("ociVersion 10", "{\"ociVersion\": \"10.0\"}", "is not 1.x");

  /* 5 MiB: refused by size before it is parsed. */
  big = malloc (5 << 20);
  if (big == NULL)
    abort ();
  memset (big, ' ', (5 << 20) - 1);
  memcpy (big, "{\"ociVersion\": \"1.0.2\"}", 23);
  big[(5 << 20) - 1] = '\0';
  spec_row ("a 5 MiB spec", big, "is 5242879 bytes, more than the 4194304 allowed");
  free (big);

  /* 100 levels deep. */
  deep = malloc (1024);
  if (deep == NULL)
    abort ();
  n = (size_t) sprintf (deep, "{\"ociVersion\": \"1.0.2\", \"x\": ");
  for (int i = 0; i < 100; i++)
    deep[n++] = '[';
  for (int i = 0; i < 100; i++)
    deep[n++] = ']';
  strcpy (deep + n, "}");
  spec_row ("a 100-deep spec", deep, "nested deeper than 64 levels");
  free (deep);

  {
    cleanup_free char *bundle = NULL;
    cleanup_free char *target = NULL;
    cleanup_free char *link = NULL;
    cleanup_free char *good = spec_of (NULL, NULL, NULL, NULL, NULL);
    struct report rep;

    if (asprintf (&bundle, "%s/symlinked", tmpdir) < 0 || mkdir (bundle, 0755) < 0
        || asprintf (&target, "%s/real.json", tmpdir) < 0
        || asprintf (&link, "%s/config.json", bundle) < 0)
      abort ();
    test_write_text (target, good);
    if (symlink (target, link) < 0)
      abort ();
    run_policy (NULL, ID_A, NULL, &kata_fc, &rep, &bundle);
    has_str (reason (&rep, "policy.spec"), "config.json is a symbolic link",
             "a symlinked config.json is refused");
    ok (once_each (&rep) && report_count (&rep, VERDICT_FAIL) == 1,
        "a symlinked config.json: only policy.spec fails");
    report_release (&rep);
    unlink (link);
    if (mkfifo (link, 0600) < 0)
      abort ();
    run_policy (NULL, ID_A, NULL, &kata_fc, &rep, &bundle);
    has_str (reason (&rep, "policy.spec"), "config.json is not a regular file",
             "a FIFO config.json is refused without hanging");
    report_release (&rep);
    unlink (link);
    run_policy (NULL, ID_A, NULL, &kata_fc, &rep, &bundle);
    has_str (reason (&rep, "policy.spec"), "config.json: No such file or directory",
             "a missing config.json is refused");
    report_release (&rep);
    rmdir (bundle);
    unlink (target);
  }
  {
    struct guard_config cfg;
    struct report rep = { 0 };
    struct request req = { .mode = KG_MODE_CHECK };
    struct preflight pf;
    cleanup_free char *cfg_path = NULL;
    kg_error_t err = NULL;

    if (asprintf (&cfg_path, "%s/guard.toml", tmpdir) < 0)
      abort ();
    test_write_text (cfg_path, "[policy]\nprivileged = false\n");
    if (guard_config_load (cfg_path, &cfg, &err) < 0)
      abort ();
    preflight_init (&pf, &req, &cfg, &rep);
    check_policy (&pf);
    /* Without a bundle, check judges the host by the default container
       (policy.default_start: tests/test-policy-resources.c), one line;
       a start (which always has one) never does. */
    is_int (rep.n, 1, "without a bundle, check reports one policy line");
    is_str (rep.n ? rep.results[0].id : "", "policy.default_start",
            "and it is policy.default_start");
    req.mode = KG_MODE_SHIM;
    check_policy (&pf);
    is_int (rep.n, 1, "without a bundle, a start's policy family reports nothing more");
    req.mode = KG_MODE_CHECK;
    req.bundle = "relative/bundle";
    check_policy (&pf);
    has_str (reason (&rep, "policy.spec"), "is not an absolute path",
             "a relative bundle is refused");
    preflight_release (&pf);
    report_release (&rep);
    guard_config_release (&cfg);
  }
}

static void
test_resolve (void)
{
  static const struct
  {
    const char *in;
    bool follow;
    const char *want;
  } rows[] = {
    { "/a/b/../c", false, "/a/c" },
    { "/a/./b//c/", false, "/a/b/c" },
    { "/..", false, "/" },
    { "/../../x", false, "/x" },
    { "/", false, "/" },
    /* Written resolved already (a copy), or nearly. */
    { "/a/b", false, "/a/b" },
    { "/a/.b/..c/.../c.", false, "/a/.b/..c/.../c." },
    { "/a/b/.", false, "/a/b" },
    { "/a/b/..", false, "/a" },
    { "/a//b", false, "/a/b" },
    { "/a/b/", false, "/a/b" },
    { "/.", false, "/" },
    { "//", false, "/" },
    { "a/./b", false, "/a/b" },
    { "/var/run/docker.sock", true, "/run/docker.sock" },
    { "/var/run/../nonexistent-x", true, "/nonexistent-x" },
    { "/nonexistent/x/../y", true, "/nonexistent/y" },
  };

  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      cleanup_free char *out = NULL;
      kg_error_t err = NULL;

      if (policy_path_resolve ("/", rows[i].in, rows[i].follow, &out, &err) < 0)
        {
          ok (0, "resolve %s: %s", rows[i].in, err->msg);
          kg_error_release (&err);
          continue;
        }
      is_str (out, rows[i].want, "resolve %s%s", rows[i].in, rows[i].follow ? " (follow)" : "");
    }
  {
    /* Longer than a path may be, written resolved or not. */
    char long_path[PATH_MAX + 64];
    cleanup_free char *out = NULL;
    kg_error_t err = NULL;

    for (size_t i = 0; i + 8 < sizeof long_path; i += 8)
      memcpy (long_path + i, "/abcdefg", 8);
    long_path[sizeof long_path - 8] = '\0';
    ok (policy_path_resolve ("/", long_path, false, &out, &err) < 0 && err->errnum == ENAMETOOLONG,
        "a path longer than PATH_MAX is an error");
    kg_error_release (&err);
  }
  {
    cleanup_free char *loop = NULL;
    cleanup_free char *out = NULL;
    kg_error_t err = NULL;

    if (asprintf (&loop, "%s/loop", tmpdir) < 0 || symlink (loop, loop) < 0)
      abort ();
    ok (policy_path_resolve ("/", loop, true, &out, &err) < 0, "a symlink loop is an error");
    has_str (err ? err->msg : NULL, "Too many levels of symbolic links", "it says why");
    kg_error_release (&err);
    unlink (loop);
  }
}

/* ---- strings whole ------------------------------------------------------ */

/* A spec every rule allows, each string value the rules read followed by
   <ITS PATH>: a row per path plants \u0000 and more after that value (a
   rule would read the value, runc, containerd and Kata the value and what
   follows it), the others read as written.  @DIR@ is a directory of the
   rows'. */
static const char nul_template[]
    = "{\"ociVersion\": \"1.0.2<ociVersion>\",\n"
      " \"hostname\": \"h<hostname>\",\n"
      " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0,\n"
      "   \"username\": \"root<process.user.username>\"},\n"
      "   \"args\": [\"/bin/true<process.args[0]>\", \"x<process.args[1]>\"],\n"
      "   \"env\": [\"PATH=/bin<process.env[0]>\"], \"cwd\": \"/<process.cwd>\",\n"
      "   \"capabilities\": {\"bounding\": [\"CAP_CHOWN<process.capabilities.bounding[0]>\"],\n"
      "     \"effective\": [\"CAP_CHOWN<process.capabilities.effective[0]>\"],\n"
      "     \"permitted\": [\"CAP_CHOWN<process.capabilities.permitted[0]>\"],\n"
      "     \"inheritable\": [\"CAP_CHOWN<process.capabilities.inheritable[0]>\"],\n"
      "     \"ambient\": [\"CAP_CHOWN<process.capabilities.ambient[0]>\"]},\n"
      "   \"rlimits\": [{\"type\": \"RLIMIT_NOFILE<process.rlimits[0].type>\", \"hard\": 1024, "
      "\"soft\": 1024}],\n"
      "   \"apparmorProfile\": \"docker-default<process.apparmorProfile>\",\n"
      "   \"selinuxLabel\": \"system_u:system_r:container_t:s0<process.selinuxLabel>\"},\n"
      " \"root\": {\"path\": \"rootfs<root.path>\"},\n"
      " \"mounts\": [{\"destination\": \"/proc<mounts[0].destination>\", \"type\": "
      "\"proc<mounts[0].type>\", \"source\": \"proc<mounts[0].source>\"},\n"
      "   {\"destination\": \"/data<mounts[1].destination>\", \"type\": \"bind<mounts[1].type>\", "
      "\"source\": \"@DIR@<mounts[1].source>\", \"options\": [\"rbind<mounts[1].options[0]>\", "
      "\"ro<mounts[1].options[1]>\"]}],\n"
      " \"annotations\": {\"org.example.note\": \"v<annotations[\"org.example.note\"]>\"},\n"
      " \"hooks\": {\"prestart\": [{\"path\": \"/bin/true<hooks.prestart[0].path>\", "
      "\"args\": [\"true<hooks.prestart[0].args[0]>\"]}]},\n"
      " \"linux\": {\"namespaces\": [{\"type\": \"network<linux.namespaces[0].type>\"}, "
      "{\"type\": \"pid\"}, {\"type\": \"ipc\"}, {\"type\": \"uts\"}, {\"type\": \"mount\"}],\n"
      "   \"maskedPaths\": [\"/proc/acpi<linux.maskedPaths[0]>\", \"/proc/kcore\", \"/proc/keys\", "
      "\"/proc/latency_stats\", \"/proc/timer_list\", \"/proc/timer_stats\", "
      "\"/proc/sched_debug\", "
      "\"/proc/scsi\", \"/sys/firmware\"],\n"
      "   \"readonlyPaths\": [\"/proc/bus<linux.readonlyPaths[0]>\", \"/proc/fs\", \"/proc/irq\", "
      "\"/proc/sys\", \"/proc/sysrq-trigger\"],\n"
      "   \"resources\": {\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": 100000, "
      "\"period\": 100000}, \"devices\": [{\"allow\": false, \"access\": "
      "\"rwm<linux.resources.devices[0].access>\"}]},\n"
      "   \"sysctl\": {\"net.ipv4.ip_forward\": \"0<linux.sysctl[\"net.ipv4.ip_forward\"]>\"},\n"
      "   \"cgroupsPath\": \"/docker/" ID_A "<linux.cgroupsPath>\",\n"
      "   \"rootfsPropagation\": \"rprivate<linux.rootfsPropagation>\",\n"
      "   \"mountLabel\": \"system_u:object_r:container_file_t:s0<linux.mountLabel>\",\n"
      "   \"seccomp\": {\"defaultAction\": \"SCMP_ACT_ERRNO<linux.seccomp.defaultAction>\", "
      "\"architectures\": [\"SCMP_ARCH_X86_64<linux.seccomp.architectures[0]>\"], \"syscalls\": "
      "[{\"names\": [\"read<linux.seccomp.syscalls[0].names[0]>\"], \"action\": "
      "\"SCMP_ACT_ALLOW<linux.seccomp.syscalls[0].action>\"}]}}}\n";

/* NUL_TEMPLATE with \u0000 and more planted at the marker PLANT (NULL:
   none), every other marker dropped. */
static char *
nul_spec (const char *plant, const char *dir)
{
  cleanup_kg_buf struct kg_buf b = { 0 };

  for (const char *p = nul_template; *p != '\0';)
    {
      const char *end = *p == '<' ? strchr (p, '>') : NULL;

      if (end != NULL)
        {
          if (plant != NULL && strlen (plant) == (size_t) (end - p - 1)
              && strncmp (p + 1, plant, (size_t) (end - p - 1)) == 0)
            kg_buf_add (&b, "\\u0000,rw", 9);
          p = end + 1;
        }
      else if (strncmp (p, "@DIR@", 5) == 0)
        {
          kg_buf_add (&b, dir, strlen (dir));
          p += 5;
        }
      else
        kg_buf_add (&b, p++, 1);
    }
  {
    char *spec = kg_buf_steal (&b);

    if (spec == NULL)
      abort ();
    return spec;
  }
}

static void
test_nul_fields (void)
{
  const char *policy = "hooks = [\"/bin/true\"]";
  cleanup_free char *dir = NULL;
  size_t rows = 0;

  if (asprintf (&dir, "%s/nul-data", tmpdir) < 0 || mkdir (dir, 0755) < 0)
    abort ();
  /* As written, every rule allows it. */
  if (need_trusted ("strings whole: the spec as written"))
    {
      cleanup_free char *spec = nul_spec (NULL, dir);

      run_expect (spec, ID_A, policy, &kata_fc, "strings whole: the spec as written", "",
                  "policy.mounts", "1 read-only");
    }
  /* Each value with \u0000 after it: refused as that value, by its path,
     before any rule reads it. */
  for (const char *p = strchr (nul_template, '<'); p != NULL; p = strchr (p + 1, '<'))
    {
      const char *end = strchr (p, '>');
      cleanup_free char *path = strndup (p + 1, (size_t) (end - p - 1));
      cleanup_free char *spec = nul_spec (path, dir);
      cleanup_free char *name = NULL, *needle = NULL;

      if (asprintf (&name, "\\u0000 after %s", path) < 0
          || asprintf (&needle, "%s holds U+0000", path) < 0)
        abort ();
      spec_row (name, spec, needle);
      rows++;
    }
  is_int ((int64_t) rows, 39, "strings whole: a row per string field of the spec");
  /* A hook's environment (no hook may have one), an annotation of Kata's
     (the default [policy] annotations allows none): refused by the path
     of the string, not by the rule. */
  spec_row ("\\u0000 in a hook's env",
            "{\"ociVersion\": \"1.0.2\", \"hooks\": {\"poststop\": [{\"path\": \"/bin/true\", "
            "\"env\": [\"A=1\\u0000\"]}]}}",
            "hooks.poststop[0].env[0] holds U+0000");
  spec_row ("\\u0000 in kernel_params",
            "{\"ociVersion\": \"1.0.2\", \"annotations\": "
            "{\"io.katacontainers.config.hypervisor.kernel_params\": \"quiet\\u0000 init=/x\"}}",
            "annotations[\"io.katacontainers.config.hypervisor.kernel_params\"] holds U+0000");
  /* A key holding \u0000: refused as before, in the scan's words. */
  spec_row ("an annotation key with \\u0000",
            "{\"ociVersion\": \"1.0.2\", \"annotations\": {\"a\\u0000b\": \"x\"}}",
            "a key holds \\u0000");
}

int
main (void)
{
  policy_test_start ();
  test_resolve ();
  test_fixtures ();
  test_confinement ();
  test_spec ();
  test_nul_fields ();
  return policy_test_end ();
}
