"""Mutants of a reference solution, by AST mutation operators modelled on Cosmic-Ray's.

Run in Pyodide (or CPython 3.9+) through an injected runPython (src/core/arena/mutants.ts):
`mutants(src)` returns a list of {"operator", "line", "code"}, one per first-order mutant, in a
fixed order (walk order of the tree, then operator order), duplicates and no-ops removed.

Operators (Cosmic-Ray names in brackets):
- binary operator replacement [ReplaceBinaryOperator]: each of + - * // % ** by each other one;
  also inside augmented assignments (x += 1 -> x -= 1);
- comparison operator replacement [ReplaceComparisonOperator]: each of < <= > >= == != by each
  other one; in <-> not in;
- boolean operator replacement [ReplaceAndWithOr, ReplaceOrWithAnd];
- unary operator deletion [RemoveUnaryOperator]: `not x` -> `x`, `-x` -> `x`;
- constant replacement [NumberReplacer]: integer constant c -> c + 1 and c - 1;
  True <-> False [ReplaceTrueWithFalse, ReplaceFalseWithTrue];
- slice bound shifts: each present bound b of a slice -> b + 1 and b - 1;
- builtin swaps: min <-> max, any <-> all;
- break <-> continue [ReplaceBreakWithContinue, ReplaceContinueWithBreak];
- zero-iteration loop [ZeroIterationForLoop]: `for T in E:` -> `for T in []:`.
"""
import ast
import copy

_BIN = [ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow]
_CMP = [ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq]
_SWAP_NAMES = {"min": "max", "max": "min", "any": "all", "all": "any"}


def _points(tree):
    """Every mutation as (node index in ast.walk order, operator name, apply(node) or apply(parent))."""
    out = []
    for idx, node in enumerate(ast.walk(tree)):
        t = type(node)
        if t in (ast.BinOp, ast.AugAssign) and type(node.op) in _BIN:
            for op in _BIN:
                if op is not type(node.op):
                    out.append((idx, "binary:%s->%s" % (type(node.op).__name__, op.__name__), _set_op(op)))
        elif t is ast.Compare and len(node.ops) == 1:
            cur = type(node.ops[0])
            alts = [c for c in _CMP if c is not cur] if cur in _CMP else (
                [ast.NotIn] if cur is ast.In else [ast.In] if cur is ast.NotIn else [])
            for op in alts:
                out.append((idx, "compare:%s->%s" % (cur.__name__, op.__name__), _set_cmp(op)))
        elif t is ast.BoolOp:
            other = ast.Or if type(node.op) is ast.And else ast.And
            out.append((idx, "boolean:%s->%s" % (type(node.op).__name__, other.__name__), _set_op(other)))
        elif t is ast.Constant and type(node.value) is int:
            for d in (1, -1):
                out.append((idx, "number:%+d" % d, _add_const(d)))
        elif t is ast.Constant and type(node.value) is bool:
            out.append((idx, "bool:%s->%s" % (node.value, not node.value), _flip_bool))
        elif t is ast.Slice:
            for field in ("lower", "upper"):
                if getattr(node, field) is not None:
                    for d in (1, -1):
                        out.append((idx, "slice:%s%+d" % (field, d), _shift_bound(field, d)))
        elif t is ast.Call and type(node.func) is ast.Name and node.func.id in _SWAP_NAMES:
            out.append((idx, "builtin:%s->%s" % (node.func.id, _SWAP_NAMES[node.func.id]), _swap_name))
        elif t is ast.Break:
            out.append((idx, "break->continue", None))
        elif t is ast.Continue:
            out.append((idx, "continue->break", None))
        elif t is ast.For:
            out.append((idx, "zero-iteration-loop", _zero_loop))
        # Unary deletion replaces the UnaryOp inside its parent: recorded on the parent.
        for field, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for pos, child in enumerate(items):
                if type(child) is ast.UnaryOp and type(child.op) in (ast.Not, ast.USub):
                    name = "unary:remove-%s" % type(child.op).__name__
                    out.append((idx, name, _remove_unary(field, pos if isinstance(value, list) else None)))
    return out


def _set_op(op):
    def apply(node):
        node.op = op()
    return apply


def _set_cmp(op):
    def apply(node):
        node.ops = [op()]
    return apply


def _add_const(d):
    def apply(node):
        node.value = node.value + d
    return apply


def _flip_bool(node):
    node.value = not node.value


def _shift_bound(field, d):
    def apply(node):
        bound = getattr(node, field)
        op = ast.Add() if d > 0 else ast.Sub()
        setattr(node, field, ast.BinOp(left=bound, op=op, right=ast.Constant(value=1)))
    return apply


def _swap_name(node):
    node.func.id = _SWAP_NAMES[node.func.id]


def _zero_loop(node):
    node.iter = ast.List(elts=[], ctx=ast.Load())


def _remove_unary(field, pos):
    def apply(parent):
        value = getattr(parent, field)
        if pos is None:
            setattr(parent, field, value.operand)
        else:
            value[pos] = value[pos].operand
    return apply


def mutants(src):
    """First-order mutants of `src` as [{"operator", "line", "code"}], deduplicated."""
    tree = ast.parse(src)
    original = ast.unparse(tree)
    seen = {original}
    out = []
    for idx, name, apply in _points(tree):
        m = copy.deepcopy(tree)
        node = list(ast.walk(m))[idx]
        if name == "break->continue":
            m = _replace_stmt(m, node, ast.Continue())
        elif name == "continue->break":
            m = _replace_stmt(m, node, ast.Break())
        else:
            apply(node)
        code = ast.unparse(ast.fix_missing_locations(m))
        if code in seen:
            continue
        seen.add(code)
        out.append({"operator": name, "line": getattr(node, "lineno", 0), "code": code})
    return out


def _replace_stmt(tree, target, new):
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and target in value:
                value[value.index(target)] = ast.copy_location(new, target)
    return tree
