"""Imported references into arena-Python, by real parsing (Python's ast), for src/core/arena/importers/arenise.ts.

Run in Pyodide (or CPython 3.9+) through an injected runPython, never exec'd on its own input:
the reference is parsed, checked and rewritten as a tree, and only the TypeScript side runs it.

- `normalise(src, entry, types)`: the entry function of `src` with the entry point renamed `f`,
  its parameters renamed to the arena's parameter pool (by type) and its locals to the local pool
  (by role: counters to `count`, loop items to `v`/`c`/`w`, ...), a few meaning-preserving rewrites
  (docstring dropped, `xs.sort()` -> `xs = sorted(xs)`, `a = b = 0` split, unreachable statements
  dropped, unused imports and helpers dropped), printed in the canonical arena formatting. Returns
  {"ok": True, "code", "renames", "rewrites"} or {"ok": False, "line", "col", "what"} naming the
  construct (at its line and column in the original) that arena-Python cannot express.
- `variants(src, returns)`: mutants of a normalised reference: mutate.py's operators (its source is
  prepended to this one) plus semantic operators modelled on the arena-v2 slips (task-space.ts,
  task-aggregations.ts): wrong predicate method, skip first, missing empty guard, off-by-one return.
- `canonical(tree)`: ast.unparse, except a generator that is a call's sole argument keeps the
  call's parentheses (`sum(1 for v in xs)`, as arena-Python writes it).
"""
import ast
import copy

try:
    from _ast_unparse import Unparser as _UnparserBase, _Precedence  # Python 3.14
except ImportError:  # pragma: no cover - older CPython
    _UnparserBase = ast._Unparser
    _Precedence = ast._Precedence

ARENA_BUILTINS = {"len", "sum", "min", "max", "sorted", "set", "abs", "range", "enumerate", "zip", "any", "all",
                  "list", "str", "int", "reversed", "bool"}
EXPR_METHODS = {"lower", "upper", "strip", "split", "join", "count", "index", "find", "startswith", "endswith",
                "replace", "isdigit", "isalpha", "isupper", "islower", "isspace"}
STMT_METHODS = {"append", "add"}
PARAM_POOL = ["xs", "ys", "s", "t", "n", "m", "k", "x", "a", "b", "words"]
LOCAL_POOL = ["i", "j", "c", "w", "y", "acc", "res", "best", "count", "total", "prev", "cur", "seen", "out",
              "lo", "hi", "mid", "p", "q", "r", "v"]
PARAMS_BY_TYPE = {
    "list[int]": ["xs", "ys"],
    "list[str]": ["words", "xs", "ys"],
    "str": ["s", "t"],
    "int": ["n", "k", "m", "a", "b", "x"],
    "bool": ["a", "b", "x"],
}
# A local's role, from words in its name (first match wins), as arena references name them.
ROLES = [
    (("count", "cnt", "freq", "num_of", "occur"), "count"),
    (("sum", "total"), "total"),
    (("max", "min", "best", "larg", "small", "long", "short", "high", "low", "big"), "best"),
    (("res", "ans", "result", "output", "ret"), "res"),
    (("seen", "visit", "uniq"), "seen"),
    (("prev", "last"), "prev"),
    (("cur",), "cur"),
    (("acc",), "acc"),
    (("left", "start", "begin"), "lo"),
    (("right", "end", "stop"), "hi"),
    (("mid",), "mid"),
    (("char", "ch", "letter"), "c"),
    (("word",), "w"),
    (("idx", "index", "pos"), "i"),
    (("new", "lst", "list", "arr", "out"), "out"),
]
_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow)
_AUG = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
_CMPS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq, ast.In, ast.NotIn)
_OP_TEXT = {ast.Div: "division '/' (floats)", ast.MatMult: "operator '@'", ast.BitAnd: "operator '&'",
            ast.BitOr: "operator '|'", ast.BitXor: "operator '^'", ast.LShift: "operator '<<'",
            ast.RShift: "operator '>>'", ast.Invert: "operator '~'", ast.UAdd: "unary '+'",
            ast.Is: "comparison 'is'", ast.IsNot: "comparison 'is not'"}
