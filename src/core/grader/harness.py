"""Code-A1 grading harness: judges untrusted candidate code against assert-line test suites.

Loaded as text and exec'd into a private namespace (never __main__), in Pyodide inside the grader
worker and in native CPython >= 3.11 for the benchmark. Entry points: `setup()` once per
interpreter, then `grade(...)` once per batch; a whole batch is ONE Python call.

Semantics: ../shared/spec/code-a1.md, "What a test is and how it is judged", and issue 2.
Work is numbered in steps (a reference or candidate load, one reference or candidate call per
line); numbering depends only on the request text, so a supervisor that had to kill the
interpreter can rerun the batch with the culprit step forced to a verdict (`forced`) and resume
at the culprit's code (`start_code`). Before each step the harness writes `step * 2 + is_load`
to ctl[0]; the supervisor's watchdog interrupts (KeyboardInterrupt) a step that outlives its
limit, writing the step number to ctl[2] first, and terminates the interpreter if that fails.

Float rule (`_same`): two floats are equal when both are NaN, or when
abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) (relative 1e-9, absolute 1e-9 near zero); inside set
elements and dict keys floats compare exactly (-0.0 == 0.0). int and float never compare equal
to each other (1 != 1.0), nor bool to int: types are kept.
"""

import ast as _ast_module
import builtins as _builtins_module
import json as _json_module
import sys as _sys
import time as _time

# 0. Private builtins: the harness resolves names through this copy, so a candidate that patches
# the real `builtins` module (reachable from any builtin function's __self__) cannot change what
# `type`, `len` or `isinstance` mean here. Functions defined below capture it at definition time.
_PRISTINE_BUILTINS = dict(vars(_builtins_module))
globals()["__builtins__"] = dict(_PRISTINE_BUILTINS)

# Modules a candidate may import (each import hands out a fresh copy of the module's public names).
ALLOWED_IMPORTS = ("math", "itertools", "functools", "collections", "heapq", "bisect", "string", "operator", "re")
# Builtins a candidate does not get: I/O, interactive helpers, the real import machinery.
_DENIED_BUILTINS = ("open", "input", "breakpoint", "exit", "quit", "help", "license", "credits", "copyright", "__loader__", "__spec__")
# Audit events a candidate may trigger; everything else is refused (default deny).
_ALLOWED_EVENTS = frozenset(("exec", "compile", "builtins.id", "re.compile"))

_MAX_DEPTH = 100          # canonical form: deeper nesting is a non-builtin result
_REASON_CHARS = 160       # reasons are one short line
_FLOAT_TOL = 1e-9

import gc as _gc
import os as _os

_perf = _time.perf_counter
_gc_collect = _gc.collect
_gc_get_count = _gc.get_count
_parse_flags = _ast_module.PyCF_ONLY_AST
_A = _ast_module
_loads = _json_module.JSONDecoder().decode
_ModuleType = type(_sys)
_MappingProxy = type(type.__dict__)
_Record = type(_sys.implementation)  # types.SimpleNamespace: a builtin type no candidate can patch

_state = {"ready": False}


# Functions a candidate can reach (its __import__, the refusals planted in os/posix and on
# JsException) are built by exec in tiny namespaces of their own, never defined here: a function's
# __globals__ is readable without any audit event, and these must not lead back to the harness.
# Likewise the harness defines no classes with methods, and marks its own exceptions with a
# private object instead of private exception classes (which __subclasses__ would expose).
_REFUSED_SRC = "def refused(*args, **kwargs):\n    raise RuntimeError('blocked by the grader sandbox')\n"
_IMPORT_SRC = (
    "def __import__(name, globals=None, locals=None, fromlist=(), level=0):\n"
    "    if level != 0 or type(name) is not str or name not in PUBLIC:\n"
    "        raise ImportError('import of %r is not allowed in the grader sandbox' % (name,))\n"
    "    module = ModuleType(name)\n"
    "    vars(module).update(PUBLIC[name])\n"
    "    return module\n"
)
_MARK = object()  # first arg of the harness's own TypeErrors (non-builtin results)


