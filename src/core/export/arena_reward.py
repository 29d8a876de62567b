"""Code-A1 Arena's grading and reward semantics, for a verl run of the reference implementation.

Written by `npm run export -- verl` next to the Parquet data and the YAML config (docs/SCALING.md).
Plain Python 3.8+, standard library only: it imports nothing from verl, so the reference's reward
manager (Code-A1/code/rl/reward.py, ACGRewardManager "acg_llm") can use it as it is, and the arena's
tests run it in Pyodide and in CPython against the TypeScript core (tests/unit/export/).

It mirrors, function by function:
  canonical values and equality      src/core/grader/canonical.ts (sameValue), harness.py (canonical)
  reference-corrected test lines     src/core/grader/verdicts.ts (judgeLine, lineVerdict)
  R_val, gen_fail, hist_fail, R_adv,
  R_T, Pass_new, R_C, golden reward  src/core/loop/rewards.ts
  TopVar                             src/core/loop/topvar.ts
  the Mistake Book                   src/core/loop/mistake-book.ts
  one task's scores                  src/core/loop/score-task.ts (code-a1 mode)

Using it from the reference (README.md beside this file has the steps):
  * `compute_dual_model_reward` takes the same keyword arguments as the reference's function of that
    name and returns the same keys, with the arena's rules: N = `tests_per_suite` (the reference
    fixes 8) and no non-printable-character penalty.
  * `ArenaMistakeBook` has the reference MistakeBook's methods (load, save, is_blacklisted,
    get_attack_testcases, update) and file names, keeps first/last step per test, and retrieves in
    the arena's order (frequency, then older first, then text) up to `mistake_book_top_k`.
  * `reference_update_mistake_book` is the reference's `update_mistake_book` (reward.py) with the
    same arguments and arithmetic, passing each failed test's program on, so the book's
    `failed_code` is filled; `use_arena_mistake_book(ACGRayTrainer)` makes the trainer build an
    `ArenaMistakeBook` whose top-k is the YAML's `reward_model.reward_kwargs.mistake_book_top_k`.
  * `grade_suite` turns the values a sandbox returned into the arena's line results (validity,
    verdict, corrected line), with canonical equality instead of Python's `==`.
"""

import functools
import json
import math
import os
import socket
import sys
import tokenize

FLOAT_TOLERANCE = 1e-9
DEFAULT_TESTS_PER_SUITE = 8


# ---------------------------------------------------------------------------------------------
# Canonical values (harness.py, canonical.ts): one form per value, types kept.

class NotBuiltin(ValueError):
    """A value that is not a builtin int, float, bool, str, None, list, tuple, set, frozenset, dict."""


def canonical(v):
    """The canonical form of a Python value as nested lists (the JSON the harness writes, parsed).
    Set elements and dict items are sorted by their own canonical text; -0.0 is written 0.0."""
    t = type(v)
    if t is str:
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            return ["u", [ord(c) for c in v]]
        return ["s", v]
    if t is bool:
        return ["b", v]
    if t is int:
        return ["i", hex(v)]
    if v is None:
        return ["n"]
    if t is float:
        return ["f", repr(v) if v != 0.0 else "0.0"]
    if t is list or t is tuple:
        return ["l" if t is list else "t", [canonical(x) for x in v]]
    if t is set or t is frozenset:
        items = sorted((canonical(x) for x in v), key=_text)
        return ["S" if t is set else "F", items]
    if t is dict:
        pairs = sorted(([canonical(k), canonical(x)] for k, x in v.items()), key=lambda kv: (_text(kv[0]), _text(kv[1])))
        return ["d", pairs]
    raise NotBuiltin("%s is not a builtin value" % t.__name__)


def _text(c):
    return json.dumps(c, separators=(",", ":"))


