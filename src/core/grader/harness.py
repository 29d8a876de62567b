"""Code-A1 grading harness: the Python half of the grader (src/core/grader/runner.js is the other).

Loaded as text and exec'd into a private namespace, in Pyodide (both runner roles) and in native
CPython >= 3.11 (the benchmark's baseline). It never decides a verdict: it parses test lines,
loads a program, calls its entry point, and returns every value as CANONICAL TEXT; the supervisor
(TypeScript, src/core/grader/verdicts.ts) compares texts and decides.

Entry points, each a plain function of str arguments returning a JSON str:
  setup(role)               once per interpreter: lockdown; returns {"jsproxies": n, ...}
  plan(request_json)        judge only: parse every suite line of a request (no code runs)
  load(code, entry_point)   run a module body in a fresh namespace, keep its entry point
  call(args_text, literal)  call the kept entry point on fresh copies of the arguments

Canonical text (JSON, one form per value, types kept):
  None ["n"]   bool ["b",true]   int ["i","-0x1f"] (hex: exact at any size)   str ["s","..."]
  (a str holding surrogate code points: ["u",[code points]])
  float ["f","1.5"] (Python repr; -0.0 written as 0.0; "inf", "-inf", "nan")
  list ["l",[...]]   tuple ["t",[...]]   set ["S",[...]] and frozenset ["F",[...]] (elements
  sorted by their own text)   dict ["d",[[k,v],...]] (sorted by key text)
Anything else (a subclass, a generator, an object with its own __eq__) is not a builtin value.
Canonicalisation never calls candidate methods: exact type() checks only.
"""

import ast as _A
import builtins as _builtins_module
import json as _json
import math as _math
import os as _os
import re as _re
import sys as _sys
import tokenize as _tokenize
from warnings import simplefilter as _ignore_warnings  # the judge's parses (`plan`)

_OP = _tokenize.OP
# Tokens that hold no text of the line between two operators (a prefix run goes on across them).
_NO_TEXT = frozenset((_tokenize.NL, _tokenize.NEWLINE, _tokenize.INDENT, _tokenize.DEDENT, _tokenize.ENDMARKER))

# The harness's own builtins: a private copy, so that a program (or a test line walking a reference's
# introspection) that rewrites the builtins module (`iter.__self__` is that module) changes nothing the
# harness computes. Every function below is defined after this and looks its builtins up here.
__builtins__ = dict(vars(_builtins_module))

# Modules a candidate may import (an import statement of another raises ImportError).
ALLOWED_IMPORTS = ("math", "itertools", "functools", "collections", "heapq", "bisect", "string", "operator", "re")
# Modules CPython's C code imports lazily under a program's frame (long.c's big-int division and
# int<->str conversions: _pylong; typevarobject.c's PEP 695 generics: typing), loaded at setup.
_C_IMPORTS = ("_pylong", "typing")
# Audit events a program may trigger; everything else is refused (default deny). In the sandbox,
# introspection (gc, frames, code attributes) is allowed: it reaches nothing outside the candidate's
# own unit (the interpreter holds no JavaScript object, and is restored after the unit). The judge
# refuses it: a trusted reference runs there on a test line's arguments, and one that calls what its
# arguments name (`getattr(value, name)(*args)`) would let a line walk from a frame (or the collector)
# to the harness, whose answers then come from the harness's objects, not the reference's.
_INTROSPECTION = ("object.__getattr__", "sys._getframe", "gc.get_objects", "gc.get_referrers", "gc.get_referents")
_JUDGE_EVENTS = frozenset(("exec", "compile", "builtins.id", "re.compile", "sys._getframemodulename", "object.__setattr__", "object.__delattr__")
                          + (() if hasattr(_sys, "_getframemodulename") else ("sys._getframe",)))
_SANDBOX_EVENTS = _JUDGE_EVENTS | frozenset(_INTROSPECTION)
# Process-level kill switches and file-descriptor calls that raise no audit event: replaced in os
# and posix. (The descriptor table is also put back from outside after every unit, runner.js: this
# list only spares the runner that work and a candidate the confusion.)
_OS_DENIED = ("_exit", "abort", "kill", "killpg", "system", "fork", "forkpty", "popen", "execv", "execve",
              "spawnv", "spawnve", "posix_spawn", "posix_spawnp", "register_at_fork",
              "close", "closerange", "dup", "dup2", "pipe", "pipe2", "write", "read", "readv", "writev",
              "pread", "pwrite", "lseek", "set_blocking", "set_inheritable", "sendfile", "fchdir", "umask",
              "fsync", "fdatasync", "login_tty", "ftruncate", "tcsetpgrp", "setsid", "setpgid")
# Module roots of Pyodide's JavaScript bridge: scrubbed from the interpreter at setup.
_BRIDGE_ROOTS = ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "micropip")

MAX_LINE_CHARS = 2000     # a longer test line is invalid before it is parsed
MAX_NESTING = 100         # so is one that nests deeper
# How deep CPython runs a program under a clean Pyodide's runner (runPython's two frames, the runner's
# module frame, then exec): the program's module frame at LOAD_DEPTH, the entry point's frame at
# CALL_DEPTH (under the line's module frame). load and call run their code as deep, with frames of
# `_deeper` between (they are called at setup's depth: runner.js, python-native.ts), so a program
# that recurses, counts how deep it can go, or reads the limit meets CPython's (rounds 27 and 28).
LOAD_DEPTH = 4
CALL_DEPTH = 5
_LONG_RUN = _re.compile(r"(?:[-+~(\[{] *){%d}" % (MAX_NESTING + 1))
MAX_VALUE_NODES = 20000   # canonical values: at most this many nodes...
MAX_VALUE_CHARS = 200000  # ...and this much text (a literal, a reference output, a candidate's value)
# A line's plan entry (its args, answer, call and argv texts) is at most PLAN_PER_CHAR characters
# per character of the line plus PLAN_BASE, and at most PLAN_LINE_CHARS, or the line is invalid:
# the supervisor packs judge requests by these bounds so that no answer outgrows a runner's event
# line (supervisor.ts planBound). No line within MAX_LINE_CHARS reaches them: the most a character
# costs is 36 (an astral character in a string argument: 12 in args, argv and the call's text).
PLAN_PER_CHAR = 40
PLAN_BASE = 400
PLAN_LINE_CHARS = 80400
_MAX_DEPTH = 100
_REASON_CHARS = 160

_PRISTINE_BUILTINS = dict(vars(_builtins_module))
_state = {"ready": False, "fn": None}
_encode_str = _json.encoder.encode_basestring_ascii  # C function: exact, ASCII-only JSON strings
_dumps = _json.dumps
# What runs while a program's code may have run before it in the interpreter (load, call) uses C
# functions only, held here: json's Python layer and math's module dict can be rewritten by a program
# (or a line walking a reference's introspection), and so read another call's arguments or write its outcome.
_scan_json = (_json.scanner.c_make_scanner or _json.scanner.make_scanner)(_json.JSONDecoder())
_copysign = _math.copysign


def _outcome(kind, reason):
    """[kind, reason] as JSON text, by C functions only (see _scan_json)."""
    return '["' + kind + '",' + _encode_str(reason) + "]"


def _marked(kind, reason):
    """[kind, reason, 1]: an outcome after which the program's state may differ from what CPython
    leaves it in (a call not made, an object's methods not run, a lookup not CPython's); verdicts.ts
    refuses the rest of the suite for this candidate."""
    return '["' + kind + '",' + _encode_str(reason) + ",1]"


class _NotBuiltin(Exception):
    pass


class _ProgramObject(_NotBuiltin):
    """A value holding an object of a type that is not a builtin one: CPython's comparison of it runs its
    own methods (`__eq__`, `__ne__`, `__hash__`, `__bool__`), which may change the program's state."""


# ---------------------------------------------------------------------------------------------
# Setup: lock the interpreter down once. The runner snapshots the interpreter's memory right after
# this (sandbox role) and restores it before every candidate, so nothing a candidate changes
# outlives it; what setup removes is gone for every candidate.

_GUARDED_IMPORT_SRC = (
    "def __import__(name, globals=None, locals=None, fromlist=(), level=0):\n"
    "    pick = restricted if caller(1) is None else real\n"
    "    return pick(name, globals, locals, fromlist, level)\n"
)
# Who imports: the calling function's module name (a str; no frame, which would lead to the harness).
# Python 3.11 (a native baseline, trusted batches only) has no such call: a frame's globals there.
_caller_module = getattr(_sys, "_getframemodulename", None) or (lambda depth: _sys._getframe(depth + 1).f_globals.get("__name__"))