def _tiny_function(src, name, env):
    ns = {"__builtins__": {k: _PRISTINE_BUILTINS[k] for k in ("RuntimeError", "ImportError", "type", "str", "vars")}}
    ns.update(env)
    exec(src, ns)
    return ns[name]


def setup():
    """Prepare the interpreter once: imports, snapshots, audit hook, JS bridges out of reach."""
    if _state["ready"]:
        return
    import collections, functools, heapq, bisect, itertools, math, operator, re, string  # noqa: F401
    mods = _sys.modules
    public = {}
    for name in ALLOWED_IMPORTS:
        m = mods[name]
        public[name] = {k: v for k, v in vars(m).items() if not k.startswith("_") or k in ("__name__", "__doc__")}
    _state["public"] = _MappingProxy({k: _MappingProxy(v) for k, v in public.items()})
    _state["import_code"] = compile(_IMPORT_SRC, "<sandbox-import>", "exec")
    refused = _tiny_function(_REFUSED_SRC, "refused", {})
    _state["refused"] = refused
    # A raised recursion limit lets a recursion overflow the wasm stack, which kills Pyodide
    # (sometimes slowly): candidates keep the default limit, and get RecursionError.
    _state["setrecursionlimit"] = _sys.setrecursionlimit
    vars(_sys)["setrecursionlimit"] = refused
    # Process-level kill switches that raise no audit event: replace them, in os and posix alike.
    for m in (mods.get("os"), mods.get("posix")):
        for name in _OS_DENIED:
            if m is not None and name in vars(m):
                vars(m)[name] = refused
    # Module dicts restored after every candidate: the builtins module, the allowed modules, and the
    # Python-level modules the harness itself calls into (json decoding, ast).
    guarded = ["builtins", "json", "json.decoder", "json.scanner", "ast", "gc", "os", "posix"] + list(ALLOWED_IMPORTS)
    _state["restore"] = [(vars(mods[n]), dict(vars(mods[n]))) for n in guarded if n in mods]
    # Heap classes the harness reads attributes of; a candidate that patches one taints the
    # interpreter, which `grade` detects and refuses (the supervisor then starts a fresh one).
    classes = [getattr(_A, n) for n in ("Module", "Assert", "Compare", "Eq", "Call", "Name", "Constant", "List",
                                         "Tuple", "Set", "Dict", "UnaryOp", "USub", "UAdd", "Expression", "Load")]
    classes.append(_json_module.JSONDecoder)
    _state["classes"] = [(c, dict(vars(c))) for c in classes]
    _state["recursion"] = _sys.getrecursionlimit()
    _state["sink"] = open(_os.devnull, "w")  # C-level writes: floods cost time only
    _state["stdout"] = (_sys.stdout, _sys.stderr)
    _sys.stdout = _sys.stderr = _state["sink"]
    # Pyodide's bridges to JavaScript: drop the modules and the import finder that recreates them, so
    # `import js` has nothing to find even if the audit hook were bypassed.
    for name in list(mods):
        if name in ("js", "pyodide_js") or name.split(".")[0] in ("pyodide", "pyodide_js", "_pyodide", "_pyodide_core", "micropip"):
            del mods[name]
    _sys.meta_path[:] = [f for f in _sys.meta_path if "Js" not in type(f).__name__ and "Pyodide" not in type(f).__name__]
    # pyodide.ffi.JsException(name, message) builds a real JS Error, and from any JS object
    # `.constructor.constructor` is JavaScript's Function: no candidate may construct one.
    for cls in _all_classes():
        if cls.__name__ == "JsException":
            type.__setattr__(cls, "__new__", staticmethod(refused))
    # Automatic collection could run a candidate's __del__ in the middle of harness code; the
    # cleanup step after each candidate collects instead.
    _gc.disable()
    _sys.addaudithook(_audit)
    _state["ready"] = True


def _audit(event, args):
    # Once installed a hook cannot be removed; after setup the harness itself only compiles and execs.
    if event in _ALLOWED_EVENTS:
        return
    raise RuntimeError("blocked by the grader sandbox: " + event)