_NODE_TEXT = {
    ast.Dict: "a dict display", ast.DictComp: "a dict comprehension", ast.Set: "a set display {...}",
    ast.SetComp: "a set comprehension", ast.Tuple: "a tuple", ast.Lambda: "a lambda", ast.JoinedStr: "an f-string",
    ast.NamedExpr: "an assignment expression ':='", ast.Starred: "unpacking '*'", ast.Await: "await",
    ast.Yield: "yield", ast.YieldFrom: "yield from", ast.Try: "try", ast.With: "with", ast.Raise: "raise",
    ast.Assert: "assert", ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Delete: "del",
    ast.FunctionDef: "a nested function", ast.AsyncFunctionDef: "a nested function", ast.ClassDef: "a class",
    ast.Import: "import", ast.ImportFrom: "import", ast.AnnAssign: "an annotated assignment",
    ast.Pass: "pass", ast.Match: "match",
}


class Refusal(Exception):
    def __init__(self, node, what):
        super().__init__(what)
        self.line = getattr(node, "lineno", 0)
        self.col = getattr(node, "col_offset", -1) + 1
        self.what = what


class _Canonical(_UnparserBase):
    def visit_Call(self, node):
        if len(node.args) == 1 and not node.keywords and type(node.args[0]) is ast.GeneratorExp:
            gen = node.args[0]
            self.set_precedence(_Precedence.ATOM, node.func)
            self.traverse(node.func)
            with self.delimit("(", ")"):
                self.traverse(gen.elt)
                for g in gen.generators:
                    self.traverse(g)
            return
        super().visit_Call(node)


def canonical(tree):
    return _Canonical().visit(ast.fix_missing_locations(tree))


def _printable(s):
    return all(" " <= ch <= "~" and ch not in "'\\" for ch in s)


def _is_docstring(stmt):
    return type(stmt) is ast.Expr and type(stmt.value) is ast.Constant and type(stmt.value.value) is str


def _names_in(node):
    return {n.id for n in ast.walk(node) if type(n) is ast.Name}


def _rewrite_block(body, rewrites):
    """Meaning-preserving statement rewrites in one block (recursively)."""
    out = []
    for st in body:
        for field in ("body", "orelse"):
            if isinstance(getattr(st, field, None), list) and getattr(st, field):
                setattr(st, field, _rewrite_block(getattr(st, field), rewrites))
        if type(st) is ast.Expr and type(st.value) is ast.Call and type(st.value.func) is ast.Attribute \
                and type(st.value.func.value) is ast.Name and not st.value.args:
            call, name = st.value, st.value.func.value.id
            if call.func.attr == "sort":
                new = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                                 value=ast.Call(func=ast.Name(id="sorted", ctx=ast.Load()),
                                                args=[ast.Name(id=name, ctx=ast.Load())], keywords=call.keywords))
                out.append(ast.copy_location(new, st))
                rewrites.append("line %d: %s.sort() -> %s = sorted(%s)" % (st.lineno, name, name, name))
                continue
            if call.func.attr == "reverse":
                new = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                                 value=ast.Subscript(value=ast.Name(id=name, ctx=ast.Load()),
                                                     slice=ast.Slice(step=ast.UnaryOp(op=ast.USub(), operand=ast.Constant(1))),
                                                     ctx=ast.Load()))
                out.append(ast.copy_location(new, st))
                rewrites.append("line %d: %s.reverse() -> %s = %s[::-1]" % (st.lineno, name, name, name))
                continue
        if type(st) is ast.Assign and len(st.targets) > 1 and type(st.value) is ast.Constant \
                and all(type(t) is ast.Name for t in st.targets):
            for t in st.targets:
                out.append(ast.copy_location(ast.Assign(targets=[t], value=copy.deepcopy(st.value)), st))
            rewrites.append("line %d: chained assignment split" % st.lineno)
            continue
        if type(st) is ast.Pass and len(body) > 1:
            rewrites.append("line %d: pass dropped" % st.lineno)
            continue
        out.append(st)
        if type(st) in (ast.Return, ast.Break, ast.Continue):
            if body.index(st) < len(body) - 1:
                rewrites.append("line %d: unreachable statements after it dropped" % st.lineno)
            break
    return out