# What the grader refused in the current step (load or call), where CPython would have gone on: an
# audit event, a replaced os function, an import of a stdlib module off the allow-list. A program
# may catch the error and take another path than CPython's, so such a step is a marked `error`
# whatever it returns (round 29): its outcome is the grader's, not CPython's.
# Refusals outside the hooks report to them by the event `grader.refused` (no list in a function's
# globals for a program to find; the harness's own namespace is as reachable as ever: Not guaranteed).
_REFUSED = []
_REFUSED_EVENT = "grader.refused"
_REFUSED_SRC = "def refused(*args, **kwargs):\n    audit('grader.refused', 'a process or file-descriptor call')\n    raise RuntimeError('blocked by the grader sandbox')\n"
# A program's `__import__`: CPython's own import (sys.modules[name], one module object, as an import
# statement gets it) for the allow-list, its submodules and `__future__`, and for what the
# interpreter's C code imports on a program's behalf (PyImport_Import calls the current frame's
# builtins' `__import__` with a list for fromlist: big-int division imports `_pylong`, a PEP 695
# generic class `typing`; round 28). Another module a clean Pyodide finds is refused (the step is
# marked: CPython would have imported it), and so is a name in sys.modules; a name whose root nothing
# finds goes to CPython's import, which raises CPython's own error (the first missing parent, a
# malformed name: round 34), unless the program changed the import system (a finder, a path entry,
# a hook), where the grader cannot tell what CPython would find and refuses. A name or level of a
# subclass of str or int, a relative import, an import call of another shape are refused too (marked):
# CPython imports by them, and their methods are the program's; a name that is no str, a negative
# level or an empty name go to CPython's import, which raises before it imports anything (round 33).
_IMPORT_SRC = (
    "def __import__(name=NO_NAME, globals=None, locals=None, fromlist=(), level=0, *more, **extra):\n"
    "    if name is NO_NAME or more or extra:\n"
    "        audit('grader.refused', 'an import call of another shape')\n"
    "        raise ImportError('this import is not allowed in the grader sandbox')\n"
    "    if type(name) is not str and not issubclass(type(name), str):\n"
    "        return real(name, globals, locals, fromlist, level)  # CPython's TypeError: nothing is imported\n"
    "    if type(name) is not str or type(level) is not int:\n"
    "        audit('grader.refused', 'an import by a name or level of a subclass')\n"
    "        raise ImportError('this import is not allowed in the grader sandbox')\n"
    "    if level < 0 or (level == 0 and not name):\n"
    "        return real(name, globals, locals, fromlist, level)  # CPython's ValueError: nothing is imported\n"
    "    if level != 0:\n"
    "        audit('grader.refused', 'a relative import')\n"
    "        raise ImportError('a relative import is not allowed in the grader sandbox')\n"
    "    root = name.partition('.')[0]\n"
    "    if root in ALLOWED or type(fromlist) is list:\n"
    "        return real(name, globals, locals, fromlist, level)\n"
    "    if root in STDLIB or moved():\n"
    "        audit('grader.refused', 'import ' + name)\n"
    "        raise ImportError('import of %r is not allowed in the grader sandbox' % (name,))\n"
    "    for key in MODULES:\n"
    "        if type(key) is str and key == root:  # put there by the program: CPython would use it\n"
    "            audit('grader.refused', 'import ' + name)\n"
    "            raise ImportError('import of %r is not allowed in the grader sandbox' % (name,))\n"
    "    return real(name, globals, locals, fromlist, level)  # nothing finds its root: CPython's own error\n"
)


_IMPORT_SYSTEM_SRC = (
    "def moved():\n"
    "    for now, was, items in ((SYS.meta_path, *META), (SYS.path_hooks, *HOOKS), (SYS.path, *PATH)):\n"
    "        if now is not was or len(now) != len(items):\n"
    "            return True\n"
    "        for i in range(len(items)):\n"
    "            if now[i] is not items[i]:\n"
    "                return True\n"
    "    cache, entries = CACHE\n"
    "    if SYS.path_importer_cache is not cache or len(cache) != len(entries):\n"
    "        return True\n"
    "    for k, v in cache.items():\n"
    "        if type(k) is not str or k not in entries or entries[k] is not v:\n"
    "            return True\n"
    "    return False\n"
)


def _tiny_function(src, name, env):
    """A function in a namespace of its own: its __globals__ leads nowhere."""
    ns = {"__builtins__": {k: _PRISTINE_BUILTINS[k] for k in ("RuntimeError", "ImportError", "ModuleNotFoundError", "type", "str", "int", "list", "issubclass", "len", "range")}}
    ns.update(env)
    exec(src, ns)
    return ns[name]


def _found_on_path(os):
    """The top-level names the import system can find on sys.path and in the working directory: each
    archive's and each folder's entries (a module, a package, a namespace package: round 33 found
    stdlib modules the standard-library list lacks, and folders of `/`)."""
    import zipfile
    names = set()
    for p in list(_sys.path) + [os.getcwd()]:
        if type(p) is not str:
            continue
        p = p or os.getcwd()
        try:
            if p.endswith(".zip"):
                with zipfile.ZipFile(p) as z:
                    entries = z.namelist()
            else:
                entries = os.listdir(p)
        except OSError:
            continue
        names.update([e.partition("/")[0].partition(".")[0] for e in entries])
    names.discard("")
    return frozenset(names)


def setup(role):
    """Lockdown, in order: (1) preload the allowed modules; (2) cut the JavaScript bridge: every
    Pyodide module is emptied and dropped, the import finders that recreate them removed, builtin
    modules cannot be created again, and the interpreter is walked to cut and then count every
    JsProxy and bridge function left anywhere (`_sever`); (3) refuse what needs no audit event
    (process exits, raising the recursion limit); (4) a default-deny audit hook. Returns a JSON
    report: the runner refuses to start unless its "jsproxies" count is zero."""
    if _state["ready"]:
        return _dumps({"role": role, "jsproxies": 0})
    _state["role"] = role
    import gc
    import os
    import warnings
    # Setup's own imports and compiles warn nobody; the filters go back to CPython's defaults at the
    # end, before the snapshot: a program starts with a clean interpreter's filters (round 31 D).
    quiet = warnings.catch_warnings()
    quiet.__enter__()
    warnings.simplefilter("ignore")
    import collections, functools, heapq, bisect, itertools, math, operator, re, string  # noqa: F401
    try:
        import unicodedata  # noqa: F401  (compile needs it for \N{...} escapes; loads no later)
    except ImportError:
        pass
    for name in _C_IMPORTS:  # what C code imports on a program's behalf, loaded now (no file reads later)
        try:
            __import__(name)
        except ImportError:  # not in this Python (a native baseline's 3.11 has no _pylong)
            pass
    mods = _sys.modules
    # What a clean Pyodide imports (a refusal of it is marked): the standard library, frozen modules,
    # and whatever is loaded now, the JavaScript bridge included.
    frozen = getattr(mods.get("_imp"), "_frozen_module_names", lambda: ())()
    importable = frozenset(getattr(_sys, "stdlib_module_names", ())) | frozenset(_BRIDGE_ROOTS) | frozenset(
        [n.partition(".")[0] for n in list(mods) + list(frozen) + list(_sys.builtin_module_names) if type(n) is str] + ["__main__"]) | _found_on_path(os)
    import opcode
    # The opcodes `_name_loads` reads a line's code by (before any program runs here).
    _state["ops"] = (opcode.opmap["LOAD_NAME"], opcode.opmap["EXTENDED_ARG"])
    refused = _tiny_function(_REFUSED_SRC, "refused", {"audit": _sys.audit})

    # (2) The JavaScript bridge. JsProxy is read before its module is emptied, then only used to
    # count what is left.
    js_proxy = None
    if "pyodide.ffi" in mods:
        js_proxy = vars(mods["pyodide.ffi"]).get("JsProxy")
        # JsException(name, message) builds a real JS Error object: no one may construct one.
        for cls in _all_classes():
            if cls.__name__ == "JsException":
                type.__setattr__(cls, "__new__", staticmethod(refused))
    asyncio_events = mods.get("asyncio.events")
    if asyncio_events is not None:  # Pyodide's event loop policy schedules callbacks in JavaScript
        vars(asyncio_events)["_event_loop_policy"] = None
    for name in list(mods):
        if name.split(".")[0] in _BRIDGE_ROOTS:
            module = mods.pop(name)
            d = getattr(module, "__dict__", None)
            if type(d) is dict:
                d.clear()
    # (A finder is an instance or, as Pyodide's stdlib and package finders are, a class: both counted.)
    _sys.meta_path[:] = [f for f in _sys.meta_path if not (type(f).__module__.startswith(_BRIDGE_ROOTS)
                                                          or str(getattr(f, "__module__", "")).startswith(_BRIDGE_ROOTS))]
    _sys.path_hooks[:] = [h for h in _sys.path_hooks if not getattr(h, "__module__", "").startswith(_BRIDGE_ROOTS)]
    # A builtin or extension module can be created again from its C definition
    # (BuiltinImporter.create_module -> _imp.create_builtin), which raises no audit event.
    imp = mods.get("_imp")
    if imp is not None:
        for name in ("create_builtin", "create_dynamic", "exec_builtin", "exec_dynamic"):
            if name in vars(imp):
                vars(imp)[name] = refused
    # The real builtins module is reachable (len.__self__): its __import__, called from candidate
    # code, imports only what candidates may; the stdlib's own lazy imports go on (`_stdlib_read`).
    # (Not a boundary: a candidate can reach loaded modules through function globals anyway; what
    # stops it is the audit hook, the restore after each unit, and no JavaScript to reach.)
    # The import system as setup leaves it: a name nothing on it finds goes to CPython's import for
    # CPython's own error; where a program changed it (a finder, a path entry, a hook: round 34) the
    # grader cannot tell what CPython would find, and refuses (marked). Every path entry's finder is
    # made now (a search for a name that is nowhere), so an allowed import does not add one later.
    from importlib.machinery import PathFinder  # loaded already in Pyodide; a native python3 loads it here
    PathFinder.find_spec("__code_a1_nowhere__")
    cache = _sys.path_importer_cache
    moved = _tiny_function(_IMPORT_SYSTEM_SRC, "moved", {
        "SYS": _sys, "META": (_sys.meta_path, tuple(_sys.meta_path)), "HOOKS": (_sys.path_hooks, tuple(_sys.path_hooks)),
        "PATH": (_sys.path, tuple(_sys.path)), "CACHE": (cache, dict(cache))})
    restricted = _tiny_function(_IMPORT_SRC, "__import__", {
        "ALLOWED": frozenset(ALLOWED_IMPORTS + ("__future__",)), "real": _builtins_module.__import__,
        "STDLIB": importable, "MODULES": mods, "audit": _sys.audit, "NO_NAME": _MISSING, "moved": moved})
    _state["archives"] = frozenset([p for p in _sys.path if type(p) is str and p.endswith(".zip")])
    # The directories the import system lists when it looks for a module (sys.path, the working one).
    _state["path_dirs"] = frozenset([p for p in _sys.path if type(p) is str and p and not p.endswith(".zip")] + [os.getcwd()])
    # What a loaded program's builtins are: the pristine ones, with the restricted import.
    candidate_builtins = dict(_PRISTINE_BUILTINS)
    candidate_builtins["__import__"] = restricted
    _state["builtins"] = candidate_builtins
    vars(_builtins_module)["__import__"] = _tiny_function(_GUARDED_IMPORT_SRC, "__import__", {
        "real": _builtins_module.__import__, "restricted": restricted, "caller": _caller_module})
    gc.collect()
    _state["collect"] = gc.collect  # bound now: a program may rebind the gc module's attribute
    left = _sever(js_proxy, gc) if js_proxy is not None else 0

    # (3) A raised recursion limit lets a recursion overflow the wasm stack, which kills Pyodide.
    depth, frame = 0, _sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    # _deeper(k) is k + 1 frames, under `_load` / `_call` (a frame below `load` / `call`).
    _state["pad"] = (max(0, LOAD_DEPTH - 3 - depth), max(0, CALL_DEPTH - 3 - depth))
    vars(_sys)["setrecursionlimit"] = refused
    for m in (mods.get("os"), mods.get("posix")):
        for name in _OS_DENIED:
            if m is not None and name in vars(m):
                vars(m)[name] = refused
    quiet.__exit__(None, None, None)
    # Everything setup made lives as long as the runner: the collector need not scan it again. A
    # reload's collection (`load`, round 51) then reads only what programs made since the restore.
    gc.collect()
    gc.freeze()
    del gc, os, warnings, quiet
    # (4) Once installed a hook cannot be removed.
    _sys.addaudithook(_audit_judge if role == "judge" else _audit)
    _state["ready"] = True
    return _dumps({"role": role, "jsproxies": left})