_OS_DENIED = ("_exit", "abort", "kill", "killpg", "system", "fork", "forkpty", "popen", "execv", "execve",
              "spawnv", "spawnve", "posix_spawn", "posix_spawnp", "register_at_fork")


def _all_classes():
    seen, todo = set(), [object]
    while todo:
        for sub in type.__subclasses__(todo.pop()):
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return seen


def _fresh_namespace():
    b = dict(_PRISTINE_BUILTINS)
    for k in _DENIED_BUILTINS:
        b.pop(k, None)
    # A fresh import function per candidate: what one candidate does to its globals stays its own.
    env = {"__builtins__": {"ImportError": ImportError, "type": type, "str": str, "vars": vars},
           "PUBLIC": _state["public"], "ModuleType": _ModuleType}
    exec(_state["import_code"], env)
    b["__import__"] = env["__import__"]
    return {"__builtins__": b, "__name__": "__candidate__"}


def _restore_world():
    for live, snap in _state["restore"]:
        live.clear()  # C-level clear + update beats comparing entry by entry
        live.update(snap)
    _sys.stdout = _sys.stderr = _state["sink"]
    _state["setrecursionlimit"](_state["recursion"])
    vars(_sys)["setrecursionlimit"] = _state["refused"]
    _gc.disable()


def _tainted():
    for cls, snap in _state["classes"]:
        live = dict(vars(cls))
        if len(live) != len(snap) or any(live.get(k) is not v for k, v in snap.items()):
            return cls.__name__
    return None


# ---------------------------------------------------------------------------------------------
# Canonical form: builtin values only, types kept, never calling candidate methods (exact `type()`
# checks, no isinstance, no __eq__/__hash__ of candidate objects).

def _canon(v, depth=0):
    t = type(v)
    if t is int or t is str or t is bool or v is None:
        return (t, v)
    if t is float:
        return (float, 0.0 if v == 0.0 else v)  # -0.0 -> 0.0
    if depth > _MAX_DEPTH:
        raise TypeError(_MARK, "nested deeper than %d" % _MAX_DEPTH)
    d = depth + 1
    if t is list or t is tuple:
        return (t, tuple([_canon(x, d) for x in v]))
    if t is set or t is frozenset:
        return (t, frozenset([_canon(x, d) for x in v]))
    if t is dict:
        return (dict, frozenset([(_canon(k, d), _canon(x, d)) for k, x in v.items()]))
    raise TypeError(_MARK, "%s is not a builtin value" % (t.__name__,))


def _same(a, b):
    """Equality of canonical forms with the float rule (module doc)."""
    if a == b:
        return True
    ta, tb = a[0], b[0]
    if ta is not tb:
        return False
    if ta is float:
        x, y = a[1], b[1]
        if x != x and y != y:
            return True
        return abs(x - y) <= _FLOAT_TOL * max(1.0, abs(x), abs(y))
    if ta is list or ta is tuple:
        xs, ys = a[1], b[1]
        return len(xs) == len(ys) and all(_same(x, y) for x, y in zip(xs, ys))
    if ta is dict:
        xs, ys = dict(a[1]), dict(b[1])
        return xs.keys() == ys.keys() and all(_same(xs[k], ys[k]) for k in xs)
    return False  # int, str, bool, None, set: exact (already compared)


def _show(c, budget=60):
    """Bounded repr of a canonical form, for reasons."""
    t, v = c
    if t is int:
        return repr(v) if -10**40 < v < 10**40 else "<int of %d bits>" % v.bit_length()
    if t is str:
        return repr(v) if len(v) <= budget else repr(v[:budget]) + "..."
    if t in (float, bool) or v is None:
        return repr(v)
    items = sorted(v, key=repr)[:8] if t in (set, frozenset, dict) else v[:8]
    if t is dict:
        body = ", ".join(_show(k, 20) + ": " + _show(x, 20) for k, x in items)
    else:
        body = ", ".join(_show(x, 20) for x in items)
    more = ", ..." if len(v) > 8 else ""
    open_, close = {list: "[]", tuple: "()", set: "{}", frozenset: "{}", dict: "{}"}[t]
    return (open_ + body + more + close)[: budget * 2]