def from_canonical(c):
    """The Python value of a canonical form (as sent by the arena's grader or a run bundle)."""
    tag = c[0]
    if tag == "s":
        return c[1]
    if tag == "u":
        return "".join(chr(cp) for cp in c[1])
    if tag == "i":
        return int(c[1], 16)
    if tag == "b":
        return bool(c[1])
    if tag == "n":
        return None
    if tag == "f":
        return float(c[1])
    if tag == "d":
        return {from_canonical(k): from_canonical(x) for k, x in c[1]}
    items = [from_canonical(x) for x in c[1]]
    return {"l": list, "t": tuple, "S": set, "F": frozenset}[tag](items)


def _float_of(text):
    return float(text)  # "inf", "-inf", "nan" and Python reprs all parse


def same_canonical(a, b):
    """Equality of canonical forms (canonical.ts sameValue): types kept (1 != 1.0 != True,
    [1] != (1,)); floats equal when both NaN, the same infinity, or |a - b| <= 1e-9 max(1, |a|, |b|);
    set elements and dict keys compare exactly."""
    if a[0] != b[0]:
        return False
    tag = a[0]
    if tag == "f":
        x, y = _float_of(a[1]), _float_of(b[1])
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        if math.isinf(x) or math.isinf(y):
            return x == y
        return abs(x - y) <= FLOAT_TOLERANCE * max(1.0, abs(x), abs(y))
    if tag in ("l", "t"):
        return len(a[1]) == len(b[1]) and all(same_canonical(x, y) for x, y in zip(a[1], b[1]))
    if tag == "d":
        return len(a[1]) == len(b[1]) and all(_text(ka) == _text(kb) and same_canonical(va, vb) for (ka, va), (kb, vb) in zip(a[1], b[1]))
    return _text(a) == _text(b)


def same_value(a, b):
    """Canonical equality of two Python values; False when either is not a builtin value."""
    try:
        return same_canonical(canonical(a), canonical(b))
    except NotBuiltin:
        return False


_REPR_INT_LIMIT = 10 ** 4000


def literal(v):
    """A Python literal that reads back as exactly v (the corrected line's answer; harness.py _lit),
    or None when v has none (NaN, a frozenset, a non-builtin)."""
    t = type(v)
    if t is float:
        if v != v:
            return None
        if v in (float("inf"), float("-inf")):
            return "1e999" if v > 0 else "-1e999"
        return repr(v)
    if t is int and not -_REPR_INT_LIMIT < v < _REPR_INT_LIMIT:
        return hex(v)
    if t in (int, str, bool) or v is None:
        return repr(v)
    if t in (list, tuple, set, dict):
        parts = [literal(x) for x in v] if t is not dict else [(literal(k), literal(x)) for k, x in v.items()]
        if any(p is None or (type(p) is tuple and None in p) for p in parts):
            return None
        if t is list:
            return "[" + ", ".join(parts) + "]"
        if t is tuple:
            return "(" + ", ".join(parts) + (",)" if len(parts) == 1 else ")")
        if t is set:
            return "{" + ", ".join(sorted(parts)) + "}" if parts else "set()"
        return "{" + ", ".join(sorted(k + ": " + x for k, x in parts)) + "}"
    return None


# ---------------------------------------------------------------------------------------------
# Reference-corrected test lines (verdicts.ts). An outcome is ("ok", value) or (kind, message) with
# kind one of "error", "fail", "timeout".

def judge_line(answer, reference):
    """What the reference says of one parsed generated line: ("valid" | "wrong-answer", expected)
    or ("invalid", reason)."""
    kind, value = reference[0], reference[1]
    if kind != "ok":
        return ("invalid", "reference %s%s" % ("timed out: " if kind == "timeout" else "", value))
    try:
        expected = canonical(value)
    except NotBuiltin as e:
        return ("invalid", "reference output: %s" % e)
    if literal(value) is None:
        return ("invalid", "reference output has no literal form")
    return ("valid" if same_value(answer, value) else "wrong-answer", value)


# The judge reads a test line only within these (harness.py MAX_LINE_CHARS, MAX_NESTING); a corrected
# line past them is no test: the grader would refuse it when the Mistake Book replays it (round 44).
MAX_LINE_CHARS = 2000
MAX_NESTING = 100
_NESTING_OPS = frozenset(("-", "+", "~", "(", "[", "{"))
_NO_TEXT = frozenset((tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER))


