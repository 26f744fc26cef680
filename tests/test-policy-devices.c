/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.capabilities, policy.devices and policy.seccomp.
   (tests/test-policy.h: what every part of policy.*'s tests shares.) */
#include "test-policy.h"

static void
caps_row (const char *name, const char *caps, const char *policy, const char *fails,
          const char *needle)
{
  cleanup_free char *spec = spec_of (caps, NULL, NULL, NULL, NULL);

  run_expect (spec, ID_A, policy, &kata_fc, name, fails, "policy.capabilities", needle);
}

static void
test_capabilities (void)
{
  caps_row ("default caps", "\"CAP_CHOWN\", \"CAP_KILL\"", NULL, "", "2 capabilities");
  caps_row ("lower-case name (libcap accepts it)", "\"cap_chown\"", NULL, "", "1 capability");
  caps_row ("odd case beyond the set", "\"Cap_Sys_Admin\"", NULL, "policy.capabilities",
            "beyond [policy] capabilities: CAP_SYS_ADMIN");
  caps_row ("unknown capability", "\"CAP_FOO\"", NULL, "policy.capabilities",
            "unknown capability \"CAP_FOO\" in bounding");
  caps_row ("a number is not a name", "\"12\"", NULL, "policy.capabilities",
            "unknown capability \"12\"");
  caps_row ("a capability that is not a string", "5", NULL, "policy.capabilities",
            "capabilities.bounding[0] is an integer");
  caps_row ("allowed by config", "\"CAP_SYS_ADMIN\"", "capabilities = [\"CAP_SYS_ADMIN\"]", "",
            "1 capability");
  caps_row ("named once however often", "\"CAP_NET_ADMIN\", \"CAP_NET_ADMIN\"", NULL,
            "policy.capabilities", "capabilities: CAP_NET_ADMIN");
  {
    cleanup_free char *spec = spec_of (NULL, NULL, NULL, NULL, NULL);

    spec = replace (spec, "\"effective\": [\"CAP_CHOWN\"]", "\"ambient\": [\"CAP_BPF\"]");
    run_expect (spec, ID_A, NULL, &kata_fc, "ambient set", "policy.capabilities",
                "policy.capabilities", "CAP_BPF");
  }
  /* A privileged container as containerd makes it on a host whose root
     lacks CAP_SYS_RESOURCE: the engine's own bounding set, one short of
     every capability, and (privileged_without_host_devices) no *:* rule. */
  {
    struct engine_ns e;
    struct kg_buf names = { 0 };
    cleanup_free char *spec = NULL;

    engine_ns_gather (&e);
    e.capbnd_ok = true;
    e.capbnd = ((UINT64_C (1) << (CAP_AUDIT_READ + 1)) - 1) & ~(UINT64_C (1) << CAP_SYS_RESOURCE);
    for (int v = 0; v <= CAP_AUDIT_READ; v++)
      if (v != CAP_SYS_RESOURCE)
        {
          char *n = cap_to_name (v);

          sb_printf (&names, "%s\"%s\"", names.len ? ", " : "", n);
          cap_free (n);
        }
    spec = spec_of (sb_str (&names), NULL, NULL, NULL, NULL);
    run_engine_ns = &e;
    run_expect (spec, ID_A, "privileged = true", &kata_fc,
                "the engine's whole bounding set, with privileged = true", "", "policy.privileged",
                "every capability of the engine's bounding set (37)");
    run_expect (spec, ID_A, NULL, &kata_fc, "the engine's whole bounding set, without",
                "policy.privileged policy.capabilities", "policy.privileged",
                "privileged container: it has every capability of the engine's");
    /* An engine whose own set is small: its set is no privileged one. */
    e.capbnd = (UINT64_C (1) << CAP_CHOWN) | (UINT64_C (1) << CAP_KILL);
    free (spec);
    spec = spec_of ("\"CAP_CHOWN\", \"CAP_KILL\"", NULL, NULL, NULL, NULL);
    run_expect (spec, ID_A, NULL, &kata_fc,
                "an engine of two capabilities, a container of the same two", "",
                "policy.privileged", "not a privileged container");
    run_engine_ns = NULL;
    kg_buf_release (&names);
  }
}

static void
devices_row (const char *name, const char *linux_more, const char *policy, const char *fails,
             const char *needle)
{
  static const char res_key[] = "\"resources\": {";
  cleanup_free char *res = NULL;
  cleanup_free char *spec = NULL;

  /* A row's own "resources" replaces the default one (a key given twice
     is refused before any rule runs). */
  if (strncmp (linux_more, res_key, sizeof res_key - 1) == 0)
    {
      res = strndup (linux_more + sizeof res_key - 1, strlen (linux_more) - sizeof res_key);
      linux_more = NULL;
    }
  spec = spec_of (NULL, NULL, res, linux_more, NULL);
  run_expect (spec, ID_A, policy, &kata_fc, name, fails, "policy.devices", needle);
}

/* A linux.devices entry's path as the runtimes take it (issue 51): Kata's
   Go runtime uses the path as the host's device when its numbers have no
   /sys/dev entry (src/runtime/pkg/device/config/config.go GetHostPath,
   3.30.0 and 4.1.0) and passes a /dev/vfio path through as VFIO
   (pkg/device/manager/manager.go createDevice, utils.go IsVFIODevice);
   runc binds the path from the host in a user namespace
   (libcontainer/rootfs_linux.go createDeviceNode).  A pty's numbers
   (136:*, granted by default, with no sysfs entry) carried a VFIO
   group's path past the numbers-only check. */
static void
device_path_row (const char *name, const char *entry, const char *needle)
{
  cleanup_free char *more = NULL;

  if (asprintf (&more, "\"devices\": [%s]", entry) < 0)
    abort ();
  devices_row (name, more, NULL, *needle ? "policy.devices" : "", *needle ? needle : "1 device");
}

static void
test_device_paths (void)
{
  char dir[] = "/tmp/kg-devpath-XXXXXX";
  cleanup_free char *link = NULL, *entry = NULL, *needle = NULL;

  device_path_row ("a pty's numbers with a VFIO group's path",
                   "{\"path\": \"/dev/vfio/12\", \"type\": \"c\", \"major\": 136, \"minor\": 0}",
                   "/dev/vfio/12 (c 136:0): a VFIO path the host has no node at");
  device_path_row ("type u, the same",
                   "{\"path\": \"/dev/vfio/7\", \"type\": \"u\", \"major\": 136, \"minor\": 9}",
                   "/dev/vfio/7 (u 136:9): a VFIO path the host has no node at");
  device_path_row ("Kata's prefix without the slash",
                   "{\"path\": \"/dev/vfiox\", \"type\": \"c\", \"major\": 136, \"minor\": 1}",
                   "/dev/vfiox (c 136:1): a VFIO path");
  device_path_row ("a VFIO path for numbers sysfs knows (cold_plug_vfio goes by the path)",
                   "{\"path\": \"/dev/vfio/3\", \"type\": \"c\", \"major\": 1, \"minor\": 3}",
                   "/dev/vfio/3 (c 1:3): a VFIO path the host has no node at");
  device_path_row ("the VFIO container's path is no group",
                   "{\"path\": \"/dev/vfio/vfio\", \"type\": \"c\", \"major\": 136, "
                   "\"minor\": 2}",
                   "");
  device_path_row ("a pty's numbers with another host device's path",
                   "{\"path\": \"/dev/null\", \"type\": \"c\", \"major\": 136, \"minor\": 0}",
                   "/dev/null (c 136:0) is the host's c 1:3");
  device_path_row ("null's numbers with zero's path (runc binds it in a user namespace)",
                   "{\"path\": \"/dev/zero\", \"type\": \"c\", \"major\": 1, \"minor\": 3}",
                   "/dev/zero (c 1:3) is the host's c 1:5");
  device_path_row ("a pty's numbers with a host file's path",
                   "{\"path\": \"/etc/passwd\", \"type\": \"c\", \"major\": 136, \"minor\": 0}",
                   "/etc/passwd (c 136:0) is a host file that is no such device");
  device_path_row ("a path through ..",
                   "{\"path\": \"/dev/pts/../vfio/1\", \"type\": \"c\", \"major\": 136, "
                   "\"minor\": 0}",
                   "device path \"/dev/pts/../vfio/1\" is not a clean absolute path");
  device_path_row ("a relative path",
                   "{\"path\": \"dev/vfio/1\", \"type\": \"c\", \"major\": 136, \"minor\": 0}",
                   "device path \"dev/vfio/1\" is not a clean absolute path");
  device_path_row ("a doubled slash",
                   "{\"path\": \"/dev//vfio/1\", \"type\": \"c\", \"major\": 136, \"minor\": 0}",
                   "is not a clean absolute path");
  device_path_row ("no path", "{\"type\": \"c\", \"major\": 136, \"minor\": 0}",
                   "linux.devices[0] (c 136:0) has no path");
  device_path_row ("a pty's numbers at a path the host has not",
                   "{\"path\": \"/dev/kg-no-such-pty\", \"type\": \"c\", \"major\": 136, "
                   "\"minor\": 0}",
                   "");
  /* A symlink is followed, as the kernel follows it for runc's bind. */
  if (mkdtemp (dir) == NULL || asprintf (&link, "%s/null", dir) < 0
      || symlink ("/dev/null", link) < 0
      || asprintf (&entry, "{\"path\": \"%s\", \"type\": \"c\", \"major\": 136, \"minor\": 4}",
                   link)
             < 0
      || asprintf (&needle, "%s (c 136:4) is the host's c 1:3", link) < 0)
    abort ();
  device_path_row ("a symlink to a host device", entry, needle);
  unlink (link);
  rmdir (dir);
  /* A block device whose numbers the host has not: Kata attaches the
     path.  Only a privileged container (privileged = true) gets past
     the numbers; the path is judged all the same. */
  {
    cleanup_free char *spec
        = spec_of (NULL, NULL,
                   "\"memory\": {\"limit\": 268435456}, \"devices\": [{\"allow\": true, "
                   "\"access\": \"rwm\"}]",
                   "\"devices\": [{\"path\": \"/dev/kg-no-such-disk\", \"type\": \"b\", "
                   "\"major\": 7, \"minor\": 1048000}]",
                   NULL);

    run_expect (spec, ID_A, "privileged = true", &kata_fc,
                "a block device with no sysfs entry, privileged", "policy.devices",
                "policy.devices",
                "/dev/kg-no-such-disk (b 7:1048000): no such host block device, Kata would "
                "attach the path");
  }
}

static void
test_devices (void)
{
  devices_row ("default devices",
               "\"devices\": [{\"path\": \"/dev/null\", \"type\": \"c\", \"major\": 1, "
               "\"minor\": 3}, {\"path\": \"/dev/pts/0\", \"type\": \"c\", \"major\": 136, "
               "\"minor\": 0}]",
               NULL, "", "2 devices");
  devices_row ("a harmless path for KVM's numbers",
               "\"devices\": [{\"path\": \"/dev/null\", \"type\": \"c\", \"major\": 10, "
               "\"minor\": 232}]",
               NULL, "policy.devices", "/dev/null (c 10:232)");
  /* [policy] devices matches by the numbers the host's node has: a
     device of this host's that no default grants, under another name in
     the container, refused without it and passed with it. */
  {
    struct host_device dev;
    cleanup_free char *more = NULL, *policy = NULL, *needle = NULL;

    if (! host_device (&dev))
      ok (true, "# SKIP allowlisted by the host's numbers: no device under /dev but those every "
                "engine grants");
    else if (asprintf (&more,
                       "\"devices\": [{\"path\": \"/dev/vm\", \"type\": \"%c\", \"major\": %u, "
                       "\"minor\": %u}]",
                       dev.type, dev.maj, dev.min)
                 < 0
             || asprintf (&policy, "devices = [\"%s\"]", dev.path) < 0
             || asprintf (&needle, "/dev/vm (%c %u:%u)", dev.type, dev.maj, dev.min) < 0)
      abort ();
    else
      {
        printf ("# this host's device: %s (%c %u:%u)\n", dev.path, dev.type, dev.maj, dev.min);
        devices_row ("a host's device, not allowlisted", more, NULL, "policy.devices", needle);
        devices_row ("allowlisted by the host's numbers", more, policy, "", "1 device");
      }
  }
  /* The type counts as well as the numbers: /dev/null's as a block device. */
  devices_row ("a block device as a char device",
               "\"devices\": [{\"path\": \"/dev/null\", \"type\": \"b\", \"major\": 1, "
               "\"minor\": 3}]",
               "devices = [\"/dev/null\"]", "policy.devices", "/dev/null (b 1:3)");
  devices_row ("a wildcard cgroup rule",
               "\"resources\": {\"memory\": {\"limit\": 268435456}, \"devices\": [{\"allow\": "
               "true, \"type\": \"c\", \"major\": 10, \"access\": \"rwm\"}]}",
               NULL, "policy.devices", "device cgroup rule c 10:* rwm");
  devices_row ("a deny rule is fine",
               "\"resources\": {\"memory\": {\"limit\": 268435456}, \"devices\": [{\"allow\": "
               "false, \"access\": \"rwm\"}, {\"allow\": true, \"type\": \"c\", \"major\": 136, "
               "\"access\": \"rwm\"}]}",
               NULL, "", "0 devices");
  test_device_paths ();
  {
    cleanup_free char *spec
        = spec_of (NULL, NULL,
                   "\"memory\": {\"limit\": 268435456}, \"devices\": [{\"allow\": true, "
                   "\"access\": \"rwm\"}]",
                   NULL, NULL);

    run_expect (spec, ID_A, NULL, &kata_fc, "an allow-all rule is privileged", "policy.privileged",
                "policy.privileged", "the device cgroup allows every host device (a *:* rwm)");
  }
}

static void
test_seccomp (void)
{
  cleanup_free char *path = NULL;
  char *docker;
  static const struct
  {
    const char *name, *from, *to, *fails, *needle;
    bool fc;
  } rows[] = {
    { "Docker's profile", NULL, NULL, "", "default action SCMP_ACT_ERRNO", false },
    { "Kata disables it", NULL, NULL, "policy.seccomp",
      "disable_guest_seccomp = true (line 311): the profile would never be applied", true },
    { "default allow", "\"defaultAction\":\"SCMP_ACT_ERRNO\"",
      "\"defaultAction\":\"SCMP_ACT_ALLOW\"", "policy.seccomp",
      "defaultAction SCMP_ACT_ALLOW lets unlisted system calls through", false },
    { "default log", "\"defaultAction\":\"SCMP_ACT_ERRNO\"", "\"defaultAction\":\"SCMP_ACT_LOG\"",
      "policy.seccomp", "defaultAction SCMP_ACT_LOG", false },
    { "unknown syscall", "\"accept\",", "\"accept\", \"no_such_call\",", "policy.seccomp",
      "unknown system call \"no_such_call\"", false },
    { "unknown arch", "\"SCMP_ARCH_X32\"", "\"SCMP_ARCH_PDP11\"", "policy.seccomp",
      "unknown architecture SCMP_ARCH_PDP11", false },
    { "no profile", "\"seccomp\":", "\"seccomp_not\":", "policy.seccomp",
      "no seccomp profile (linux.seccomp)", false },
  };

  if (asprintf (&path, "%s/oci/docker-20.10/read-only-rootfs.json", fixtures) < 0)
    abort ();
  docker = read_text (path);
  docker = replace (docker, "/proc/12695/exe", "/usr/sbin/dockerd");
  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      char *spec = strdup (docker);
      cleanup_free char *id = docker_id (spec);
      struct report rep;

      if (rows[i].from != NULL)
        spec = replace (spec, rows[i].from, rows[i].to);
      run_docker (&spec, id, "require_seccomp = true", rows[i].fc ? &kata_fc : &kata_seccomp, &rep);
      expect (&rep, rows[i].name, rows[i].fails, "policy.seccomp", rows[i].needle);
      report_release (&rep);
      free (spec);
    }
  {
    struct report rep;
    char *spec = strdup (docker);
    cleanup_free char *id = docker_id (spec);

    run_docker (&spec, id, "require_seccomp = true", NULL, &rep);
    expect (&rep, "seccomp without a Kata configuration", "policy.seccomp policy.resources",
            "policy.seccomp", "cannot tell whether Kata applies the profile");
    report_release (&rep);
    free (spec);
  }
  free (docker);
}

int
main (void)
{
  policy_test_start ();
  test_capabilities ();
  test_devices ();
  test_seccomp ();
  return policy_test_end ();
}