def _lit(c):
    """Exact Python literal of a canonical form, as repr prints it (sets and dicts in repr order).
    Used for reference outputs only, to write the reference-corrected line."""
    t, v = c
    if t in (int, str, float, bool) or v is None:
        return repr(v)
    if t is list:
        return "[" + ", ".join(_lit(x) for x in v) + "]"
    if t is tuple:
        return "(" + ", ".join(_lit(x) for x in v) + (",)" if len(v) == 1 else ")")
    if t in (set, frozenset):
        return "{" + ", ".join(sorted(_lit(x) for x in v)) + "}" if v else "set()"
    return "{" + ", ".join(sorted(_lit(k) + ": " + _lit(x) for k, x in v)) + "}"


def _exc_reason(e):
    t = type(e)
    name = t.__name__ if type(t.__name__) is str else "exception"
    args = e.args if type(e.args) is tuple else ()
    # Only builtin str/int arguments are shown: formatting a candidate object would run its code.
    if len(args) == 1 and type(args[0]) in (str, int):
        arg = args[0]
        text = arg if type(arg) is str else (str(arg) if -10**40 < arg < 10**40 else "<int>")
        return name + ": " + text
    return name


# ---------------------------------------------------------------------------------------------
# Test lines: `assert CALL == ANSWER`, CALL = entry_point(literal, ...), ANSWER a literal.

_LITERAL_TYPES = (int, float, str, bool, type(None))


def _literal(n):
    """Value of a literal node (ast.literal_eval without its Python-level helpers), or raise
    ValueError: constants, +/- numbers, list/tuple/set/dict displays of literals, set()."""
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
        return {_literal(x) for x in n.elts}
    elif t is _A.Dict:
        if None not in n.keys:  # {**x}
            return {_literal(k): _literal(v) for k, v in zip(n.keys, n.values)}
    elif t is _A.Call:  # set(): the only way to write an empty set
        if type(n.func) is _A.Name and n.func.id == "set" and not n.args and not n.keywords:
            return set()
    raise ValueError("not a literal")


def _fresh(c):
    """A new value from a canonical form: every call gets arguments nobody has mutated."""
    t, v = c
    if t is list:
        return [_fresh(x) for x in v]
    if t is tuple:
        return tuple([_fresh(x) for x in v])
    if t is set or t is frozenset:
        return t([_fresh(x) for x in v])
    if t is dict:
        return {_fresh(k): _fresh(x) for k, x in v}
    return v


def _parse_suite(lines):
    """One compile for a whole suite (a compile call costs more than its few tokens): the list of
    statements, one per line, or None when that does not hold and lines must be parsed alone."""
    try:
        body = compile("\n".join(lines), "<suite>", "exec", _parse_flags).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(body) != len(lines):
        return None
    for i, stmt in enumerate(body):
        if stmt.lineno != i + 1 or stmt.end_lineno != i + 1:
            return None
    return body