def _nesting(text):
    """How deeply a line nests (harness.py `_nesting`): bracket depth, or the longest run of prefix
    operators and open brackets, over the line's tokens."""
    try:
        tokens = [(t[0], t[1]) for t in tokenize.generate_tokens(iter((text,)).__next__)]
    except Exception:
        tokens = [(tokenize.OP, ch) for ch in text if ch != " "]
    deepest = run = depth = 0
    for kind, s in tokens:
        if kind == tokenize.OP and s in _NESTING_OPS:
            if s in "([{":
                depth += 1
            run += 1
            deepest = max(deepest, depth, run)
        else:
            if kind == tokenize.OP and s in ")]}":
                depth -= 1
            if kind not in _NO_TEXT:
                run = 0
    return deepest


def fits_line(call, expected):
    """Whether the corrected line `assert CALL == LITERAL` is one the judge reads back (verdicts.ts
    judgeLine, harness.py `_call`): at most MAX_LINE_CHARS characters, its literal at most MAX_NESTING deep."""
    lit = literal(expected)
    return len("assert %s == %s" % (call, lit)) <= MAX_LINE_CHARS and _nesting(lit) <= MAX_NESTING


def line_verdict(expected, outcome):
    """The verdict of one executable line: pass, fail, error or timeout."""
    kind, value = outcome[0], outcome[1]
    if kind == "ok":
        return "pass" if same_value(expected, value) else "fail"
    return kind if kind in ("fail", "timeout") else "error"


def grade_suite(lines, reference, candidate, max_lines=DEFAULT_TESTS_PER_SUITE):
    """One generated suite judged as the arena judges it.

    lines: parsed lines in order, each {"call": CALL_SOURCE, "args": ARGS_KEY, "answer": VALUE} or
      {"invalid": REASON} (not `assert ENTRY(literals) == literal`); ARGS_KEY is any hashable that
      is equal exactly when two calls have the same arguments (e.g. their canonical text). An
      invalid line with "opaque": True may do in Python what the sandbox does not do in its place
      (bind a name, make another call: verdicts.ts cutAfterOpaque): every line after it is invalid.
      An invalid line with "side": ARGS_KEY still makes that call in CPython (its assert starts with
      a call of the entry point on literals: a message, another comparison, an answer that is no
      literal); so does a line that repeats an earlier line's call, and one whose reference output
      cannot be written as its corrected line. The candidate makes such a call in its place, where
      the reference's returned (verdicts.ts `sideCall`): its timeout stops the later calls, and an
      outcome marked 1 (below) leaves the later lines "error", as an executable line's does.
    reference: ARGS_KEY -> outcome of the ground-truth code on that call.
    candidate: ARGS_KEY -> outcome of the candidate on that call, or None when the candidate did not
      load (every executable line is then "skipped"). An error or fail outcome with a third element
      1 left the program off CPython's path (its own object's methods, or its own `set`, not run:
      verdicts.ts judgeCandidate): every later executable line is then "error". The candidate makes its
      calls in the order of the lines and is stopped at its first timeout: every later call is a
      "timeout" whatever the dict holds; a call with no outcome before that is an "error".
    Returns one dict per line read: validity, verdict and, for executable lines, corrected.
    """

    def side(key):
        # The call an invalid line still makes: only where the reference's returned (a value, even one
        # the grader cannot write down); where it raised or timed out, no candidate pays for it.
        ref = reference.get(key) if key is not None else None
        return ("side", key) if ref is not None and ref[0] == "ok" else None

    judged = []
    seen = set()
    opaque = False
    for line in lines[:max_lines]:
        if opaque:
            judged.append(None)
        elif "invalid" in line:
            judged.append(side(line.get("side")))
            opaque = line.get("opaque") is True
        elif line["args"] in seen:
            judged.append(side(line["args"]))
        else:
            seen.add(line["args"])
            validity, expected = judge_line(line["answer"], reference[line["args"]])
            ok = validity != "invalid" and fits_line(line["call"], expected)
            judged.append((line, validity, expected) if ok else side(line["args"]))
    out = []
    cut = False
    timed_out = False
    for j in judged:
        if j is None or j[0] == "side":
            # A refused line: skipped; its call, where one is made, may stop or cut the lines after it.
            o = candidate.get(j[1]) if j is not None and candidate is not None and not timed_out else None
            if o is not None:
                timed_out = o[0] == "timeout"
                cut = cut or (len(o) > 2 and o[2] == 1)
            out.append({"validity": "invalid", "verdict": "skipped"})
            continue
        line, validity, expected = j
        key = line["args"]
        result = {"validity": validity, "corrected": "assert %s == %s" % (line["call"], literal(expected))}
        if candidate is None:
            result["verdict"] = "skipped"
        elif cut:
            result["verdict"] = "error"
        elif timed_out:
            result["verdict"] = "timeout"
        elif key in candidate:
            o = candidate[key]
            result["verdict"] = line_verdict(expected, o)
            timed_out = o[0] == "timeout"
            cut = len(o) > 2 and o[2] == 1
        else:
            result["verdict"] = "error"
        out.append(result)
    return out