def _audit(event, args):
    if event not in _SANDBOX_EVENTS:
        _refuse(event, args, "the grader sandbox")


def _audit_judge(event, args):
    if event not in _JUDGE_EVENTS:
        _refuse(event, args, "the grader's judge")


def _refuse(event, args, who):
    """An event off the role's list: let CPython's own stdlib reads through; record the rest in
    `_REFUSED` (a `grader.refused` report is only recorded: its reporter raises) and raise."""
    if _stdlib_read(event, args):
        return
    if event == _REFUSED_EVENT:
        _REFUSED.append(args[0] if args and type(args[0]) is str else event)
        return
    _REFUSED.append(event)
    raise RuntimeError("blocked by " + who + ": " + event)


_stat = _os.stat
_WRITE_FLAGS = _os.O_WRONLY | _os.O_RDWR | _os.O_CREAT | _os.O_TRUNC | _os.O_APPEND


def _stdlib_read(event, args):
    """What CPython does as it imports lazily from the standard library (an encoding's codec, a
    package's submodule) or probes for a file it may lack: the import itself, the stdlib archive
    opened for reading, a read of a path that does not exist (it fails as in CPython: a SyntaxError
    looks for its source line in "<string>"), and a listing of an import path. What an import loads
    is gone with the unit's restore; the bridge's modules stay out (their finders are gone, their C
    modules cannot be created)."""
    if event == "import":
        return type(args[0]) is str and args[0].partition(".")[0] not in _BRIDGE_ROOTS
    if event == "os.listdir" or event == "os.scandir":
        return len(args) > 0 and type(args[0]) is str and args[0] in _state["path_dirs"]
    if event != "open" or len(args) < 3 or type(args[0]) is not str or type(args[1]) is not str or type(args[2]) is not int:
        return False
    if args[1] not in ("r", "rb") or args[2] & _WRITE_FLAGS:
        return False
    if args[0] in _state["archives"]:
        return True
    try:
        _stat(args[0])
    except OSError:
        return True
    return False


def _all_classes():
    seen, todo = set(), [object]
    while todo:
        for sub in type.__subclasses__(todo.pop()):
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return seen


def _sever(cls, gc):
    """Cut the interpreter off from JavaScript. Every reference to a bridge value — a JsProxy (an
    instance of cls), or a function of a bridge module (_pyodide_core.to_js makes one from
    anything) — held by a dict, list, cell, object attribute or slot is dropped; every dict that is
    a bridge module's namespace (CPython keeps a copy of an extension module's dict, `m_copy`, to
    initialise it again) and every attribute of Pyodide's own objects (its import finder, its event
    loop) is emptied. The walk starts from every object the collector tracks and follows every
    reference (untracked containers included: a dict of atomic values is not tracked itself). Then
    the bridge values still reachable are counted: the lockdown needs zero. Pyodide's classes stay
    (the interpreter holds them in C); they hold no JavaScript value and cannot be instantiated."""
    builtin_function = type(len)

    def walk(visit):
        seen, todo = set(), gc.get_objects()
        while todo:
            o = todo.pop()
            if id(o) in seen:
                continue
            seen.add(id(o))
            visit(o)
            todo.extend(gc.get_referents(o))

    def bridge_name(name):
        return type(name) is str and name.split(".")[0] in _BRIDGE_ROOTS

    def is_bridge(o):
        t = type(o)
        return issubclass(t, cls) or (t is builtin_function and bridge_name(getattr(o, "__module__", None)))

    def bridge_object(o):
        return bridge_name(type(o).__module__) and not isinstance(o, type)

    def cut(o):
        t = type(o)
        if t is dict:
            if bridge_name(o.get("__name__")):
                o.clear()
            for k in [k for k, v in o.items() if is_bridge(v) or is_bridge(k)]:
                del o[k]
        elif t is list:
            o[:] = [x for x in o if not is_bridge(x)]
        elif t is _CellType:
            try:
                if is_bridge(o.cell_contents):
                    o.cell_contents = None
            except ValueError:  # an empty cell
                pass
        elif bridge_object(o) or any(is_bridge(r) for r in gc.get_referents(o)):
            # Attributes kept inline (no dict object until asked for) or in slots.
            try:
                d = object.__getattribute__(o, "__dict__")
            except (AttributeError, TypeError):
                d = None
            if type(d) is dict:
                if bridge_object(o):
                    d.clear()
                cut(d)
            for klass in type(o).__mro__:
                slots = vars(klass).get("__slots__", ())
                for name in (slots,) if type(slots) is str else slots:
                    try:
                        if is_bridge(object.__getattribute__(o, name)):
                            object.__setattr__(o, name, None)
                    except (AttributeError, TypeError):
                        pass

    walk(cut)
    gc.collect()
    found = []
    walk(lambda o: found.append(1) if is_bridge(o) else None)
    return len(found)


_CellType = type((lambda x: lambda: x)(0).__closure__[0])


def _fresh_namespace():
    """A module namespace for one program (its own copy of the builtins dict: a reference loaded in
    the judge, which is not restored, cannot see what an earlier one put there). No `__name__`, as
    exec(program, {}) gives none: the program's `__name__` and its classes' `__module__` are the
    builtins' ('builtins'), and its functions belong to no module (`__module__` None), which is how
    the builtins module's guarded `__import__` tells a program's call from the stdlib's (round 26)."""
    return {"__builtins__": dict(_state["builtins"])}


# ---------------------------------------------------------------------------------------------
# Canonical text (module doc).