def _parse_line(text, entry_point, stmt=None):
    """-> (canonical args, the same again, canonical answer, call source) or raise ValueError(reason).
    (Two slots for the arguments: args_code, kept for its readers, and args, the dedupe key.)
    stmt: the line's statement when _parse_suite already parsed it."""
    if stmt is not None:
        body = [stmt]
    else:
        try:
            body = compile(text, "<test>", "exec", _parse_flags).body
        except SyntaxError as e:
            raise ValueError("syntax error: " + (e.msg if type(e.msg) is str else "?"))
        except (ValueError, MemoryError, RecursionError) as e:
            raise ValueError("cannot parse: " + type(e).__name__)
    if len(body) != 1 or type(body[0]) is not _A.Assert:
        raise ValueError("not a single assert statement")
    a = body[0]
    if a.msg is not None:
        raise ValueError("assert with a message")
    cmp = a.test
    if type(cmp) is not _A.Compare or len(cmp.ops) != 1 or type(cmp.ops[0]) is not _A.Eq:
        raise ValueError("not of the form CALL == ANSWER")
    call, answer = cmp.left, cmp.comparators[0]
    if type(call) is not _A.Call or type(call.func) is not _A.Name or call.func.id != entry_point:
        raise ValueError("left side is not a call of %s" % entry_point)
    if call.keywords:
        raise ValueError("keyword arguments are not allowed")
    try:
        args_value = tuple([_literal(x) for x in call.args])
    except ValueError:
        raise ValueError("arguments are not literals")
    except (TypeError, MemoryError, RecursionError) as e:  # e.g. {[1]}: unhashable
        raise ValueError("bad literal: " + _exc_reason(e))
    try:
        answer_value = _literal(answer)
    except ValueError:
        raise ValueError("answer is not a literal")
    except (TypeError, MemoryError, RecursionError) as e:
        raise ValueError("bad literal: " + _exc_reason(e))
    call_src = text[call.col_offset:call.end_col_offset] if call.lineno == call.end_lineno else None
    args = _canon(args_value)
    return args, args, _canon(answer_value), call_src


# ---------------------------------------------------------------------------------------------
# Results leave as JSON text built here (the json module's encoder is Python-level state a
# candidate could patch; str.translate is not).

_ESCAPES = {i: "\\u%04x" % i for i in list(range(32)) + list(range(0xD800, 0xE000))}
_ESCAPES[ord('"')] = '\\"'
_ESCAPES[ord("\\")] = "\\\\"


def _q(s):
    return '"' + s[:_REASON_CHARS].translate(_ESCAPES) + '"'


def _line_json(validity, reason, verdict, corrected=""):
    return "[" + _q(validity) + "," + _q(reason) + "," + _q(verdict) + ',"' + corrected.translate(_ESCAPES) + '"]'  # not truncated


def _split_lines(text, max_lines):
    lines = [ln for ln in text.split("\n") if ln.strip()]
    return lines[:max_lines]


def _run_step(ctl, forced, step, is_load, limit_s, fn, arg):
    """Run fn(arg) as step `step` -> (outcome, value): ("ok", result) or (outcome, reason) with
    outcome "error", "syntax", "load", "nonbuiltin", "timeout" or "crash". The candidate's
    exception is reduced to text inside the except clause, so no candidate object (or its
    traceback) outlives the step and runs a __del__ later in harness code."""
    f = forced.get(step)
    if f is not None:
        return f, ("killed after exceeding the time limit" if f == "timeout" else "the sandbox crashed (e.g. stack overflow)")
    ctl[0] = step * 2 + is_load
    t0 = _perf()
    interrupted = False
    try:
        value, outcome = fn(arg), "ok"
    except BaseException as e:  # SystemExit, KeyboardInterrupt and friends are verdicts here
        args = e.args if type(e.args) is tuple else ()
        if type(e) is TypeError and len(args) == 2 and args[0] is _MARK:
            value, outcome = "returned a non-builtin value: " + args[1], "nonbuiltin"
        else:
            interrupted = type(e) is KeyboardInterrupt
            value, outcome = "raised " + _exc_reason(e), "error"
    elapsed = _perf() - t0
    if elapsed > limit_s or (interrupted and ctl[2] == step):
        return "timeout", "exceeded %d ms" % round(limit_s * 1000)
    return outcome, value


def _loader(entry, holder):
    """Step body: compile and run a module body in a fresh namespace, keep [ns, fn] in holder.
    Returns ("ok", fn), ("syntax", reason) or ("load", reason); exceptions are load errors."""
    def load(source):
        try:
            code = compile(source, "<candidate>", "exec")
        except SyntaxError as e:
            return "syntax", "syntax error: " + (e.msg if type(e.msg) is str else "?")
        except ValueError as e:  # e.g. null bytes
            return "syntax", "cannot compile: " + _exc_reason(e)
        ns = _fresh_namespace()
        holder.append(ns)
        exec(code, ns)
        fn = ns.get(entry)
        if fn is None or not callable(fn):
            return "load", "does not define a function %s" % entry
        holder.append(fn)
        return "ok", fn
    return load


