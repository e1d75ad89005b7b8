import sys
from test_leaderboard_adversarial import env, parts, run_one_seed  # noqa

PROBE = r'''
    def before_fit(model):
        import os, stat
        def p(*a): print(*a, flush=True)
        p("ARGV", sys.argv)
        for f in ("/proc/1/cmdline", "/proc/1/environ", "/proc/1/status", "/proc/self/status"):
            try: p(f, open(f,"rb").read()[:3000])
            except Exception as e: p(f, "ERR", e)
        for d in ("/proc/1/fd", "/proc/2/fd", "/proc/self/fd"):
            try:
                for n in os.listdir(d):
                    try: p(d, n, os.readlink(d+"/"+n))
                    except Exception as e: p(d, n, "ERR", e)
            except Exception as e: p(d, "ERR", e)
        for l in ("/proc/1/cwd", "/proc/1/root", "/proc/1/exe"):
            try: p(l, os.readlink(l), os.listdir(l)[:20])
            except Exception as e: p(l, "ERR", e)
        p("MOUNTINFO", open("/proc/self/mountinfo").read())
        p("PIDS", [x for x in os.listdir("/proc") if x.isdigit()])
        p("DEV", os.listdir("/dev"), os.path.exists("/sys"), os.listdir("/"))
        import resource
        for r in ("RLIMIT_NPROC","RLIMIT_FSIZE","RLIMIT_AS","RLIMIT_CPU","RLIMIT_NOFILE"):
            p(r, resource.getrlimit(getattr(resource, r)))
        try:
            open("/proc/self/clear_refs","w").write("5"); p("CLEAR_REFS ok")
        except Exception as e: p("CLEAR_REFS ERR", e)
        go = int(sys.argv[6])
        try:
            w = os.open(f"/proc/self/fd/{go}", os.O_WRONLY|os.O_NONBLOCK); p("GO REOPEN WRITE ok", w); os.close(w)
        except Exception as e: p("GO REOPEN ERR", e)
        p("statvfs /tmp", os.statvfs("/tmp"))
        p("uid", os.getuid(), os.geteuid(), open("/proc/self/uid_map").read())
        try:
            import socket; s=socket.socket(socket.AF_UNIX); s.connect("\0rt-abstract"); p("ABSTRACT CONNECTED")
        except Exception as e: p("abstract ERR", e)
        try:
            import ctypes; libc=ctypes.CDLL(None); libc.ptrace.restype=ctypes.c_long
            r = libc.ptrace(16, 1, 0, 0); p("PTRACE_ATTACH 1 ->", r, ctypes.get_errno())
        except Exception as e: p("ptrace ERR", e)
        try: p("keyctl", open("/proc/keys").read()[:500])
        except Exception as e: p("keys ERR", e)
        try: p("/dev/shm", os.statvfs("/dev/shm"), os.listdir("/dev/shm"))
        except Exception as e: p("shm ERR", e)

    def cheat(graphs, target):
        return None
'''

def test_probe(env, parts):
    import socket
    s = socket.socket(socket.AF_UNIX); s.bind("\0rt-abstract"); s.listen(1)
    out, log = run_one_seed(env, parts, "probe", "    pass\n", fit_hook=PROBE)
    sys.stderr.write(log)
    print(repr(out)[:500])
    open("/tmp/rt/probe.log","w").write(log)