def _canon(v, budget, ordered=False):
    """Canonical text of v; budget is [nodes left, depth]. ordered: dicts and sets keep their
    iteration order and -0.0 its sign (arguments, rebuilt exactly as the line wrote them)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _NotBuiltin("too large (more than %d values)" % MAX_VALUE_NODES)
    t = type(v)
    if t is str:
        if not v.isascii():
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                # Surrogate code points: as JSON escapes, '\ud83d\ude00' would read back as one
                # character (and equal the emoji). Written as code points they stay what they are.
                return '["u",[' + ",".join([str(ord(c)) for c in v]) + "]]"
        return '["s",' + _encode_str(v) + "]"
    if t is int:
        return '["i","' + hex(v) + '"]'
    if t is bool:
        return '["b",true]' if v else '["b",false]'
    if v is None:
        return '["n"]'
    if t is float:
        return '["f","' + (repr(v) if v != 0.0 or ordered else "0.0") + '"]'
    if budget[1] > _MAX_DEPTH:
        raise _NotBuiltin("nested deeper than %d" % _MAX_DEPTH)
    budget[1] += 1
    try:
        if t is list or t is tuple:
            body = ",".join([_canon(x, budget, ordered) for x in v])
            return ('["l",[' if t is list else '["t",[') + body + "]]"
        if t is set or t is frozenset:
            items = [_canon(x, budget, ordered) for x in v]
            return ('["S",[' if t is set else '["F",[') + ",".join(items if ordered else sorted(items)) + "]]"
        if t is dict:
            pairs = [(_canon(k, budget, ordered), _canon(x, budget, ordered)) for k, x in v.items()]
            return '["d",[' + ",".join(["[" + k + "," + x + "]" for k, x in (pairs if ordered else sorted(pairs))]) + "]]"
    finally:
        budget[1] -= 1
    name = _type_name(t)
    raise _ProgramObject("%s is not a builtin value" % (name,), name)


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time (a program's), not a C static type


_INERT_WALK = 200_000  # how much of a value `_inert` walks before it gives up (a few tens of ms)


def _inert(v):
    """Whether v is builtin through and through: str, int, bool, float, None, bytes, bytearray,
    complex, range, Ellipsis, NotImplemented, static builtin classes, in lists, tuples, sets,
    frozensets and dicts, however large or deep (up to _INERT_WALK values, walked without recursion).
    CPython's comparison of such a value with a literal's and its release run no program code (C
    types that hold no other object and take no weak reference, or objects never freed); a value the
    canonical form does not read (no tag, past its size or depth: rounds 43 and 49) is then a plain
    wrong answer, since no literal equals it. A function, a method, a generator or any other object
    may run program code when released (a finalizer, a weak reference's callback, a module's
    teardown). Only `is` tests: `==` on a type runs its metaclass's."""
    stack = [v]
    left = _INERT_WALK
    while stack:
        x = stack.pop()
        left -= 1
        if left < 0:
            return False
        t = type(x)
        if t is str or t is int or t is bool or t is float or x is None:
            continue
        if t is bytes or t is bytearray or t is complex or x is Ellipsis or x is NotImplemented:
            continue
        if t is range:
            if type(x.start) is int and type(x.stop) is int and type(x.step) is int:
                continue
            return False
        if t is type:
            if x.__flags__ & _HEAPTYPE:
                return False
            continue
        if t is list or t is tuple or t is set or t is frozenset:
            stack.extend(x)
            continue
        if t is dict:
            stack.extend(x.keys())
            stack.extend(x.values())
            continue
        return False
    return True


def canonical(v, ordered=False):
    """Canonical text of v, or raise _NotBuiltin(reason)."""
    text = _canon(v, [MAX_VALUE_NODES, 0], ordered)
    if len(text) > MAX_VALUE_CHARS:
        raise _NotBuiltin("too large (more than %d characters)" % MAX_VALUE_CHARS)
    return text


def _from_canon(c):
    """A new value from parsed canonical text: every call gets arguments nobody has mutated. Its
    constants are the line's as CPython compiles them (`_const`): equal ones are one object, and a
    str of ASCII name characters is the interned one (`is` sees what it sees in CPython)."""
    tag = c[0]
    if tag == "s":
        return _const(c[1])
    if tag == "u":
        return _const("".join([chr(cp) for cp in c[1]]))
    if tag == "i":
        return _const(int(c[1], 16))
    if tag == "b":
        return c[1]
    if tag == "n":
        return None
    if tag == "f":
        return _const(float(c[1]))
    items = [_from_canon(x) for x in c[1]] if tag != "d" else None
    if tag == "l":
        return _build_list(items)
    if tag == "t":
        t = tuple(items)
        # A tuple display of constants is a constant itself (folded); one holding a list is built at run time.
        return _const(t) if _is_const(t) else t
    if tag == "S":
        return set(items)
    if tag == "F":
        return frozenset(items)
    if tag == "D":  # a set display, elements as written (an argument: `_display`)
        return _build_set(items)
    # A dict display, entries as written (repeated keys too, in an argument: `_display`).
    return _build_dict([(_from_canon(k), _from_canon(x)) for k, x in c[1]])


_REPR_INT_LIMIT = 10**4000  # below sys.int_info.default_max_str_digits (4300); a constant, not per call


def _lit(v):
    """A Python literal that parses back to exactly v (the reference-corrected line's answer; the
    property is tested on random values against ast.literal_eval), or raise ValueError when v has
    none (NaN, frozenset)."""
    t = type(v)
    if t is float:
        if v != v:
            raise ValueError("NaN has no literal form")
        if v in (float("inf"), float("-inf")):
            return "1e999" if v > 0 else "-1e999"
        return repr(v)
    if t is int and not -_REPR_INT_LIMIT < v < _REPR_INT_LIMIT:
        return hex(v)  # repr() of an int this long raises (sys.int_info.default_max_str_digits)
    if t in (int, str, bool) or v is None:
        return repr(v)
    if t is list:
        return "[" + ", ".join([_lit(x) for x in v]) + "]"
    if t is tuple:
        return "(" + ", ".join([_lit(x) for x in v]) + (",)" if len(v) == 1 else ")")
    if t is set:
        return "{" + ", ".join(sorted([_lit(x) for x in v])) + "}" if v else "set()"
    if t is frozenset:
        raise ValueError("a frozenset has no literal form")
    return "{" + ", ".join(sorted([_lit(k) + ": " + _lit(x) for k, x in v.items()])) + "}"


_SHOW_INT_LIMIT = 10**40


# A class's own name, read by type's C getter: a metaclass's `__name__` property (program code) never runs.
_class_name = type.__dict__["__name__"].__get__
_exact_str = str.__str__  # an exact str copy of a str subclass, by C code alone


def _type_name(t):
    """t's name as an exact str: a program can set a class's `__name__` to a str subclass, whose
    methods (`__add__`, `__str__`, `__hash__`) are its code (round 32)."""
    return _exact_str(_class_name(t))


# The builtin exception classes: their `args` is BaseException's C getter. A program's own class may
# define `args` (a property) or a metaclass: reading either would run its code, which CPython's
# `except` does not. Compared by identity only: a membership test in a set or a tuple hashes or
# compares the class, i.e. calls its metaclass's `__hash__` / `__eq__`, program code (round 32).
_BUILTIN_EXCEPTIONS = tuple([v for v in vars(_builtins_module).values() if type(v) is type and issubclass(v, BaseException)])


def _builtin_exception(t):
    for c in _BUILTIN_EXCEPTIONS:
        if t is c:
            return True
    return False


def _exc_reason(e):
    t = type(e)
    name = _type_name(t)
    if not _builtin_exception(t):
        return name + " (an exception class of the program's own)"
    args = e.args if type(e.args) is tuple else ()
    # Only builtin str/int arguments are shown: formatting a candidate object would run its code.
    if len(args) == 1 and (type(args[0]) is str or type(args[0]) is int):
        arg = args[0]
        text = arg if type(arg) is str else (str(arg) if -_SHOW_INT_LIMIT < arg < _SHOW_INT_LIMIT else "<int>")
        return (name + ": " + text)[:_REASON_CHARS]
    return name


# ---------------------------------------------------------------------------------------------
# Test lines: `assert CALL == ANSWER`, CALL = entry_point(literal, ...), ANSWER a literal.

_LITERAL_TYPES = (int, float, str, bool, type(None))
# How CPython builds a set display of constants, which decides its iteration order: 3 to 30 elements
# (any number before 3.14) are folded into one frozenset constant and merged into an empty set
# (BUILD_SET 0; LOAD_CONST frozenset; SET_UPDATE); fewer, or more, are added one by one. Every set
# element a literal can hold (a number, a str, a bool, None, a tuple of those) is a constant.
# CPython's stack-use guideline (_PY_STACK_USE_GUIDELINE): past it, displays are built item by item.
_STACK_GUIDELINE = 30
_SET_FOLD = (3, _STACK_GUIDELINE if _sys.version_info >= (3, 14) else 1 << 62)


# A code object's constants are merged: an equal folded display later in the same line is built from
# the FIRST one's frozenset (`_PyCode_ConstantKey`: equal keys, where 1, 1.0 and True and the two zeros
# differ), so it iterates as that one does. Keyed per line (a parse) and per call (a runner's rebuild of
# its arguments), in the order CPython compiles them: left to right.
_folded = {}


_SCALAR_CONSTS = (int, float, str, bool, type(None))


def _is_const(v):
    """Whether v can be a code object's constant: a scalar, or a tuple or frozenset of constants."""
    t = type(v)
    return t in _SCALAR_CONSTS or (t in (tuple, frozenset) and all([_is_const(x) for x in v]))

_intern = _sys.intern
_NAME_CHARS = _re.compile(r"[A-Za-z0-9_]*").fullmatch


def _const(v):
    """The line's one object for the constant v, as CPython's compiler leaves it: a str of ASCII name
    characters interned (`intern_constants`), then equal constants merged into the first
    (`_PyCode_ConstantKey`; tuples and frozensets item by item, which `_from_canon` builds first).
    `f('add', 1000, 1000)`: `'add'` is the program's own `'add'`, and the two 1000 are one object."""
    if type(v) is str and _NAME_CHARS(v) is not None:
        v = _intern(v)
    return _folded.setdefault(_const_key(v), v)