def _caller(fn):
    def call(args):
        return _canon(fn(*[_fresh(a) for a in args[1]]))
    return call


def _cleanup(holder):
    """Step body after a candidate's last line: undo its changes to shared modules, free its
    objects (their __del__ runs here, inside its own time limit) and collect its cycles."""
    _restore_world()
    for ns in holder:
        if type(ns) is dict:
            ns.clear()  # the namespace and its function form a cycle; clearing it frees most objects now
    holder.clear()
    # Collect the young generation when enough has piled up, as automatic collection would (a
    # full collection per candidate costs more than grading it). Garbage one candidate left may
    # then meet its __del__ in a later candidate's cleanup: a cleanup never changes verdicts.
    if _gc_get_count()[0] > 2000:
        _gc_collect(0)


def grade(request_json, start_code, forced_json, ctl, report):
    """Run _grade; return "" on success or a one-line error. Exceptions must not escape: turning a
    traceback into text reads source files, which the audit hook refuses."""
    try:
        _grade(request_json, start_code, forced_json, ctl, report)
        return ""
    except BaseException as e:
        tb, where = e.__traceback__, ""
        while tb is not None:
            where = " (harness.py line %d)" % tb.tb_lineno
            tb = tb.tb_next
        return "grader harness failed: " + _exc_reason(e) + where


