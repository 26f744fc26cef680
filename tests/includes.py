#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Includes that are real (issue 50; README, Hacking): every product unit
and header includes only what it uses.

The product's files are the SOURCES of Makefile.am's programs and
libraries, less what lives under tests/ and bench/ (so a file moved to
another folder is still found).  For each of them:

  - each #include "x.h" of the project must provide a name the file uses:
    an identifier x.h declares or defines (a function, a variable, a
    typedef, a struct/union/enum tag, an enumerator, a macro, or a member
    the file names after . or ->: the check knows no types, so a member's
    name is a use of every included header with a member of that name).
    A header that holds nothing but includes (an umbrella) provides what
    those provide; config.h, configure's, is exempt, and a unit that
    includes it includes it first;
  - each library header of LIBRARY below must be included only by files
    that use one of its names.

Names are read from tokens, with comments, string and character literals
removed, so that a name in a comment or a message is no use.  Prints one
line per offence, FILE:LINE: HEADER (why), and exits 1 when there is one
(tests/includes.test runs it).
  usage: includes.py SRCDIR [BUILDDIR]
  usage: includes.py --list SRCDIR [BUILDDIR]   (the files it checks)
  usage: includes.py --names HEADER   (what a header provides, for a look)
"""
import os
import re
import sys

# A library header and the names that are its own (a regular expression
# matched against whole identifiers).  What the guard includes of
# libraries and of the system headers whose names are distinctive.
LIBRARY = {
    "seccomp.h": r"(seccomp|scmp|SCMP)_\w+",
    "fnmatch.h": r"fnmatch|FNM_\w+",
    "json-c/json.h": r"json_\w+|JSON_C_\w+|lh_\w+|array_list\w*",
    "json-c/json_object.h": r"json_\w+|JSON_C_\w+",
    "json-c/json_tokener.h": r"json_tokener\w*",
    "libmount/libmount.h": r"(mnt|libmnt)_\w+|MNT_\w+",
    "libdevmapper.h": r"(dm|DM)_\w+",
    "openssl/evp.h": r"(EVP|evp)_\w+|OPENSSL_\w+",
    "sys/capability.h": r"(cap|CAP)_\w+",
    "regex.h": r"reg(comp|exec|free|error)|regex_t|regmatch_t|regoff_t|REG_\w+",
    "dlfcn.h": r"dl(open|mopen|sym|vsym|close|error|addr|info)|RTLD_\w+|Dl_info",
    "glob.h": r"glob|globfree|glob_t|GLOB_\w+",
    "getopt.h": r"getopt\w*|opt(arg|ind|err|opt)|option|(no|required|optional)_argument",
    "ifaddrs.h": r"(get|free)ifaddrs|ifaddrs",
    "syslog.h": r"v?syslog|openlog|closelog|setlogmask|LOG_\w+",
    "locale.h": r"setlocale|newlocale|uselocale|freelocale|duplocale|localeconv|locale_t|LC_\w+",
    "math.h": r"(floor|ceil|round|l?lround|trunc|pow|sqrt|log|log2|log10|exp|fabs|fmod|frexp"
    r"|ldexp|modf|nearbyint|l?l?rint)[fl]?|isnan|isinf|isfinite|HUGE_VAL|NAN|INFINITY",
    "sys/prctl.h": r"prctl|PR_\w+",
    "sys/sysmacros.h": r"major|minor|makedev",
    "sys/utsname.h": r"uname|utsname|sysname|nodename|release|machine",
    "sys/wait.h": r"wait(pid|id)?|W(IFEXITED|EXITSTATUS|IFSIGNALED|TERMSIG|IFSTOPPED|STOPSIG"
    r"|NOHANG|UNTRACED|CONTINUED|NOWAIT|EXITED|STOPPED|COREDUMP)|P_(PID|ALL|PIDFD)|idtype_t",
    "sys/mman.h": r"mmap|munmap|mremap|mprotect|madvise|mlock\w*|munlock\w*|memfd_create|msync"
    r"|(MAP|PROT|MFD|MADV|MCL|MREMAP)_\w+|MS_(SYNC|ASYNC|INVALIDATE)",
    "sys/file.h": r"flock|LOCK_(SH|EX|NB|UN)",
    "sys/random.h": r"getrandom|getentropy|GRND_\w+",
    "sys/sysinfo.h": r"sysinfo|get_nprocs\w*|get_(av)?phys_pages|totalram|freeram|mem_unit",
    "sys/syscall.h": r"SYS_\w+|__NR_\w+",
    "sys/ioctl.h": r"ioctl|TIOC\w+|FIO\w+|SIOC\w+|winsize",
    "sys/un.h": r"sockaddr_un|sun_(path|family)|SUN_LEN",
    "sys/resource.h": r"[gs]etrlimit|prlimit|rlimit|rlim_t|rlim_(cur|max)|RLIMIT_\w+|RLIM_\w+"
    r"|getrusage|rusage|RUSAGE_\w+|[gs]etpriority|PRIO_\w+",
    "sys/vfs.h": r"f?statfs|f_(type|bsize|blocks|bfree|bavail|files|ffree|fsid|namelen|frsize|flags)",
    "sys/socket.h": r"socket|socketpair|bind|connect|listen|accept4?|send(to|msg|mmsg)?"
    r"|recv(from|msg|mmsg)?|shutdown|[gs]etsockopt|getsockname|getpeername|sockaddr\w*|socklen_t"
    r"|msghdr|cmsghdr|msg_\w+|cmsg_\w+|CMSG_\w+|SCM_\w+|SOCK_\w+|AF_\w+|PF_\w+|SOL_\w+|SO_\w+"
    r"|MSG_\w+|SHUT_\w+|ucred|iovec|iov_(base|len)|sa_family_t|sa_family",
    "netinet/in.h": r"sockaddr_in6?|in6?_addr|s6?_addr\w*|sin6?_\w+|IPPROTO_\w+|INADDR_\w+"
    r"|in6addr_\w+|IN6?_\w+|INET6?_ADDRSTRLEN|in_port_t|in_addr_t|hto[nl][sl]|nto[hl][sl]",
    "arpa/inet.h": r"inet_\w+|hton[sl]|ntoh[sl]",
    "net/if.h": r"if_(nametoindex|indextoname|nameindex|freenameindex)|ifreq|ifr_\w+|IFNAMSIZ"
    r"|IF_NAMESIZE|IFF_\w+",
    "net/route.h": r"rtentry|rt_\w+|RTF_\w+",
    "sched.h": r"unshare|setns|clone\w*|CLONE_\w+|sched_\w+|SCHED_\w+|CPU_\w+|cpu_set_t",
    "signal.h": r"signal|sigaction|kill|raise|sig\w+|SIG\w+|SA_\w+|siginfo_t|si_\w+|stack_t"
    r"|sighandler_t|pthread_sigmask|SI_\w+|sival_\w+|sa_\w+|ss_\w+|psignal",
    "dirent.h": r"(fd)?opendir|readdir\w*|closedir|dirfd|rewinddir|scandir\w*|alphasort|DIR"
    r"|dirent\w*|d_(name|type|ino|off|reclen)|DT_\w+",
    "poll.h": r"p?poll|pollfd|POLL\w+|nfds_t|events|revents",
    "ctype.h": r"is(alnum|alpha|ascii|blank|cntrl|digit|graph|lower|print|punct|space|upper"
    r"|xdigit)|to(lower|upper|ascii)",
    "inttypes.h": r"PRI\w+|SCN\w+|strto[iu]max|imaxabs|imaxdiv\w*",
    "stdarg.h": r"va_(list|start|end|arg|copy)",
    "stdalign.h": r"alignas|alignof",
    "stdbool.h": r"bool|true|false",
    "time.h": r"time|time_t|clock(_\w+)?|CLOCK\w*|clockid_t|timespec|tm|tm_\w+|tv_n?sec"
    r"|(local|gm)time(_r)?|strftime|strptime|mktime|timegm|nanosleep|difftime|timer_\w+|tzset"
    r"|c?time_r?|asctime\w*|TIMER_\w+",
    "errno.h": r"errno|E[A-Z0-9]+|program_invocation_\w+",
    "limits.h": r"CHAR_BIT|S?CHAR_(MAX|MIN)|UCHAR_MAX|U?SHRT_(MAX|MIN)|U?INT_(MAX|MIN)"
    r"|U?LONG_(MAX|MIN|BIT)|U?LLONG_(MAX|MIN)|SSIZE_MAX|PATH_MAX|NAME_MAX|PIPE_BUF|HOST_NAME_MAX"
    r"|LOGIN_NAME_MAX|IOV_MAX|NGROUPS_MAX|LINE_MAX|MB_LEN_MAX|ARG_MAX|TTY_NAME_MAX|XATTR_\w+"
    r"|\w+_WIDTH",
    "stddef.h": r"size_t|ptrdiff_t|NULL|offsetof|max_align_t|wchar_t",
    "stdint.h": r"u?int(8|16|32|64|ptr|max)_t|u?int_(least|fast)\d+_t|U?INT(8|16|32|64|PTR|MAX)_(MAX|MIN)"
    r"|U?INT(8|16|32|64|MAX)_C|SIZE_MAX|PTRDIFF_(MAX|MIN)|SIG_ATOMIC_\w+|WCHAR_\w+|WINT_\w+",
    "sys/types.h": r"pid_t|uid_t|gid_t|off_t|off64_t|ssize_t|mode_t|dev_t|ino_t|id_t|key_t|loff_t"
    r"|nlink_t|blksize_t|blkcnt_t|time_t|clockid_t|u_\w+|u?int\d+_t|major|minor|makedev|size_t",
    "stdio.h": r"v?[sdf]?n?printf|v?as?printf|f?puts|f?putc|putchar|fgetc|getc|getchar|fgets|getline"
    r"|getdelim|fopen|fdopen|freopen|fclose|fflush|fread|fwrite|fseeko?|ftello?|fileno|FILE"
    r"|std(in|out|err)|EOF|BUFSIZ|perror|renameat2?|rename|remove|open_memstream|fmemopen"
    r"|v?f?s?scanf|setv?buf|setlinebuf|_IO\w+|ferror|feof|clearerr|rewind|tmpfile|popen|pclose"
    r"|L_tmpnam|P_tmpdir|SEEK_\w+|\w+_unlocked|f(un)?lockfile|ungetc|fgetpos|fsetpos|fpos_t|off_t"
    r"|ssize_t|size_t|NULL|va_list|RENAME_\w+",
    "stdlib.h": r"malloc|calloc|realloc|reallocarray|free|exit|_Exit|abort|atexit|on_exit"
    r"|(secure_)?getenv|setenv|unsetenv|putenv|clearenv|strto(l|ul|ll|ull|d|f|ld|imax|umax)|ato[il]l?"
    r"|atof|qsort|bsearch|l?l?abs|l?l?div|EXIT_\w+|mkstemps?|mkdtemp|mkostemps?|realpath|system"
    r"|s?rand(om)?|arc4random\w*|canonicalize_file_name|posix_memalign|aligned_alloc|RAND_MAX"
    r"|MB_CUR_MAX|size_t|NULL|wchar_t|getloadavg|mblen|mbtowc|wctomb|mbstowcs|wcstombs",
    "string.h": r"str\w+|mem\w+|bzero|explicit_bzero|stpn?cpy|ffs\w*|rawmemchr|size_t|NULL",
    "unistd.h": r"read|write|pread|pwrite|close|close_range|pipe2?|dup[23]?|fork|vfork|execv[pe]?"
    r"|execvpe|execl[pe]?|fexecve|execveat|_exit|get(e?[ug]id|pid|ppid|pgrp|sid|cwd|pagesize"
    r"|hostname|groups|res[ug]id|entropy|opt|login|tid|domainname|dtablesize)|set(e?[ug]id|res[ug]id"
    r"|re[ug]id|sid|pgid|hostname|groups|domainname)|f?chdir|f?chown(at)?|lchown"
    r"|(f|euid|e)?access(at)?|unlink(at)?|rmdir|(sym)?link(at)?|readlink(at)?|lseek\w*|f?sync|syncfs"
    r"|fdatasync|f?truncate|sysconf|_SC_\w+|_PC_\w+|f?pathconf|confstr|isatty|ttyname\w*|u?sleep"
    r"|alarm|pause|nice|syscall|lockf|F_(LOCK|ULOCK|TLOCK|TEST)|ssize_t|off_t|pid_t|uid_t|gid_t"
    r"|useconds_t|intptr_t|socklen_t|size_t|NULL|[RWXF]_OK|STD(IN|OUT|ERR)_FILENO|SEEK_\w+|environ"
    r"|opt(arg|ind|err|opt)|copy_file_range|tcgetpgrp|tcsetpgrp|chroot|pivot_root|acct|daemon",
    "fcntl.h": r"open(at|at2)?|creat|fcntl|O_\w+|F_\w+|AT_\w+|FD_CLOEXEC|posix_fadvise"
    r"|posix_fallocate|fallocate|splice|tee|vmsplice|name_to_handle_at|open_by_handle_at"
    r"|RESOLVE_\w+|open_how|SPLICE_\w+|FALLOC_\w+|readahead|sync_file_range|mode_t|off_t|pid_t"
    r"|S_I\w+|SEEK_\w+|flock|l_\w+|POSIX_FADV_\w+|DN_\w+|LOCK_\w+|MAX_HANDLE_SZ|file_handle|statx"
    r"|STATX_\w+|renameat2|RENAME_\w+",
    "sys/stat.h": r"f?l?stat(at)?|stat64|statx|STATX_\w+|mkdir(at)?|mknod(at)?|mkfifo(at)?"
    r"|f?chmod(at)?|umask|S_\w+|st_\w+|stx_\w+|mode_t|dev_t|ino_t|nlink_t|off_t|blksize_t|blkcnt_t"
    r"|uid_t|gid_t|time_t|utimensat|futimens|UTIME_\w+|timespec",
    "linux/kvm.h": r"(KVM|kvm)_\w+",
    "linux/fs.h": r"(FS|BLK|FI|RENAME|FS_IOC)\w*|BLKGETSIZE64|FICLONE\w*|file_clone_range",
    "linux/filter.h": r"sock_f(ilter|prog)|BPF_\w+|filter|len|code|jt|jf|k",
    "linux/seccomp.h": r"SECCOMP_\w+|seccomp_\w+",
    "linux/magic.h": r"\w+_MAGIC\w*",
    "linux/nsfs.h": r"NS_\w+|NSIO",
    "linux/netlink.h": r"nlmsghdr|nlmsgerr|sockaddr_nl|nl_\w+|nlmsg_\w+|NLM\w+|NETLINK_\w+"
    r"|nlattr|NLA_\w+",
    "linux/rtnetlink.h": r"rtmsg|ifinfomsg|ifaddrmsg|rtattr|ndmsg|rtm_\w+|ifi_\w+|ifa_\w+"
    r"|rta_\w+|(RTM|RTA|RTN|RTPROT|RT|IFLA|IFA|RTMGRP|RTNLGRP|NDA|RT_SCOPE|RT_TABLE)_\w+",
}
LIBRARY = {h: re.compile(r"(?:%s)\Z" % r) for h, r in LIBRARY.items()}

# configure's: first in every unit (_GNU_SOURCE and the feature tests
# before any system header), whatever the unit uses of it.
EXEMPT = {"config.h"}

KEYWORDS = set(
    """auto break case char const continue default do double else enum extern float for
    goto if inline int long register restrict return short signed sizeof static struct
    switch typedef union unsigned void volatile while _Bool _Static_assert _Noreturn
    _Alignas _Alignof _Atomic _Thread_local __attribute__ __typeof__ typeof __extension__
    asm __asm__ __restrict __inline defined""".split()
)

IDENT = re.compile(r"[A-Za-z_]\w*")
TOKEN = re.compile(
    r"""(?P<ws>\s+)|(?P<id>[A-Za-z_]\w*)|(?P<num>\.?\d(?:[eEpP][+-]|[\w.])*)"""
    r"""|(?P<op>->|\+\+|--|<<=?|>>=?|[<>=!&|^+\-*/%]=|&&|\|\||\.\.\.|##|.)""",
    re.S,
)