def _check(fn):
    """Raises Refusal at the first construct arena-Python cannot express."""
    def expr(e, sole_arg=False):
        t = type(e)
        if t in _NODE_TEXT:
            raise Refusal(e, _NODE_TEXT[t])
        if t is ast.Constant:
            v = e.value
            if v is None or type(v) in (bool, int):
                return
            if type(v) is str:
                if not _printable(v):
                    raise Refusal(e, "a string literal with a quote, backslash or non-printable character")
                return
            raise Refusal(e, "a %s literal" % type(v).__name__)
        if t is ast.Name:
            return
        if t is ast.BinOp:
            if type(e.op) not in _ARITH:
                raise Refusal(e, _OP_TEXT.get(type(e.op), "operator %s" % type(e.op).__name__))
            expr(e.left); expr(e.right)
            return
        if t is ast.UnaryOp:
            if type(e.op) not in (ast.USub, ast.Not):
                raise Refusal(e, _OP_TEXT.get(type(e.op), "unary operator"))
            expr(e.operand)
            return
        if t is ast.BoolOp:
            for v in e.values:
                expr(v)
            return
        if t is ast.Compare:
            for op in e.ops:
                if type(op) not in _CMPS:
                    raise Refusal(e, _OP_TEXT.get(type(op), "comparison %s" % type(op).__name__))
            expr(e.left)
            for c in e.comparators:
                expr(c)
            return
        if t is ast.IfExp:
            expr(e.test); expr(e.body); expr(e.orelse)
            return
        if t in (ast.List,):
            for x in e.elts:
                expr(x)
            return
        if t in (ast.ListComp, ast.GeneratorExp):
            if t is ast.GeneratorExp and not sole_arg:
                raise Refusal(e, "a generator expression that is not a call's sole argument")
            for g in e.generators:
                target(g.target)
                if g.is_async:
                    raise Refusal(e, "async comprehension")
                expr(g.iter)
                for cond in g.ifs:
                    expr(cond)
            expr(e.elt)
            return
        if t is ast.Subscript:
            expr(e.value)
            s = e.slice
            if type(s) is ast.Slice:
                for part in (s.lower, s.upper, s.step):
                    if part is not None:
                        expr(part)
            else:
                expr(s)
            return
        if t is ast.Call:
            call(e)
            return
        if t is ast.Attribute:
            raise Refusal(e, "attribute '.%s' outside a method call" % e.attr)
        raise Refusal(e, "%s expression" % t.__name__)

    def call(e, statement=False):
        sole = len(e.args) == 1 and not e.keywords
        for a in e.args:
            expr(a, sole_arg=sole)
        for kw in e.keywords:
            if kw.arg == "key" and type(kw.value) is ast.Name and kw.value.id in ARENA_BUILTINS:
                continue
            if kw.arg == "reverse" and type(kw.value) is ast.Constant and type(kw.value.value) is bool:
                continue
            raise Refusal(kw.value if kw.arg else e, "keyword argument %s= (only key=BUILTIN and reverse=True/False)" % (kw.arg or "**"))
        f = e.func
        if type(f) is ast.Name:
            if f.id not in ARENA_BUILTINS:
                raise Refusal(e, "call of '%s' (arena builtins: %s)" % (f.id, " ".join(sorted(ARENA_BUILTINS))))
            return
        if type(f) is ast.Attribute:
            allowed = STMT_METHODS if statement else EXPR_METHODS
            if f.attr not in allowed:
                if type(f.value) is ast.Name and f.value.id not in bound:
                    raise Refusal(e, "module or global '%s' (%s.%s)" % (f.value.id, f.value.id, f.attr))
                raise Refusal(e, "method '.%s()'%s" % (f.attr, " as a statement" if statement else ""))
            if statement and type(f.value) is not ast.Name:
                raise Refusal(e, "'.%s()' on an expression (arena-Python: NAME.%s(E))" % (f.attr, f.attr))
            expr(f.value)
            return
        raise Refusal(e, "a call of a computed function")

    def target(tg, allow_pair=True):
        if type(tg) is ast.Name:
            return
        if type(tg) is ast.Tuple and allow_pair and len(tg.elts) == 2 and all(type(x) is ast.Name for x in tg.elts):
            return
        raise Refusal(tg, "a %s as a loop target (arena-Python: NAME or NAME, NAME)" % type(tg).__name__.lower())

    def stmts(body):
        for st in body:
            t = type(st)
            if t is ast.Return:
                if st.value is None:
                    raise Refusal(st, "a bare return (returns None)")
                expr(st.value)
            elif t is ast.Assign:
                if len(st.targets) != 1:
                    raise Refusal(st, "a chained assignment")
                tg = st.targets[0]
                if type(tg) is ast.Tuple:
                    raise Refusal(tg, "a tuple assignment (arena-Python assigns one name at a time)")
                if type(tg) is ast.Subscript:
                    if type(tg.value) is not ast.Name or type(tg.slice) is ast.Slice:
                        raise Refusal(tg, "an assignment to a slice or a nested subscript")
                    expr(tg.slice)
                elif type(tg) is not ast.Name:
                    raise Refusal(tg, "an assignment to a %s" % type(tg).__name__.lower())
                expr(st.value)
            elif t is ast.AugAssign:
                if type(st.target) is not ast.Name:
                    raise Refusal(st, "an augmented assignment to a %s" % type(st.target).__name__.lower())
                if type(st.op) not in _AUG:
                    raise Refusal(st, "augmented operator %s= " % type(st.op).__name__)
                expr(st.value)
            elif t is ast.If:
                expr(st.test); stmts(st.body); stmts(st.orelse)
            elif t in (ast.For, ast.While):
                if st.orelse:
                    raise Refusal(st, "%s ... else" % ("for" if t is ast.For else "while"))
                if t is ast.For:
                    target(st.target)
                    expr(st.iter)
                else:
                    expr(st.test)
                stmts(st.body)
            elif t in (ast.Break, ast.Continue):
                pass
            elif t is ast.Expr:
                if type(st.value) is ast.Call and type(st.value.func) is ast.Attribute:
                    call(st.value, statement=True)
                else:
                    raise Refusal(st, "an expression statement (only NAME.append(E) and NAME.add(E) stand alone)")
            elif t is ast.AsyncFor:
                raise Refusal(st, "async for")
            else:
                raise Refusal(st, _NODE_TEXT.get(t, "statement %s" % t.__name__))

    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        raise Refusal(fn, "*args, **kwargs or keyword-only parameters")
    if a.defaults:
        raise Refusal(a.defaults[0], "a default parameter value")
    if fn.decorator_list:
        raise Refusal(fn.decorator_list[0], "a decorator")
    bound = _bound_names(fn)
    stmts(fn.body)
    if not any(type(n) is ast.Return for n in ast.walk(fn)):
        raise Refusal(fn, "no return statement")
    for n in ast.walk(fn):
        if type(n) is ast.Name and type(n.ctx) is ast.Load and n.id not in bound \
                and n.id not in ARENA_BUILTINS and n.id not in ("True", "False", "None"):
            if n.id == fn.name:
                raise Refusal(n, "a recursive call of '%s' (arena programs have no calls of their own)" % n.id)
            raise Refusal(n, "name '%s' not defined in the function (a global, module or helper)" % n.id)