def _grade(request_json, start_code, forced_json, ctl, report):
    """Grade one batch. Calls report(code_index, json_text) once per code from start_code on, in
    order; json_text is [status, reason, [[kind, suite_index, [[validity, reason, verdict, corrected]...]]...]]
    with kind "s" (generated suite) or "g" (golden). forced_json maps step numbers to "timeout" or
    "crash": steps a previous interpreter died on, not to be run again."""
    tainted = _tainted()
    if tainted is not None:
        raise RuntimeError("grader interpreter tainted: class %s was patched; start a fresh interpreter" % tainted)
    req = _loads(request_json)
    forced = {int(k): v for k, v in _loads(forced_json).items()}
    limits = req.get("limits") or {}
    test_s = limits.get("test_ms", 1000) / 1000.0
    load_s = limits.get("load_ms", 2000) / 1000.0
    max_lines = limits.get("max_lines", 8)
    tasks, codes = req["tasks"], req["codes"]
    task_by_id = {t["id"]: t for t in tasks}
    ctl[0] = -1

    # 1. Plan: parse every line and number every step from the request text alone.
    step = 0
    ref_load_step = {}
    for t in tasks:
        ref_load_step[t["id"]] = step
        step += 1
    groups = []  # (kind, suite index, code index, [line record])
    for kind, key in (("s", "suites"), ("g", "golden")):
        for i, suite in enumerate(req.get(key) or []):
            entry = task_by_id[codes[suite["code"]]["task"]]["entry_point"]
            lines, seen = [], {}
            texts = _split_lines(suite["text"], max_lines)
            stmts = _parse_suite(texts) or [None] * len(texts)
            for n, text in enumerate(texts):
                ln = _Record(validity="invalid", reason="", args_code=None, args=None, expected=None, ref_step=-1, run_step=-1)
                lines.append(ln)
                try:
                    ln.args_code, ln.args, ln.expected, ln.call_src = _parse_line(text, entry, stmts[n])
                except ValueError as e:
                    ln.reason = str(e.args[0]) if e.args else "malformed"
                    continue
                except TypeError as e:  # a literal that is not a builtin value (_MARK, reason)
                    ln.reason = "not a builtin value: " + str(e.args[-1])
                    continue
                if kind == "s":
                    ln.ref_step = step
                    step += 1
                if ln.args in seen:
                    ln.reason = "repeats the call of line %d" % (seen[ln.args] + 1)
                else:
                    seen[ln.args] = n
                    ln.validity = "valid"
            groups.append((kind, i, suite["code"], lines))
    by_code = [[] for _ in codes]
    for g in groups:
        by_code[g[2]].append(g)
    code_steps = []  # (load step, cleanup step)
    for c in range(len(codes)):
        load_step = step
        step += 1
        for g in by_code[c]:
            for ln in g[3]:
                if ln.args_code is not None:
                    ln.run_step = step
                    step += 1
        code_steps.append((load_step, step))
        step += 1
    ctl[3] = step

    # 2. References first, before any candidate runs: expected outputs of every generated line.
    ref_fn, ref_cache = {}, {}
    for kind, _, c, lines in groups:
        if kind != "s":
            continue
        task = task_by_id[codes[c]["task"]]
        tid = task["id"]
        for ln in lines:
            if ln.validity == "invalid":
                continue
            if tid not in ref_fn:
                out, val = _run_step(ctl, forced, ref_load_step[tid], 1, load_s, _loader(task["entry_point"], []), task["reference"])
                if out == "ok":
                    out, val = val
                ref_fn[tid] = (out, val if out == "ok" else "reference failed to load: " + val)
            out, fn = ref_fn[tid]
            if out != "ok":
                ln.validity, ln.reason = "invalid", fn
                continue
            key = (tid, ln.args)
            if key not in ref_cache:
                ref_cache[key] = _run_step(ctl, forced, ln.ref_step, 0, test_s, _caller(fn), ln.args_code)
            out, ref = ref_cache[key]
            if out != "ok":
                ln.validity, ln.reason = "invalid", "reference " + ref
            elif not _same(ln.expected, ref):
                ln.validity = "wrong-answer"
                ln.reason = "answer %s, reference output %s" % (_show(ln.expected, 30), _show(ref, 30))
                ln.expected = ref
    ref_fn = ref_cache = fn = None

    # 3. Candidates, each in a fresh namespace, with the world restored after each. ctl[0] keeps
    # the last step between steps, so harness work that a candidate's objects slow down is
    # charged to that candidate.
    for c in range(start_code, len(codes)):
        code = codes[c]
        entry = task_by_id[code["task"]]["entry_point"]
        load_step, cleanup_step = code_steps[c]
        holder = []
        out, reason = _run_step(ctl, forced, load_step, 1, load_s, _loader(entry, holder), code["code"])
        if out == "ok":
            out, reason = reason
        call = None
        if out == "ok":
            status, reason, call = "ok", "", _caller(reason)
        elif out == "syntax":
            status = "syntax-error"
        else:
            status = "timeout" if out == "timeout" else "load-error"
        parts = []
        for kind, i, _, lines in by_code[c]:
            texts = []
            for ln in lines:
                verdict, why = "skipped", ln.reason
                if call is not None and ln.validity != "invalid":
                    res, got = _run_step(ctl, forced, ln.run_step, 0, test_s, call, ln.args_code)
                    if res == "ok":
                        verdict = "pass" if _same(ln.expected, got) else "fail"
                        if verdict == "fail":
                            why = _join(why, "expected %s, got %s" % (_show(ln.expected, 30), _show(got, 30)))
                    else:
                        verdict = {"nonbuiltin": "fail", "timeout": "timeout"}.get(res, "error")
                        why = _join(why, got)
                    got = None
                corrected = ""
                if kind == "s" and ln.validity != "invalid" and ln.call_src is not None:
                    corrected = "assert " + ln.call_src + " == " + _lit(ln.expected)
                texts.append(_line_json(ln.validity, why, verdict, corrected))
            parts.append("[" + _q(kind) + "," + str(i) + ",[" + ",".join(texts) + "]]")
        call = None
        if _run_step(ctl, forced, cleanup_step, 1, load_s, _cleanup, holder)[0] != "ok":
            _leaked.append(holder)  # never freed: a hostile __del__ must not run again
        report(c, "[" + _q(status) + "," + _q(reason) + ",[" + ",".join(parts) + "]]")
    _restore_world()
    ctl[0] = -1


_leaked = []


def _join(a, b):
    return b if not a else a + "; " + b