def strip(text, keep_strings=False):
    """TEXT with comments made a space and each string or character
    literal made "" or '' (its delimiters kept, so that an #include "x.h"
    line still reads as one), or kept whole with KEEP_STRINGS; a line
    continued with a backslash is joined to the next, the line breaks
    moved after it, so that every line keeps its number."""
    out = []
    i, n, joined = 0, len(text), 0
    while i < n:
        c = text[i]
        if text.startswith("\\\n", i):
            joined += 1
            i += 2
        elif c == "\n":
            out.append("\n" * (1 + joined))
            joined = 0
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" " + "\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            out.append(" ")
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1] if keep_strings else c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


INCLUDE = re.compile(r'^[ \t]*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


class Source:
    """One file: what it includes (by line), the identifiers it uses, and
    (for a header) the names it provides."""

    def __init__(self, path):
        self.path = path
        raw = open(path, encoding="utf-8").read()
        # The includes, from the text as written (their names are strings).
        bare = strip(raw, keep_strings=True)
        self.includes = [
            (m.group(1), m.group(2), bare.count("\n", 0, m.start()) + 1)
            for m in INCLUDE.finditer(bare)
        ]
        text = strip(raw)
        self.defines = set()
        code = []
        guard = None
        for line in text.split("\n"):
            d = re.match(r"\s*#\s*(\w+)\s*(.*)", line)
            if not d:
                code.append(line)
                continue
            word, rest = d.group(1), d.group(2)
            if word == "include":
                continue
            if word == "ifndef" and guard is None:
                guard = rest.strip()
                continue
            if word == "define":
                m = IDENT.match(rest)
                if m and m.group(0) != guard:
                    self.defines.add(m.group(0))
                    # The body's names are used; the parameters are not.
                    body = rest[m.end() :]
                    params = set()
                    if body.startswith("("):
                        close = body.find(")")
                        params = set(IDENT.findall(body[: close + 1]))
                        body = body[close + 1 :]
                    code.append(" ".join(t for t in IDENT.findall(body) if t not in params))
                continue
            if word in ("if", "elif", "ifdef", "ifndef"):
                code.append(" ".join(IDENT.findall(rest)))
            code.append("")
        self.tokens = [
            m.group(0) for m in TOKEN.finditer("\n".join(code)) if m.lastgroup != "ws"
        ]
        # A name after . or -> is a member's: it is used of a struct (what
        # a header's members provide), and of nothing else.
        self.used, self.used_members = set(), set()
        for k, t in enumerate(self.tokens):
            if IDENT.fullmatch(t) and t not in KEYWORDS:
                after = k > 0 and self.tokens[k - 1] in (".", "->")
                (self.used_members if after else self.used).add(t)
        self.members = set()
        self.provides = self.defines | declared(self.tokens, self.members)


def skip_group(toks, i):
    """The index after the bracketed group that opens at TOKS[i]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth, close = 0, pairs[toks[i]]
    open_ = toks[i]
    while i < len(toks):
        if toks[i] == open_:
            depth += 1
        elif toks[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def declared(toks, member_names):
    """The names a file declares at file scope: functions, variables,
    typedefs, tags, enumerators; the members of its structs and unions go
    into MEMBER_NAMES."""
    names = set()
    stmt = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t in ("__attribute__", "__typeof__", "typeof", "_Alignas") and i + 1 < len(toks):
            i = skip_group(toks, i + 1) if toks[i + 1] == "(" else i + 1
            continue
        if t == "{":
            end = skip_group(toks, i)
            body = toks[i + 1 : end - 1]
            if "=" in stmt:
                stmt.append("{}")  # an initializer
            elif stmt and stmt[-1] == ")":
                # A function's definition: its body is no declaration.
                names |= declarator(stmt)
                stmt = []
            else:
                kind = [s for s in stmt if s in ("struct", "union", "enum")]
                if stmt and IDENT.fullmatch(stmt[-1]) and stmt[-1] not in KEYWORDS:
                    names.add(stmt[-1])  # the tag
                if kind and kind[-1] == "enum":
                    names |= enumerators(body)
                elif kind:
                    member_names |= members(body)
                stmt.append("{}")
            i = end
            continue
        if t == ";":
            names |= declarator(stmt)
            stmt = []
        else:
            stmt.append(t)
        i += 1
    return names


def declarator(stmt):
    """The declared names of one file-scope statement STMT (no ';')."""
    if not stmt or stmt[0] == "_Static_assert":
        return set()
    if len(stmt) == 2 and stmt[0] in ("struct", "union", "enum"):
        return set()  # struct x; a forward declaration
    names = set()
    for part in split_commas(stmt):
        name = None
        j = 0
        while j < len(part):
            t = part[j]
            if t == "(":
                inner = part[j + 1 : skip_group(part, j) - 1]
                if inner and inner[0] == "*":
                    # (*name) of a pointer to function.
                    ids = [x for x in inner if IDENT.fullmatch(x) and x not in KEYWORDS]
                    name = ids[0] if ids else name
                break
            if t in ("[", "="):
                break
            if IDENT.fullmatch(t) and t not in KEYWORDS:
                name = t
            j += 1
        if name:
            names.add(name)
    return names


def split_commas(stmt):
    """STMT cut at its commas outside brackets: the declarators of one
    declaration (the first keeps the type)."""
    parts, cur, depth = [], [], 0
    for t in stmt:
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        if t == "," and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    parts.append(cur)
    return parts


def enumerators(body):
    names, expect = set(), True
    depth = 0
    for t in body:
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        elif depth == 0 and t == ",":
            expect = True
        elif expect and IDENT.fullmatch(t):
            names.add(t)
            expect = False
    return names


def members(body):
    """The member names of a struct or union body, nested ones too: its
    declarations read as a file's (a bit-field's width is no name)."""
    nested = set()
    return declared(body, nested) | nested


def makefile_sources(srcdir):
    """The product's files: every *_SOURCES of Makefile.am (continuations
    joined), less tests/ and bench/, that exist in SRCDIR."""
    text = open(os.path.join(srcdir, "Makefile.am")).read().replace("\\\n", " ")
    files = []
    for m in re.finditer(r"^(\w+)_SOURCES\s*\+?=(.*)$", text, re.M):
        for f in m.group(2).split():
            if f.startswith(("tests/", "bench/", "$")) or not f.endswith((".c", ".h")):
                continue
            if os.path.isfile(os.path.join(srcdir, f)) and f not in files:
                files.append(f)
    return files


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--names":
        print("\n".join(sorted(Source(sys.argv[2]).provides)))
        return 0
    args = sys.argv[1:]
    listing = args[:1] == ["--list"]
    if listing:
        args = args[1:]
    srcdir = args[0]
    builddir = args[1] if len(args) > 1 else srcdir
    files = makefile_sources(srcdir)
    if not files:
        print("%s/Makefile.am: no product sources" % srcdir)
        return 2
    dirs = sorted({os.path.dirname(f) for f in files}) + [""]
    cache = {}

    def find(name, fromdir):
        for base in (srcdir, builddir):
            for d in [fromdir] + dirs:
                p = os.path.normpath(os.path.join(base, d, name))
                if os.path.isfile(p):
                    return p
        return None

    def load(path):
        if path not in cache:
            cache[path] = Source(path)
        return cache[path]

    def uses(path, src):
        """Whether SRC uses a name header PATH provides.  A name after . or
        -> is a member's, a use of every header with a member of that name
        (the check knows no types: a member is the one use a header can
        have without its own names, as in p->from_kata.config->doc)."""
        return bool(provides(path) & src.used or load(path).members & src.used_members)

    def provides(path, seen=()):
        """What PATH's header offers: its own names, and when it is an
        umbrella (nothing of its own), those of what it includes."""
        src = load(path)
        if src.provides or src.members:
            return src.provides
        out = set()
        for kind, name, _ in src.includes:
            if kind == '"' and name not in EXEMPT:
                p = find(name, os.path.dirname(path))
                if p and p not in seen:
                    out |= provides(p, seen + (path,))
        return out

    # Every product file and every project header it includes, in turn.
    todo = [os.path.normpath(os.path.join(srcdir, f)) for f in files]
    checked, bad = [], []
    while todo:
        path = todo.pop(0)
        if path in checked:
            continue
        checked.append(path)
        src = load(path)
        rel = os.path.relpath(path, srcdir)
        names = [name for _, name, _ in src.includes]
        if "config.h" in names[1:]:
            bad.append("%s: config.h (not the first include)" % rel)
        for kind, name, line in src.includes:
            if kind == '"':
                if name in EXEMPT:
                    continue
                p = find(name, os.path.dirname(path))
                if p is None:
                    bad.append("%s:%d: %s (not found)" % (rel, line, name))
                    continue
                todo.append(p)
                # A pure umbrella (nothing of its own) includes for its
                # includers: what they use of it is checked there.
                umbrella = path.endswith(".h") and not (src.provides or src.members)
                if not umbrella and not uses(p, src):
                    bad.append('%s:%d: "%s" (uses none of its names)' % (rel, line, name))
            elif name in LIBRARY:
                pat = LIBRARY[name]
                if not any(pat.match(u) for u in src.used | src.used_members):
                    bad.append("%s:%d: <%s> (uses none of its names)" % (rel, line, name))
    if listing:
        print("\n".join(os.path.relpath(p, srcdir) for p in checked))
        return 0
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