def _const_key(v):
    """CPython's constant key of a literal value (codeobject.c `_PyCode_ConstantKey`)."""
    t = type(v)
    if t is bool:
        return (bool, v)
    if t is float:
        return (float, v, None) if v == 0.0 and _copysign(1.0, v) < 0 else (float, v)
    if t is tuple:
        return (tuple([_const_key(x) for x in v]), v)
    if t is frozenset:
        return (frozenset([_const_key(x) for x in v]), v)
    return v


# How CPython builds a list display, which decides its capacity (`list.__sizeof__` reads it; round 35):
# up to 30 elements (the stack guideline) BUILD_LIST n, exactly n slots, except that 3 or more
# constants are folded into one tuple and extended into an empty list (BUILD_LIST 0; LOAD_CONST
# tuple; LIST_EXTEND: one resize); past 30, an empty list appended to one by one (LIST_APPEND).
def _build_list(items):
    """The list a display of `items` builds, capacity included. `items` was built by a comprehension:
    appended one by one (LIST_APPEND), as a display past the guideline is."""
    if len(items) > _STACK_GUIDELINE:
        return items
    if len(items) >= 3 and all([_is_const(x) for x in items]):
        out = []
        out.extend(_const(tuple(items)))
        return out
    return items[:]  # a slice is allocated at its exact length