def _bound_names(fn):
    out = [a.arg for a in fn.args.args]
    for n in ast.walk(fn):
        if type(n) is ast.Name and type(n.ctx) is ast.Store and n.id not in out:
            out.append(n.id)
    return out


def _role(name):
    low = name.lower()
    for words, role in ROLES:
        if any(w in low for w in words):
            return role
    return None


def _loop_kinds(fn, param_types):
    """For a name used as a loop target: what it iterates ('range', a type, or None)."""
    kinds = {}
    for n in ast.walk(fn):
        gens = []
        if type(n) is ast.For:
            gens.append((n.target, n.iter))
        if type(n) in (ast.ListComp, ast.GeneratorExp):
            gens.extend((g.target, g.iter) for g in n.generators)
        for tg, it in gens:
            if type(tg) is not ast.Name:
                continue
            kind = None
            if type(it) is ast.Call and type(it.func) is ast.Name and it.func.id == "range":
                kind = "range"
            elif type(it) is ast.Name and it.id in param_types:
                kind = param_types[it.id]
            kinds.setdefault(tg.id, kind)
    return kinds


def _renames(fn, types):
    params = [a.arg for a in fn.args.args]
    param_types = dict(zip(params, types))
    mapping = {}
    used = set()
    for p, ty in zip(params, types):
        prefs = ([p] if p in PARAM_POOL else []) + PARAMS_BY_TYPE.get(ty, []) + PARAM_POOL
        new = next((c for c in prefs if c not in used), None)
        if new is None:
            raise Refusal(fn, "more parameters than the parameter pool holds")
        mapping[p] = new
        used.add(new)
    kinds = _loop_kinds(fn, param_types)
    spare_params = [c for c in PARAM_POOL if c not in used]
    for name in _bound_names(fn):
        if name in mapping:
            continue
        prefs = []
        if name in LOCAL_POOL:
            prefs.append(name)
        role = _role(name)
        if role:
            prefs.append(role)
        kind = kinds.get(name)
        if kind == "range":
            prefs += ["i", "j"]
        elif kind == "str":
            prefs += ["c"]
        elif kind == "list[str]":
            prefs += ["w"]
        elif kind == "list[int]":
            prefs += ["v", "y"]
        if len(name) == 1 and name in "ij":
            prefs.append(name)
        prefs += ["v", "y", "p", "q", "r", "cur", "acc", "res", "out", "best", "count", "total", "prev", "seen",
                  "lo", "hi", "mid", "i", "j", "c", "w"] + spare_params
        new = next((c for c in prefs if c not in used), None)
        if new is None:
            raise Refusal(fn, "more local names than arena-Python's pools hold")
        mapping[name] = new
        used.add(new)
    return mapping


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            node.id = self.mapping[node.id]
        return node

    def visit_arg(self, node):
        node.arg = self.mapping.get(node.arg, node.arg)
        return node