# ---------------------------------------------------------------------------------------------
# Rewards (rewards.ts). Lines are dicts with "validity" and "verdict" (and "corrected").

def _check_n(n):
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError("tests per suite N must be a positive integer, got %r" % (n,))


def suite_counts(lines, n=DEFAULT_TESTS_PER_SUITE):
    _check_n(n)
    unique = invalid = passed = failed = failed_first_n = 0
    for line in lines:
        if line["validity"] != "valid":
            invalid += 1
        if line["validity"] == "invalid":
            continue
        unique += 1
        if line["verdict"] == "pass":
            passed += 1
        else:
            failed += 1
            if unique <= n:
                failed_first_n += 1
    return {"lines": len(lines), "unique_executable": unique, "invalid": invalid, "passed": passed, "failed": failed, "failed_first_n": failed_first_n}


def book_counts(lines):
    """Pass counts of the replayed Mistake Book tests, leaving out those the grader refused on replay
    (invalid: two spellings of one call, a corrected line past the line limits); rewards.ts bookCounts."""
    return pass_counts([l for l in lines if l["validity"] != "invalid"])


def pass_counts(lines):
    return {"total": len(lines), "passed": sum(1 for l in lines if l["verdict"] == "pass")}


def r_val(counts, n=DEFAULT_TESTS_PER_SUITE):
    """R_val = clip(min(unique_executable / N, 1 - invalid / N), 0, 1)."""
    _check_n(n)
    return min(1.0, max(0.0, min(counts["unique_executable"] / n, 1 - counts["invalid"] / n)))


def gen_fail(counts, n=DEFAULT_TESTS_PER_SUITE):
    _check_n(n)
    return counts["failed_first_n"] / n


def hist_fail(hist):
    return 1 - hist["passed"] / hist["total"] if hist["total"] > 0 else 0


def r_adv(counts, hist, n=DEFAULT_TESTS_PER_SUITE):
    """(gen_fail - hist_fail + 1) / 2 with new and Mistake Book tests; gen_fail with new tests only; else 0."""
    has_new = counts["unique_executable"] > 0
    has_hist = hist["total"] > 0
    if has_new and has_hist:
        return (gen_fail(counts, n) - hist_fail(hist) + 1) / 2
    if has_new:
        return gen_fail(counts, n)
    return 0


def test_reward(alpha, rval, radv, code_runs):
    """R_T = alpha R_val + (1 - alpha) R_adv; 0 when the code does not run."""
    if not (0 <= alpha <= 1):
        raise ValueError("alpha must be in [0, 1], got %r" % (alpha,))
    return alpha * rval + (1 - alpha) * radv if code_runs else 0


def score_pair(suite, mistake_book, code_status, alpha, n=DEFAULT_TESTS_PER_SUITE):
    counts = suite_counts(suite, n)
    runs = code_status == "ok"
    rv = r_val(counts, n)
    ra = r_adv(counts, book_counts(mistake_book), n) if runs else 0
    return {"r_val": rv, "r_adv": ra, "reward": test_reward(alpha, rv, ra, runs), "counts": counts}