# How CPython builds a dict display, which decides its table size (`dict.__sizeof__` reads it; round
# 38): the written entries (repeated keys included) in chunks (codegen_dict); a chunk of up to 15 is
# BUILD_MAP n, a table presized for its n written entries, one of 16 or 17 an empty dict added to
# entry by entry (MAP_ADD), and every chunk after the first is merged into the first (DICT_UPDATE).
_DICT_BUILDERS = [
    _tiny_function("def build(%s):\n    return {%s}\n" % (", ".join(["k%d, v%d" % (i, i) for i in range(n)]), ", ".join(["k%d: v%d" % (i, i) for i in range(n)])), "build", {})
    for n in range(_STACK_GUIDELINE // 2 + 1)
]


def _build_dict(pairs):
    """The dict a display of `pairs` (key, value in written order) builds, table size included."""
    chunks, elements = [], 0
    for i in range(len(pairs)):
        if elements * 2 > _STACK_GUIDELINE:
            chunks.append(pairs[i - elements:i + 1])
            elements = 0
        else:
            elements += 1
    if elements:
        chunks.append(pairs[len(pairs) - elements:])
    out = None
    for chunk in chunks:
        if len(chunk) * 2 > _STACK_GUIDELINE:
            d = {}
            for k, v in chunk:
                d[k] = v
        else:
            d = _DICT_BUILDERS[len(chunk)](*[x for kv in chunk for x in kv])
        if out is None:
            out = d
        else:
            out.update(d)
    return {} if out is None else out


def _build_set(items):
    """The set a display of `items` (in written order) builds, iteration order included."""
    s = set()
    if _SET_FOLD[0] <= len(items) <= _SET_FOLD[1]:
        folded = frozenset(items)
        s.update(_folded.setdefault(_const_key(folded), folded))
    else:
        for x in items:
            s.add(x)
    return s


def _literal(n):
    """Value of a literal node, or raise ValueError: constants, +/- numbers, list/tuple/set/dict
    displays of literals, set(). Built by the harness from the parsed tree, as CPython builds each
    display (`_build_set`): nothing from a test line is ever compiled to code or evaluated."""
    t = type(n)
    if t is _A.Constant:
        if type(n.value) in _LITERAL_TYPES:
            return n.value
    elif t is _A.UnaryOp:
        if type(n.operand) is _A.Constant and type(n.operand.value) in (int, float):
            if type(n.op) is _A.USub:
                return -n.operand.value
            if type(n.op) is _A.UAdd:
                return n.operand.value
    elif t is _A.List:
        return [_literal(x) for x in n.elts]
    elif t is _A.Tuple:
        return tuple([_literal(x) for x in n.elts])
    elif t is _A.Set:
        return _build_set([_literal(x) for x in n.elts])
    elif t is _A.Dict:
        if None not in n.keys:  # {**x}
            d = {}
            for k, v in zip(n.keys, n.values):
                d[_literal(k)] = _literal(v)  # a repeated key keeps its first object, its last value
            return d
    elif t is _A.Call:  # set(): the only way to write an empty set
        if type(n.func) is _A.Name and n.func.id == "set" and not n.args and not n.keywords:
            return set()
    raise ValueError("not a literal")


def _display(n, budget):
    """Canonical text of a literal node AS WRITTEN (what runners rebuild arguments from): a set
    display is ["D", [elements in written order, repeats kept]], rebuilt by `_build_set`; everything
    else as `canonical(value, ordered=True)`. Only for arguments holding a set or dict display."""
    t = type(n)
    budget[0] -= 1
    if budget[0] < 0:
        raise _NotBuiltin("too large (more than %d values)" % MAX_VALUE_NODES)
    if t is _A.Set:
        return '["D",[' + ",".join([_canon(_literal(x), budget, True) for x in n.elts]) + "]]"
    if t is _A.List or t is _A.Tuple:
        return ('["l",[' if t is _A.List else '["t",[') + ",".join([_display(x, budget) for x in n.elts]) + "]]"
    if t is _A.Dict:
        return '["d",[' + ",".join(["[" + _canon(_literal(k), budget, True) + "," + _display(v, budget) + "]" for k, v in zip(n.keys, n.values)]) + "]]"
    return _canon(_literal(n), budget, True)


def _parse_suite(lines):
    """One compile for a whole suite (a compile call costs more than its few tokens): one statement
    per line, or None when that does not hold and the lines must be parsed one by one."""
    if any(len(ln) > MAX_LINE_CHARS or _too_deep(ln) for ln in lines):
        return None
    try:
        body = compile("\n".join(lines), "<suite>", "exec", _A.PyCF_ONLY_AST).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(body) != len(lines) or any(stmt.lineno != i + 1 or stmt.end_lineno != i + 1 for i, stmt in enumerate(body)):
        return None
    # A future import changes how the lines after it parse: each line is then read on its own.
    if any(type(stmt) is _A.ImportFrom and stmt.module == "__future__" for stmt in body):
        return None
    return body


def _too_deep(text):
    """Whether a line may nest deeper than MAX_NESTING: Python's parser recurses per level, and a
    deep enough line overflows the wasm stack, which kills the interpreter; such a line is refused
    before it is parsed. Fast path: few brackets and no long run of prefix operators in its text.
    Otherwise its tokens decide: brackets and signs inside a string or a comment are not nesting."""
    brackets = text.count("(") + text.count("[") + text.count("{")
    if brackets <= MAX_NESTING and _LONG_RUN.search(text) is None:
        return False
    return _nesting(text) > MAX_NESTING


_NESTING_OPS = frozenset(("-", "+", "~", "(", "[", "{"))


def _nesting(text):
    """How deeply a line nests, bounded from above: bracket depth, or the longest run of prefix
    operators and open brackets, over the line's tokens (CPython's own tokenizer, which does not
    recurse: an f-string's replacement fields are tokens too). A line the tokenizer refuses (it
    stops at 200 open brackets) is measured on its characters instead, each one a token."""
    try:
        tokens = [(t[0], t[1]) for t in _tokenize.generate_tokens(iter((text,)).__next__)]
    except Exception:  # a tokenizer error: the characters' bound (brackets in strings counted too)
        tokens = [(_OP, ch) for ch in text if ch != " "]
    deepest = run = depth = 0
    for kind, s in tokens:
        if kind == _OP and s in _NESTING_OPS:
            if s in "([{":
                depth += 1
            run += 1
            deepest = max(deepest, depth, run)
        else:
            if kind == _OP and s in ")]}":
                depth -= 1
            if kind not in _NO_TEXT:
                run = 0
    return deepest


class _SideCall(ValueError):
    """An invalid line whose call CPython still makes: (reason, args text, argv text); `node` is that call."""


# What a refused line may hold and still do nothing in CPython beyond the one call candidates make in
# its place (`_SideCall`): literals, and comparisons, `not`, `and`, `or` and signs over them. (Where
# that call returns a program's object, these run its methods: the candidate's step says so, and
# verdicts.ts refuses the rest of that suite for that candidate.)
# Not `~` (Invert): on a bool it warns when it runs (a DeprecationWarning since 3.12), which runs the
# program's warning hooks; a compile in its place would not (round 25).
_INERT_NODES = frozenset((_A.Constant, _A.List, _A.Tuple, _A.Set, _A.Dict, _A.UnaryOp, _A.BoolOp, _A.Compare, _A.Load,
                          _A.And, _A.Or, _A.Not, _A.USub, _A.UAdd, _A.Eq, _A.NotEq, _A.Lt, _A.LtE,
                          _A.Gt, _A.GtE, _A.Is, _A.IsNot, _A.In, _A.NotIn))


def _holds(nodes, kinds):
    """Whether any of `nodes` holds a node of one of `kinds` (a set display, a dict display)."""
    return any([type(n) in kinds for x in nodes for n in _A.walk(x)])


def _opaque(text, stmt, side):
    """Whether a refused line may do, in CPython, what the grader does not do in its place: bind a name
    (`assert (f := g)`, `set = ...`, an import), make a call other than `side` (the call candidates
    make for it, or None: a second call, a message that calls), run a program's method (an attribute,
    a subscript, an operator, a format), or run code of another shape. The supervisor refuses every
    later line of a suite after such a line (its verdict would not be CPython's). A line CPython
    cannot compile runs nothing; a comment, `pass` or a line of literals does nothing. `set()` is a
    call: of the program's own `set` where it binds one."""
    if len(text) > MAX_LINE_CHARS or _too_deep(text):
        return True  # refused unread, though CPython would run it
    if stmt is None:
        try:
            body = compile(text, "<test>", "exec", _A.PyCF_ONLY_AST).body
        except Exception:  # a syntax error (or null bytes): CPython runs nothing of the line either
            return False
    else:
        body = [stmt]
    if not body:
        return False
    if len(body) > 1:
        return True
    s = body[0]
    if type(s) is _A.Pass:
        return False
    if side is not None and type(s) is _A.Assert and type(s.test) is _A.Compare and side is not s.test.left and _holds([s.test.left], (_A.Set,)) and _holds([side], (_A.Set,)):
        # A set display written before the call is compiled first: an equal display in the call's
        # arguments is merged into it and iterates as that one does, which the runners, building the
        # call's arguments alone, do not reproduce (round 37).
        return True
    if type(s) is _A.Expr:
        todo = [s.value]
    elif type(s) is _A.Assert:
        todo = [s.test] + ([s.msg] if s.msg is not None else [])
    else:
        return True
    while todo:
        n = todo.pop()
        if n is side:
            continue  # the entry point on literal arguments (`_call_of`): candidates make it
        if type(n) not in _INERT_NODES:  # a call (set() too: the program's own `set` where it binds one)
            return True
        todo.extend(_A.iter_child_nodes(n))
    return False


def _call_of(call, text, entry_point, lineno):
    """-> (args text, call source, argv text) of `call`, a call of the entry point on literal
    positional arguments, or raise ValueError(reason)."""
    if type(call) is not _A.Call or type(call.func) is not _A.Name or call.func.id != entry_point:
        raise ValueError("left side is not a call of %s" % entry_point)
    if call.keywords:
        raise ValueError("keyword arguments are not allowed")
    try:
        args = tuple([_literal(x) for x in call.args])
    except ValueError:
        raise ValueError("arguments are not literals")
    except (TypeError, MemoryError, RecursionError) as e:  # e.g. {[1]}: unhashable
        raise ValueError("bad literal: " + _exc_reason(e))
    # The corrected line's call: the entry point's own name (a line may spell it with compatibility
    # characters, or in parentheses) and each argument's own text, cut from the line (ast offsets
    # count UTF-8 bytes, not characters). Each cut is a literal node the checks above accepted.
    raw = text.encode("utf-8", "surrogatepass")
    spans = [raw[x.col_offset:x.end_col_offset].decode("utf-8", "surrogatepass") if x.lineno == x.end_lineno == lineno else None for x in call.args]
    call_src = None if None in spans else entry_point + "(" + ", ".join(spans) + ")"
    try:
        args_text = canonical(args, True)
        # A set's iteration order is how CPython builds its display, which rebuilding it from its
        # elements does not reproduce: arguments holding a set display travel as written.
        # So do dict displays (a repeated key sizes CPython's table for every written entry).
        argv = _display(_A.Tuple(elts=call.args), [MAX_VALUE_NODES, 0]) if _holds(call.args, (_A.Set, _A.Dict)) else args_text
    except _NotBuiltin as e:
        raise ValueError("literal " + str(e.args[0]))
    return args_text, call_src, argv


def _parse_line(text, entry_point, stmt=None):
    """-> (args text, answer text, call source, argv text) or raise ValueError(reason). The line is
    read as data: CPython's own parser (tokenizer, NFKC identifiers, parentheses) makes the tree,
    and only the shape `assert NAME(literal, ...) == literal` with NAME the entry point is accepted;
    the values are built from the tree by `_literal`. args keep the order of dicts and sets and the
    sign of zero, as the line wrote them: that is the call (two lines are the same call only when
    they pass the same arguments the same way). stmt: the line's statement when _parse_suite
    already parsed it."""
    _folded.clear()
    if len(text) > MAX_LINE_CHARS:
        raise ValueError("line too long (%d characters, at most %d)" % (len(text), MAX_LINE_CHARS))
    if _too_deep(text):
        raise ValueError("nested too deeply (more than %d levels)" % MAX_NESTING)
    lineno = 1
    if stmt is not None:
        body, lineno = [stmt], stmt.lineno
    else:
        try:
            body = compile(text, "<test>", "exec", _A.PyCF_ONLY_AST).body
        except SyntaxError as e:
            raise ValueError("syntax error: " + (e.msg if type(e.msg) is str else "?"))
        except (ValueError, MemoryError, RecursionError) as e:
            raise ValueError("cannot parse: " + type(e).__name__)
    if len(body) != 1 or type(body[0]) is not _A.Assert:
        raise ValueError("not a single assert statement")
    a = body[0]
    cmp = a.test
    side = cmp.left if type(cmp) is _A.Compare else cmp
    if type(cmp) is _A.Compare:
        # `assert 2 == f(1)`, `assert set() == f(1)`, `assert 2 == f(1) == 2`: the left side is evaluated
        # first; where it is a literal, the first call is the first comparator.
        try:
            _literal(side)
            side = cmp.comparators[0]
        except Exception:
            pass

    def refused(reason):
        # The line is invalid; CPython still makes its call of the entry point when the assert's test
        # starts with one on literal arguments (a message, another comparison, an answer that is not a
        # literal): candidates make it too, in its place in the suite (`_SideCall`).
        try:
            args_text, _, argv = _call_of(side, text, entry_point, lineno)
        except Exception:
            return ValueError(reason)
        e = _SideCall(reason, args_text, argv)
        e.node = side
        return e

    if a.msg is not None:
        raise refused("assert with a message")
    if type(cmp) is not _A.Compare or len(cmp.ops) != 1 or type(cmp.ops[0]) is not _A.Eq:
        raise refused("not of the form CALL == ANSWER")
    call, answer = cmp.left, cmp.comparators[0]
    try:
        args_text, call_src, argv = _call_of(call, text, entry_point, lineno)
    except ValueError as e:
        raise refused(e.args[0])
    try:
        answer_value = _literal(answer)
    except ValueError:
        raise refused("answer is not a literal")
    except (TypeError, MemoryError, RecursionError) as e:
        raise refused("bad literal: " + _exc_reason(e))
    # Runners check that the line loads `set` once per empty set the plan holds (verdicts.ts
    # `emptySets`); a dict display whose repeated key drops a `set()` calls it all the same (round 41).
    if sum([1 for n in _A.walk(answer) if type(n) is _A.Call]) != _empty_sets(answer_value):
        raise refused("answer writes set() where a repeated dict key drops it")
    try:
        answer_text = canonical(answer_value)
    except _NotBuiltin as e:
        raise ValueError("literal " + str(e.args[0]))
    return args_text, answer_text, call_src, argv


def _empty_sets(v):
    """How many empty sets a literal's value holds (`set()` is the only call a literal writes)."""
    t = type(v)
    if t is set and not v:
        return 1
    if t is dict:
        return sum([_empty_sets(x) for x in v.values()])
    if t in (list, tuple):
        return sum([_empty_sets(x) for x in v])
    return 0


def plan(request_json):
    """Judge: parse every suite and golden line of a request. No code runs. Returns
    {"s": [[line...]...], "g": [...]} with line = [validity, reason, args, answer, call_src, argv]
    (args and answer canonical, embedded; argv what runners call with: the args again, or for
    arguments holding a set display, `_display`; null when the line does not parse): validity
    "valid" or "invalid"; a repeat of an earlier line's call in its suite is invalid. A line that
    cannot be read for any reason is invalid, never an error of the whole plan. An invalid line whose
    call CPython still makes (a repeat, `_SideCall`) keeps its args and argv (its answer may be null):
    candidates make that call in its place in the suite, as CPython runs a suite. A refused line that
    may do in CPython what candidates do not (`_opaque`) ends with a seventh element, 1: the supervisor
    refuses the lines after it."""
    # A compile warning (an invalid escape in a test line's string) would run the warnings machinery's
    # Python code from inside a parse; nothing reads it. The judge's memory is put back before its
    # next unit, so a reference runs under CPython's default filters again.
    _ignore_warnings("ignore")
    req = _json.loads(request_json)
    max_lines = req["limits"]["max_lines"]
    entry_of = {t["id"]: t["entry_point"] for t in req["tasks"]}
    out = []
    for kind, key in (("s", "suites"), ("g", "golden")):
        groups = []
        for suite in req.get(key) or []:
            entry = entry_of[req["codes"][suite["code"]]["task"]]
            # Python ends a line at \n, \r\n and \r: so does a suite.
            texts = [ln for ln in suite["text"].replace("\r\n", "\n").replace("\r", "\n").split("\n") if ln.strip()]
            if kind == "s":  # a generated suite's first N lines; a golden suite whole (round 46)
                texts = texts[:max_lines]
            stmts = _parse_suite(texts) or [None] * len(texts)
            lines, seen = [], {}
            for n, text in enumerate(texts):
                try:
                    args, answer, call_src, argv = _parse_line(text, entry, stmts[n])
                except Exception as e:  # ValueError(reason); anything else is a line we cannot read
                    reason = str(e.args[0]) if type(e) in (ValueError, _SideCall) and e.args and type(e.args[0]) is str else "cannot read: " + _exc_reason(e)
                    side, node = "null,null,null,null", None
                    if type(e) is _SideCall and len(e.args[1]) + len(e.args[2]) <= min(PLAN_LINE_CHARS, PLAN_PER_CHAR * len(text) + PLAN_BASE):
                        side, node = e.args[1] + ",null,null," + e.args[2], getattr(e, "node", None)
                    try:
                        opaque = _opaque(text, stmts[n], node)
                    except Exception:
                        opaque = True
                    lines.append('["invalid",' + _dumps(reason) + "," + side + (",1]" if opaque else "]"))
                    continue
                body = "," + args + "," + answer + "," + _dumps(call_src) + "," + argv + "]"
                cap = min(PLAN_LINE_CHARS, PLAN_PER_CHAR * len(text) + PLAN_BASE)
                if len(body) > cap:  # a call CPython makes and candidates do not: opaque
                    lines.append('["invalid",' + _dumps("literals too large (%d characters of values, at most %d)" % (len(body), cap)) + ",null,null,null,null,1]")
                    continue
                # A call is its arguments as the runners rebuild them (argv): two set displays with one
                # iteration order may still differ in table layout, so differ in what a call sees.
                if argv in seen:
                    validity, reason = "invalid", "repeats the call of line %d" % (seen[argv] + 1)
                else:
                    seen[argv] = n
                    validity, reason = "valid", ""
                lines.append("[" + _dumps(validity) + "," + _dumps(reason) + body)
            groups.append("[" + ",".join(lines) + "]")
        out.append(_dumps(kind) + ":[" + ",".join(groups) + "]")
    return "{" + ",".join(out) + "}"


# ---------------------------------------------------------------------------------------------
# Running code: one load, then calls; the runner times each and interrupts it past its limit.

_RUN_TIME_COMPILERS = frozenset(["eval", "exec", "compile", "__import__", "breakpoint"])


def _compiles_at_run_time(tree):
    """The first of eval, exec, compile, __import__, breakpoint a reference's tree names (as a name or an
    attribute), or "": the judge runs references on test lines' arguments, and a reference that
    compiles one would run the line's text in the judge (a trusted process for the whole batch)."""
    for node in _A.walk(tree):
        name = node.id if type(node) is _A.Name else node.attr if type(node) is _A.Attribute else None
        if name in _RUN_TIME_COMPILERS:
            return name
    return ""


def load(source, entry_point):
    """A step of `_load`, a load error where it met a refusal anywhere (as `call`).
    A reload (runner `fresh`: a reference's, before each of its calls; a candidate's suites are
    units of their own since round 52) first drops the last namespace and collects it, discarding
    what its finalizers met (round 51: a full collection inside this load, triggered by the module
    body's allocations, charged a finalizer's refusal to this load)."""
    if _state.get("ns") is not None or _state.get("exec_builtins") is not None:
        _state["ns"] = _state["exec_builtins"] = None
        try:
            _state["collect"]()
        except BaseException:  # an interrupt past the load's time (the runner's verdict: timeout)
            del _REFUSED[:]
            return _outcome("load", "the last suite's garbage was not collected within the load's time")
        del _REFUSED[:]
    try:
        out = _load(source, entry_point)
    except BaseException:  # the harness's own reading of the outcome raised (an interrupt, say)
        _state["ns"] = None
        out = _outcome("load", "the grader could not read the load's outcome")
    if _REFUSED:
        _state["ns"] = None
        out = _outcome("load", _refusal())
        del _REFUSED[:]
    return out


def _load(source, entry_point):
    """Run a module body in a fresh namespace and keep the namespace and the entry point's name (a
    call looks the name up, as a test line does: a program may rebind it).
    -> ["ok", ""] | ["syntax", reason] | ["load", reason]"""
    _state["ns"] = None
    # A reload within a unit (runner `fresh`) runs the code object the unit's first load compiled:
    # compiling again after the unit's calls would build the module's folded constants (a set of
    # strs) after the calls' strs were interned, in another order than a program compiled first.
    # The memory restore between units clears this.
    code = _state.get("code") if _state.get("source") == source else None
    if code is None:
        judge = _state.get("role") == "judge"
        try:
            # A reference is parsed once: its tree is scanned (below), then compiled.
            tree = _A.parse(source) if judge else source
            code = compile(tree, "<string>", "exec")  # exec(program, ns)'s own filename (round 27)
        except SyntaxError as e:
            return _outcome("syntax", "syntax error: " + (e.msg if type(e.msg) is str else "?"))
        except BaseException as e:  # null bytes, a recursion in the compiler, an interrupt
            return _outcome("syntax", "cannot compile: " + _exc_reason(e))
        compiles = _compiles_at_run_time(tree) if judge else ""
        if compiles:
            return _outcome("load", "the reference calls %s: it would run a test line's text in the judge (tasks' references may not compile code at run time: a reference that reads text parses it itself)" % compiles)
        _state["source"], _state["code"] = source, code
    try:
        ns = _fresh_namespace()
        _state["exec_builtins"] = ns["__builtins__"]
        _deeper(_state["pad"][0], exec, (code, ns))
        fn = _lookup(ns, entry_point)
        if fn is None or fn is _MISSING or not callable(fn):
            return _outcome("load", "does not define a function %s" % entry_point)
    except _OddNamespace as e:
        return _outcome("load", e.args[0])
    except BaseException as e:  # SystemExit, KeyboardInterrupt and friends are verdicts here
        return _outcome("load", "raised " + _exc_reason(e))  # a refusal's reason by `load`
    _state["ns"] = ns
    _state["entry"] = entry_point
    return '["ok",""]'


def _refusal():
    """Why a step that met a refusal (`_REFUSED`) is not graded as CPython would."""
    what = _REFUSED[0][:_REASON_CHARS] if type(_REFUSED[0]) is str else "?"
    return "blocked by the grader sandbox: %s (CPython would have gone on; the program's outcome is not CPython's)" % (what,)


def _deeper(frames, fn, args):
    """fn(*args), called `frames` Python frames deeper (each counts against the recursion limit)."""
    if frames > 0:
        return _deeper(frames - 1, fn, args)
    return fn(*args)


def _boxed_call(box):
    """A '<string>' code `BOX[0](*BOX[1])` whose BOX is a constant (its LOAD_NAMEs made LOAD_CONSTs):
    the callee and the arguments come from `box`, no name from the frame's namespaces."""
    import opcode
    code = compile("BOX[0](*BOX[1])", "<string>", "eval")
    load_name, load_const, k = opcode.opmap["LOAD_NAME"], opcode.opmap["LOAD_CONST"], len(code.co_consts)
    raw = bytearray(code.co_code)
    for i in range(0, len(raw), 2):
        if raw[i] == load_name and raw[i + 1] == 0:
            raw[i], raw[i + 1] = load_const, k
    return code.replace(co_code=bytes(raw), co_consts=code.co_consts + (box,), co_names=())


# The frame a test line calls the entry point from, as exec(line, ns) makes it: a module frame whose
# globals AND locals are the program's namespace, its code '<string>' line 1: `warnings.warn(...,
# stacklevel=2)` files a warning there (the registry in the program's globals, the filename
# '<string>'; round 39), and an entry point that reads its caller's names (`eval`, `exec`, `dir`)
# reads and binds the program's (round 40). The call's callee and arguments wait in the box.
_LINE_BOX = [None, None]
_LINE_CALL = _boxed_call(_LINE_BOX)

_pack = _tiny_function("def pack(*args):\n    return args\n", "pack", {})


def _args_source(source):
    """The argument tuple written as `(...)` Python source, by a TRUSTED caller of a sandbox unit (an
    imported task's drawn inputs, src/core/arena/arenise-sandbox.ts; runUnit). Evaluated in the
    sandbox only, which is restored after the unit: test lines never arrive as source (plan gives
    canonical values), and the judge refuses it."""
    if _state.get("role") != "sandbox":
        raise ValueError("argument source is only taken by the sandbox")
    return eval(compile("pack" + source, "<args>", "eval"), {"__builtins__": {"set": set}, "pack": _pack})


_SET = set
_MISSING = object()


class _OddNamespace(Exception):
    """A namespace holding a key that is not an exact str: looking a name up in it runs that key's
    `__eq__` (program code) as many times as the harness looks, not as many as CPython's line does."""


def _lookup(d, name):
    """d[name] or _MISSING, WITHOUT a lookup: the items are walked and only exact str keys compared,
    so no key's own `__eq__` runs (with str keys alone, CPython's lookups run no program code either).
    Raises _OddNamespace where d holds another key."""
    found = _MISSING
    for k, v in d.items():
        if type(k) is not str:
            raise _OddNamespace("the program's namespace holds a key that is not a str (%s): looking a name up in it runs the program's code" % (_type_name(type(k)),))
        if k == name:
            found = v
    return found


def _set_rebound(ns):
    """Whether a test line's `set()` (the empty set literal, a call of the name `set`) would not call
    the builtin set in CPython, where the line runs in the program's namespace: the program binds a
    global `set`, or its builtins' (or the builtins module's) `set` is something else."""
    own = _lookup(ns, "set")
    if own is not _MISSING:
        return own is not _SET
    b = _lookup(ns, "__builtins__")
    return type(b) is not dict or _lookup(b, "set") is not _SET or _lookup(vars(_builtins_module), "set") is not _SET


_SET_REBOUND = _marked("error", "the program binds set, which this line calls (its set()): CPython would call the program's object; the grader does not")


def _name_loads(code):
    """The names a line's module code loads (LOAD_NAME), in the order it runs them: read from its
    bytecode by C operations only (a program may have changed the dis and opcode modules)."""
    load_name, extended = _state["ops"]
    raw, names, out, arg = code.co_code, code.co_names, [], 0
    for i in range(0, len(raw) - 1, 2):
        op, arg = raw[i], (arg << 8) | raw[i + 1]
        if op == extended:
            continue
        if op == load_name:
            out.append(names[arg])
        arg = 0
    return out


# The compile of a test line, made as exec(line, ns) makes it: from a frame whose builtins are the
# builtins module. CPython's parser folds a non-ASCII name with unicodedata.normalize, which it imports
# through the CURRENT frame's builtins' __import__ (PyImport_Import): a caller of exec whose builtins are
# the module, so a program that rebound `len.__self__.__import__` runs its hook there (or makes the
# compile raise). The harness's own frames look builtins up in their private copy (round 26). The real
# compile is a default argument: the function's globals hold nothing but the builtins module.
_LINE_COMPILE_NS = {"__builtins__": _builtins_module, "__name__": "_grader_line"}  # a module: real imports
exec("def compile_line(src, real=compile):\n    return real(src, '<string>', 'exec')  # exec(line)'s own filename\n", _LINE_COMPILE_NS)
_compile_line = _LINE_COMPILE_NS.pop("compile_line")


def _exec_builtins(ns):
    """What CPython's exec(line, ns) does before it compiles the line: a namespace without
    `__builtins__` gets the caller's builtins back (builtin_exec); here the dict the program was
    loaded with, the same object each time, as the runner's own builtins would be."""
    if _lookup(ns, "__builtins__") is _MISSING:
        ns["__builtins__"] = _state["exec_builtins"]


def call(args_text, literal):
    """A step of `_call`, marked where it met a refusal (`_REFUSED`) anywhere: in the call, in the
    line's compile, in a finalizer run as the arguments, the value or the line's code are released
    (round 31), or since the last step's end (a collection between two steps). One check, after
    every bit of program code the step can run, whatever escaped `_call` (round 32); the mark is
    cleared as it is read."""
    try:
        out = _call(args_text, literal)
    except BaseException:  # the harness's own reading of the outcome raised: its state is unknown
        out = _marked("error", "the grader could not read the call's outcome")
    if _REFUSED:
        out = _marked("error", _refusal())
        del _REFUSED[:]
    return out


def _call(args_text, literal):
    """Call the loaded entry point on fresh arguments, and return its outcome as JSON text.
    args_text is a test line's call, ["L", its text, the arguments (canonical), how many set() it
    writes]; a refused line the candidate only compiles, ["C", its text]
    (-> ["ok", ""], or an error nothing reads); or bare arguments: canonical, or a trusted caller's
    source (`_args_source`).
    -> ["ok", canonical value (embedded), literal or ""] | ["error", reason] | ["fail", reason]
    (a value that is not a builtin one, or too large); a third element 1 where the program's state
    may now differ from CPython's (`_marked`). With literal true (references: the corrected line),
    also the value's Python literal (`_lit`: it parses back to the same value)."""
    try:
        argv = _scan_json(args_text, 0)[0]
        _folded.clear()
        ns, entry = _state["ns"], _state["entry"]
        uses_set, code = False, None
        if type(argv) is list and len(argv) == 2 and argv[0] == "C":
            # A line candidates do not call (it calls nothing of the program's: verdicts.ts `inPlace`):
            # CPython still execs it, so puts __builtins__ back and compiles it in the program's
            # interpreter (a SyntaxWarning runs the program's warning hooks). A line that does not
            # compile raises there, and CPython goes on to the next.
            _exec_builtins(ns)
            code = _compile_line(argv[1])
            return '["ok",""]'
        if type(argv) is list and len(argv) == 4 and argv[0] == "L":
            _, src, argv, sets = argv
            sets = sets if type(sets) is int else -1
            uses_set = sets > 0
            _exec_builtins(ns)
            # CPython compiles the line in the program's interpreter before running it, in whatever
            # state the program left (the int digit limit, warning filters, the unicodedata module the
            # parser folds names with): so does this, and the line is graded only where it compiles
            # to a call of the names the judge read. The compile interns the line's constants (its
            # answer's strs too) when it makes the code object, after the parser's warnings, as
            # CPython's; the code is kept alive for the call, as CPython's.
            try:
                code = _compile_line(src)
            except BaseException as e:  # CPython would not run the line either: it does not hold
                return _outcome("error", "the line does not compile in the program's interpreter: " + _exc_reason(e))
            # The judge read `ENTRY(args) == answer` with `set()` its only other name: the code must
            # load the entry point first and then `set` only, one load per name the judge read (a
            # name folded to `__debug__` compiles to a constant, not a load). Only the names can
            # differ from the judge's reading (the program's unicodedata.normalize folds a line's
            # non-ASCII names in CPython's parser), so the names in order are the check.
            names, loads = code.co_names, _name_loads(code)
            if any([n != entry and n != "set" for n in names]) or len(loads) != 1 + sets or loads[0] != entry or any([n != "set" for n in loads[1:]]):
                return _marked("error", "the line compiles to other names in the program's interpreter than the judge read: " + ", ".join([n for n in loads if type(n) is str][:8]))
        if uses_set and _set_rebound(ns):
            return _SET_REBOUND
        args = _args_source(argv) if type(argv) is str else _from_canon(argv)
        _folded.clear()
        fn = _lookup(ns, entry)
        if fn is _MISSING:
            # CPython's LOAD_NAME goes on to the builtins, where a program may have put its function:
            # not followed, so marked (round 25).
            return _marked("error", "raised NameError: name %r is not defined in the program's namespace" % entry)
        if _lookup(ns, "__builtins__") is _MISSING:  # exec(line, ns) puts its caller's builtins there
            ns["__builtins__"] = vars(_builtins_module)
        _LINE_BOX[0], _LINE_BOX[1] = fn, args
        pad = _state["pad"][1]  # the line's frame is the last of the pad's frames
        try:
            value = _deeper(pad - 1, eval, (_LINE_CALL, ns)) if pad > 0 else eval(_LINE_CALL, ns)
        finally:
            _LINE_BOX[0] = _LINE_BOX[1] = None
        # CPython releases the call's arguments before it compares (a program's __del__ on something
        # it put in them runs first): so does this, before reading the value.
        args = fn = None
        if uses_set and _set_rebound(ns):
            return _SET_REBOUND
        try:
            text = canonical(value)
        except _NotBuiltin as e:
            if not _inert(value):
                raise
            # A builtin value no literal writes (b'x', 1j, range(0): round 43) or past what the
            # canonical form reads ([0] * 30000, a list 150 deep: round 49): a wrong answer like any
            # other, whose comparison and release run nothing of the program's.
            why = "it holds a %s object" % (e.args[1],) if type(e) is _ProgramObject else str(e.args[0])
            return _outcome("fail", "returned a value with no literal form: " + why)
    except _OddNamespace as e:  # the line's lookup is not CPython's
        return _marked("error", e.args[0])
    except _NotBuiltin as e:
        # A value not read in full (a program's object in it, or past the size or depth canonical
        # reads): CPython's comparison would go on through the rest of it (a refused line's `in`
        # compares every item), which may hold a program's object: marked, as the state after it.
        return _marked("fail", "returned a non-builtin value: " + str(e.args[0]))
    except BaseException as e:  # SystemExit, KeyboardInterrupt and friends are verdicts here
        return _outcome("error", "raised " + _exc_reason(e))  # marked by `call` where it met a refusal
    lit = ""
    if literal:
        try:
            lit = _lit(value)
        except BaseException as e:
            return _outcome("error", "output has no literal form: " + _exc_reason(e))
        # The corrected line `assert CALL == LITERAL` is a test the judge must read back (the Mistake
        # Book replays it): a literal past the line limit, or nested deeper than a line may be, is none
        # (round 44). Its nesting is the line's: the call's brackets close before `==`, which ends a
        # run of prefix operators. verdicts.ts `judgeLine` checks the whole line's length.
        if len(lit) > MAX_LINE_CHARS or _too_deep(lit):
            return _outcome("error", "output has no literal form: it does not fit a test line (at most %d characters, %d levels of nesting)" % (MAX_LINE_CHARS, MAX_NESTING))
    return '["ok",' + text + "," + _encode_str(lit) + "]"