def _normalise(src, entry, types):
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        return {"ok": False, "line": e.lineno or 0, "col": e.offset or 0, "what": "a Python syntax error: %s" % e.msg}
    rewrites = []
    try:
        fns = [n for n in tree.body if type(n) is ast.FunctionDef and n.name == entry]
        if not fns:
            raise Refusal(tree, "no top-level function %s" % entry)
        fn = fns[-1]
        used = _names_in(fn)
        for st in tree.body:
            if st is fn:
                continue
            if type(st) in (ast.Import, ast.ImportFrom):
                names = [(a.asname or a.name).split(".")[0] for a in st.names]
                hit = [n for n in names if n in used]
                if hit:
                    raise Refusal(st, "module '%s' (arena-Python has no imports)" % hit[0])
                rewrites.append("line %d: unused import dropped" % st.lineno)
            elif type(st) in (ast.FunctionDef, ast.ClassDef):
                if st.name in used:
                    raise Refusal(st, "helper %s '%s' called by %s (arena programs are one function)"
                                  % ("function" if type(st) is ast.FunctionDef else "class", st.name, entry))
                rewrites.append("line %d: unused %s dropped" % (st.lineno, st.name))
            elif _is_docstring(st):
                continue
            else:
                hit = [n for n in _names_in(st) if n in used]
                if hit:
                    raise Refusal(st, "module-level statement defining '%s' used by %s" % (hit[0], entry))
                rewrites.append("line %d: unused module-level statement dropped" % st.lineno)
        if len(types) != len(fn.args.args):
            raise Refusal(fn, "%d parameters but the tests pass %d arguments" % (len(fn.args.args), len(types)))
        body = fn.body
        if body and _is_docstring(body[0]) and len(body) > 1:
            body = body[1:]
            rewrites.append("line %d: docstring dropped" % fn.body[0].lineno)
        fn.body = _rewrite_block(body, rewrites)
        _check(fn)
        mapping = _renames(fn, types)
    except Refusal as r:
        return {"ok": False, "line": r.line, "col": r.col, "what": r.what}
    fn = _Rename(mapping).visit(fn)
    fn.name = "f"
    fn.returns = None
    for a in fn.args.args:
        a.annotation = None
    mod = ast.Module(body=[fn], type_ignores=[])
    renames = {k: v for k, v in mapping.items() if k != v}
    if entry != "f":
        renames = dict([(entry, "f")] + list(renames.items()))
    return {"ok": True, "code": canonical(mod), "renames": renames, "rewrites": rewrites}