def pass_new(counts):
    return counts["passed"] / counts["unique_executable"] if counts["unique_executable"] > 0 else 0


def code_reward(code_status, suites, mistake_book):
    """R_C: mean over the code's suites of (Pass_hist + Pass_new) / 2, Pass_hist or Pass_new alone
    when only one kind of test exists, 0 when neither; 0 for code that does not load."""
    if code_status != "ok" or len(suites) == 0:
        return 0
    total = mistake_book["total"]
    p_hist = mistake_book["passed"] / total if total > 0 else 0
    s = 0
    for c in suites:
        has_new = c["unique_executable"] > 0
        if has_new and total > 0:
            s += (p_hist + pass_new(c)) / 2
        elif total > 0:
            s += p_hist
        elif has_new:
            s += pass_new(c)
    return s / len(suites)


def golden_reward(code_status, golden):
    return golden["passed"] / golden["total"] if code_status == "ok" and golden["total"] > 0 else 0


# ---------------------------------------------------------------------------------------------
# TopVar (topvar.ts).

def population_std(xs):
    """As topvar.ts: summed in ascending order, one addition at a time (not `sum`, which compensates
    float rounding since Python 3.12), so any order of the same values gives the same bits."""
    if len(xs) < 2:
        return 0
    ordered = sorted(xs)
    total = 0.0
    for x in ordered:
        total += x
    mean = total / len(ordered)
    squares = 0.0
    for x in ordered:
        squares += (x - mean) * (x - mean)
    return math.sqrt(squares / len(ordered))


def top_var(rewards, k):
    """std of R_T over each code's suites, and the k codes with the highest (ties: lower index)."""
    if not isinstance(k, int) or k < 1:
        raise ValueError("topvar_k must be a positive integer, got %r" % (k,))
    std = [population_std(row) for row in rewards]
    order = sorted(range(len(std)), key=lambda i: (-std[i], i))
    return {"std": std, "selected": order[:min(k, len(order))]}


# ---------------------------------------------------------------------------------------------
# The Mistake Book (mistake-book.ts). A book is {task: [entry, ...]}, an entry
# {test, frequency, first_step, last_step, failed_code}.

def _entry_key(e):
    return (-e["frequency"], e["first_step"], _code_units(e["test"]))


def _code_units(s):
    # JavaScript compares strings by UTF-16 code units; so must the tie-break.
    return s.encode("utf-16-be", "surrogatepass")


def top_mistakes(book, task, k):
    if not isinstance(k, int) or k < 0:
        raise ValueError("mistake_book_top_k must be a non-negative integer, got %r" % (k,))
    return sorted(book.get(task, []), key=_entry_key)[:k]


def mistake_book_outcome(book_tests, candidates):
    """candidates: [{code, loaded, suites: [[line...]...], book_lines: [line...]}]. Failed executable
    new lines of loaded codes (by corrected text, one per failure), and stored tests they passed."""
    failed, passed, refused = [], [], []
    for c in candidates:
        for i, line in enumerate(c["book_lines"]):
            if line["validity"] == "invalid" and i < len(book_tests) and book_tests[i] not in refused:
                refused.append(book_tests[i])
        if not c["loaded"]:
            continue
        for suite in c["suites"]:
            for line in suite:
                if line["validity"] == "invalid" or line["verdict"] == "pass":
                    continue
                failed.append({"test": line["corrected"], "code": c["code"]})
        if len(c["book_lines"]) != len(book_tests):
            raise ValueError("%d Mistake Book verdicts for %d Mistake Book tests" % (len(c["book_lines"]), len(book_tests)))
        for i, line in enumerate(c["book_lines"]):
            if line["verdict"] == "pass":
                passed.append(book_tests[i])
    return {"failed": failed, "passed": passed, "refused": refused}


def update_mistake_book(book, task, step, outcome):
    """First -1 per pass of a stored test (deleted at 0), then +1 per failure (inserted at 1).
    Returns (new book, delta {task, step, added, removed, changed}); `book` is not modified."""
    before = book.get(task, [])
    entries = {e["test"]: dict(e) for e in before}
    for test in outcome.get("refused", []):
        entries.pop(test, None)
    for test in outcome["passed"]:
        e = entries.get(test)
        if e is None:
            continue
        e["frequency"] -= 1
        if e["frequency"] <= 0:
            del entries[test]
    for f in outcome["failed"]:
        e = entries.get(f["test"])
        if e is not None:
            e["frequency"] += 1
            e["last_step"] = step
            e["failed_code"] = f["code"]
        else:
            entries[f["test"]] = {"test": f["test"], "frequency": 1, "first_step": step, "last_step": step, "failed_code": f["code"]}
    after = sorted(entries.values(), key=_entry_key)
    new_book = {t: es for t, es in book.items() if t != task}
    if after:
        new_book[task] = after
    old = {e["test"]: e for e in before}
    now = {e["test"] for e in after}
    added = [e for e in after if e["test"] not in old]
    changed = [e for e in after if e["test"] in old and e != old[e["test"]]]
    removed = [e["test"] for e in before if e["test"] not in now]
    return new_book, {"task": task, "step": step, "added": added, "removed": removed, "changed": changed}


# ---------------------------------------------------------------------------------------------
# One task in one step (score-task.ts, code-a1 mode): the arena's duel record shape in, scores out.

def score_task(record, alpha, n, topvar_k):
    """record: {codes: [{text, status, mistake_book_lines, suites: [{lines}]}], mistake_book_tests}.
    Returns {codes: [{reward, suites: [{r_val, r_adv, reward}]}], topvar, outcome}."""
    codes = []
    rewards = []
    for c in record["codes"]:
        pairs = [score_pair(s["lines"], c["mistake_book_lines"], c["status"], alpha, n) for s in c["suites"]]
        rc = code_reward(c["status"], [p["counts"] for p in pairs], book_counts(c["mistake_book_lines"]))
        codes.append({"reward": rc, "suites": [{"r_val": p["r_val"], "r_adv": p["r_adv"], "reward": p["reward"]} for p in pairs]})
        rewards.append([p["reward"] for p in pairs])
    tv = top_var(rewards, topvar_k) if topvar_k > 0 else {"std": [population_std(r) for r in rewards], "selected": []}
    outcome = mistake_book_outcome(record["mistake_book_tests"], [
        {"code": c["text"], "loaded": c["status"] == "ok", "suites": [s["lines"] for s in c["suites"]], "book_lines": c["mistake_book_lines"]}
        for c in record["codes"]
    ])
    return {"codes": codes, "topvar": tv, "outcome": outcome}


# ---------------------------------------------------------------------------------------------
# The reference's reward manager (reward.py ACGRewardManager "acg_llm").