# --- Semantic mutation operators (the arena-v2 slips, on any reference) ---------------------------

_METHOD_SWAPS = {"isupper": "islower", "islower": "isupper", "upper": "lower", "lower": "upper",
                 "startswith": "endswith", "endswith": "startswith", "isalpha": "isdigit", "isdigit": "isalpha"}


def _semantic_points(tree, returns):
    out = []
    fn = next(n for n in tree.body if type(n) is ast.FunctionDef)
    params = {a.arg for a in fn.args.args}
    for idx, node in enumerate(ast.walk(tree)):
        t = type(node)
        if t is ast.Call and type(node.func) is ast.Attribute and node.func.attr in _METHOD_SWAPS:
            out.append((idx, "semantic:wrong-predicate:%s->%s" % (node.func.attr, _METHOD_SWAPS[node.func.attr]), _swap_method))
        if t is ast.For:
            it = node.iter
            if type(it) is ast.Call and type(it.func) is ast.Name and it.func.id == "range" and len(it.args) == 1:
                out.append((idx, "semantic:skip-first", _range_from_one))
            elif type(it) is ast.Name:
                out.append((idx, "semantic:skip-first", _slice_from_one))
        if t in (ast.If,) and len(node.body) == 1 and type(node.body[0]) is ast.Return and not node.orelse:
            out.append((idx, "semantic:missing-guard", None))
        if t is ast.Call:
            for pos, arg in enumerate(node.args):
                if type(arg) is ast.Name and arg.id in params:
                    out.append((idx, "semantic:skip-first-item", _slice_arg(pos, ast.Slice(lower=ast.Constant(1)))))
                    out.append((idx, "semantic:skip-last-item", _slice_arg(pos, ast.Slice(upper=ast.UnaryOp(op=ast.USub(), operand=ast.Constant(1))))))
        if t is ast.Return and returns == "int" and node.value is not None:
            out.append((idx, "semantic:return+1", _return_plus(1)))
    return out


def _slice_arg(pos, sl):
    def apply(node):
        node.args[pos] = ast.Subscript(value=node.args[pos], slice=sl, ctx=ast.Load())
    return apply


def _swap_method(node):
    node.func.attr = _METHOD_SWAPS[node.func.attr]


def _range_from_one(node):
    node.iter.args = [ast.Constant(1), node.iter.args[0]]


def _slice_from_one(node):
    node.iter = ast.Subscript(value=node.iter, slice=ast.Slice(lower=ast.Constant(1)), ctx=ast.Load())


def _return_plus(d):
    def apply(node):
        node.value = ast.BinOp(left=node.value, op=ast.Add(), right=ast.Constant(d))
    return apply


def _variants(src, returns):
    """Mutants of a normalised reference (mutate.py's, then the semantic ones), canonical, deduplicated."""
    tree = ast.parse(src)
    seen = {src}
    out = []

    def keep(code, operator, line):
        try:
            code = canonical(ast.parse(code))
        except SyntaxError:
            return
        if code not in seen:
            seen.add(code)
            out.append({"operator": operator, "line": line, "code": code})

    for m in mutants(src):  # noqa: F821 - mutate.py is prepended
        keep(m["code"], m["operator"], m["line"])
    for idx, name, apply in _semantic_points(tree, returns):
        m = copy.deepcopy(tree)
        node = list(ast.walk(m))[idx]
        if apply is None:  # drop the guard: remove the if statement from its block
            for parent in ast.walk(m):
                for field in ("body", "orelse"):
                    block = getattr(parent, field, None)
                    if isinstance(block, list) and node in block and len(block) > 1:
                        block.remove(node)
        else:
            apply(node)
        keep(canonical(m), name, getattr(node, "lineno", 0))
    return out


# A reference nested deeply (`n+n+...+n` 500 times is 1 KB) exhausts the recursion limit in the
# parser or in a tree walk: that reference is refused, not the whole import.
def normalise(src, entry, types):
    try:
        return _normalise(src, entry, types)
    except (RecursionError, MemoryError) as e:
        return {"ok": False, "line": 0, "col": 0, "what": "nested too deeply to parse (%s)" % type(e).__name__}


def variants(src, returns):
    try:
        return _variants(src, returns)
    except (RecursionError, MemoryError):
        return []