def compute_dual_model_reward(is_code_valid, gt_passed, gt_total, gt_failed_msgs, valid_generated_tests, invalid_count,
                              total_generated_count, gen_passed, gen_failed_msgs, test_phase="comprehensive", **kwargs):
    """Drop-in for the reference's compute_dual_model_reward, scored by the arena's rules.

    One (code, suite) pair: reward_a is the pair's share of R_C (the reference averages it over the
    code's suites, which gives R_C), reward_b is R_T. With gt_total != -1 (the golden-tests branch)
    reward_a is the golden pass rate. kwargs: alpha (0.5), tests_per_suite (8), attack_gen_passed
    and attack_gen_total (the Mistake Book tests shown and passed); the reference's text-quality
    ratios are recorded, not used.
    """
    alpha = kwargs.get("alpha", 0.5)
    n = int(kwargs.get("tests_per_suite", DEFAULT_TESTS_PER_SUITE))
    status = "ok" if is_code_valid else "load-error"
    info = {
        "test_phase": test_phase,
        "valid_generated_tests": valid_generated_tests,
        "invalid_test_count": invalid_count,
        "total_test_count": total_generated_count,
        "is_generated_code_valid": is_code_valid,
    }
    if gt_total != -1:
        rate = golden_reward(status, {"total": gt_total, "passed": gt_passed})
        info["gt_test_results"] = {"gt_passed": gt_passed if is_code_valid else 0, "gt_total": gt_total, "gt_pass_rate": rate}
        return {"reward_a": rate, "reward_extra_info": info}
    unique = len(valid_generated_tests)
    failed_first_n = sum(1 for m in list(gen_failed_msgs)[:min(n, unique)] if m)
    counts = {"lines": total_generated_count, "unique_executable": unique, "invalid": invalid_count, "passed": gen_passed,
              "failed": unique - gen_passed, "failed_first_n": failed_first_n}
    hist = {"total": kwargs.get("attack_gen_total", 0), "passed": kwargs.get("attack_gen_passed", 0)}
    rv = r_val(counts, n)
    ra = r_adv(counts, hist, n) if is_code_valid else 0
    reward_b = test_reward(alpha, rv, ra, is_code_valid)
    reward_a = code_reward(status, [counts], hist)
    info["valid_reward"] = rv
    # Per executable line, for the arena's importer (npm run import-verl): the corrected test and its verdict.
    info["arena_lines"] = [{"test": t, "verdict": _verdict_of_message(m), "reason": m} for t, m in zip(valid_generated_tests, list(gen_failed_msgs) + [""] * (unique - len(gen_failed_msgs)))]
    info["generated_test_results"] = {"gen_passed": gen_passed, "gen_total": unique, "gen_pass_rate": pass_new(counts),
                                      "attack_passed": hist["passed"], "attack_total": hist["total"], "final_attack_rate": ra, "final_pass_rate": reward_a}
    return {"reward_a": reward_a, "reward_b": reward_b, "reward_extra_info": info}


def _verdict_of_message(message):
    """The reference's per-test message ('' when passed) as an arena verdict: an AssertionError is a
    fail, another exception an error, no result (the program was stopped) a timeout."""
    if not message:
        return "pass"
    if message in ("fail", "error", "timeout"):
        return message
    if "No result found" in message:
        return "timeout"
    return "fail" if "AssertionError" in message else "error"


class ArenaMistakeBook:
    """The reference MistakeBook's interface over the arena's book.

    File: DIR/<hostname>/mistake_book_step_<step>.json, as the reference writes it:
    {question_id: {"attack_testcases": [{"testcase", "frequency", "first_step", "last_step",
    "failed_code"}], "blacklisted": false}}. The arena's importer reads these files.
    """

    DEFAULT_TOP_K = 8

    def __init__(self, mistake_book_dir, current_step, top_k=DEFAULT_TOP_K):
        self.mistake_book = {}
        self.mistake_book_dir = mistake_book_dir
        self.top_k = top_k
        self.step = max(int(current_step), 0) + 1
        self.load(current_step)

    def _path(self, step):
        return os.path.join(self.mistake_book_dir, socket.gethostname(), "mistake_book_step_%d.json" % step)

    def load(self, step):
        path = self._path(step)
        if os.path.exists(path):
            with open(path) as f:
                self.mistake_book = json.load(f)

    def save(self, step):
        os.makedirs(os.path.dirname(self._path(step)), exist_ok=True)
        with open(self._path(step), "w") as f:
            json.dump(self.mistake_book, f, indent=2)
        self.step = step + 1

    def is_blacklisted(self, question_id):
        return bool(self.mistake_book.get(question_id, {}).get("blacklisted", False))

    def book(self):
        """The arena form, {task: [entry...]}."""
        return {q: [_arena_entry(tc) for tc in v.get("attack_testcases", [])] for q, v in self.mistake_book.items() if v.get("attack_testcases")}

    def get_attack_testcases(self, question_id, max_count=8):
        return [e["test"] for e in top_mistakes(self.book(), question_id, min(max_count, self.top_k))]

    def update(self, question_id, new_attack_testcases, old_attack_testcases_passed, all_pass_rate=0.0, failed_codes=None):
        codes = failed_codes if failed_codes is not None else [""] * len(new_attack_testcases)
        outcome = {"passed": list(old_attack_testcases_passed), "failed": [{"test": t, "code": c} for t, c in zip(new_attack_testcases, codes)]}
        book, _ = update_mistake_book(self.book(), question_id, self.step, outcome)
        entry = self.mistake_book.setdefault(question_id, {"attack_testcases": [], "blacklisted": False})
        entry["attack_testcases"] = [
            {"testcase": e["test"], "frequency": e["frequency"], "first_step": e["first_step"], "last_step": e["last_step"], "failed_code": e["failed_code"]}
            for e in book.get(question_id, [])
        ]


def _arena_entry(tc):
    return {"test": tc["testcase"], "frequency": tc["frequency"], "first_step": tc.get("first_step", 0),
            "last_step": tc.get("last_step", 0), "failed_code": tc.get("failed_code", "")}


def reference_update_mistake_book(mistake_book, question_ids, n_samples_a, n_samples_b, generated_code_list, is_code_valid_list,
                                  attack_gen_total, attack_gen_passed_tcs, gen_adv_total_phase2, gen_adv_passed_phase2,
                                  gen_failed_tcs_phase2):
    """The reference's reward.py `update_mistake_book`, argument for argument: per task, the stored
    tests its valid codes passed and the new tests they failed, plus (for an ArenaMistakeBook) the
    program each new test failed. Codes of task q are [q n_a, (q + 1) n_a); suites of code i are
    [i n_b, (i + 1) n_b)."""
    if mistake_book is None:
        return
    arena_book = isinstance(mistake_book, ArenaMistakeBook)
    for qidx, qid in enumerate(question_ids):
        all_pass_rates, new_tests, new_codes, old_passed = [], [], [], []
        for code_idx in range(qidx * n_samples_a, (qidx + 1) * n_samples_a):
            if not is_code_valid_list[code_idx]:
                all_pass_rates.append(0)
                continue
            attack_total = attack_gen_total[code_idx]
            attack_passed = len(attack_gen_passed_tcs[code_idx])
            old_passed.extend(attack_gen_passed_tcs[code_idx])
            gen_total = gen_passed = 0
            for tc_idx in range(code_idx * n_samples_b, (code_idx + 1) * n_samples_b):
                gen_total += gen_adv_total_phase2[tc_idx]
                gen_passed += gen_adv_passed_phase2[tc_idx]
                new_tests.extend(gen_failed_tcs_phase2[tc_idx])
                new_codes.extend([generated_code_list[code_idx]] * len(gen_failed_tcs_phase2[tc_idx]))
            gen_rate = gen_passed / gen_total if gen_total > 0 else 0
            attack_rate = attack_passed / attack_total if attack_total > 0 else 0
            all_pass_rates.append((attack_rate + gen_rate) / 2.0 if attack_total > 0 else gen_rate)
        avg = sum(all_pass_rates) / len(all_pass_rates) if all_pass_rates else 0
        if arena_book:
            mistake_book.update(qid, new_tests, old_passed, avg, failed_codes=new_codes)
        else:
            mistake_book.update(qid, new_tests, old_passed, avg)


def use_arena_mistake_book(trainer_cls):
    """Make `trainer_cls.fit` (the reference's ACGRayTrainer) build ArenaMistakeBook instead of its
    module's MistakeBook, with top_k from its config's reward_model.reward_kwargs.mistake_book_top_k
    (fit constructs `MistakeBook(dir, step)` by module-global lookup, so rebinding it there is enough)."""
    module = sys.modules[trainer_cls.__module__]
    fit = trainer_cls.fit
    if getattr(fit, "_arena", False):
        return

    @functools.wraps(fit)
    def arena_fit(self, *args, **kwargs):
        kwargs_cfg = self.config_a.reward_model.get("reward_kwargs", None) or {}
        top_k = int(kwargs_cfg.get("mistake_book_top_k", ArenaMistakeBook.DEFAULT_TOP_K))
        module.MistakeBook = functools.partial(ArenaMistakeBook, top_k=top_k)
        return fit(self, *args, **kwargs)

    arena_fit._arena = True
    trainer_cls.fit = arena_fit
