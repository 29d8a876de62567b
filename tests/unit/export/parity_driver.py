"""Runs src/core/export/arena_reward.py on the duel records of an arena run (reward-parity.test.ts).

parity(payload_json) -> result_json, in Pyodide (the test imports this file) and in CPython
(`python3 parity_driver.py MODULE_DIR [parity|literals|grade] < payload.json`). Payload: {alpha, n, topvar_k, top_k,
steps: [{step, records: [DuelRecord]}], pairs: [[canonical a, canonical b]]}.
"""
import json
import sys


def parity(payload_json):
    import arena_reward as ar

    import tempfile

    p = json.loads(payload_json)
    book = {}
    records = []
    # The reference-interface Mistake Book, fed as the reference's update_mistake_book feeds it.
    mb_dir = tempfile.mkdtemp()
    mb = ar.ArenaMistakeBook(mb_dir, 0, top_k=p["top_k"])
    mb_shown = []
    for st in p["steps"]:
        for rec in st["records"]:
            mb_shown.append(mb.get_attack_testcases(rec["task"], max_count=8))
            shown = [e["test"] for e in ar.top_mistakes(book, rec["task"], p["top_k"])]
            s = ar.score_task(rec, p["alpha"], p["n"], p["topvar_k"])
            book, delta = ar.update_mistake_book(book, rec["task"], st["step"], s["outcome"])
            failed = s["outcome"]["failed"]
            mb.update(rec["task"], [f["test"] for f in failed], s["outcome"]["passed"], 0.0, failed_codes=[f["code"] for f in failed])
            # The reference's reward manager path: one compute_dual_model_reward call per pair.
            adapter = []
            for c in rec["codes"]:
                hist = c["mistake_book_lines"]
                row = []
                for suite in c["suites"]:
                    executable = [l for l in suite["lines"] if l["validity"] != "invalid"]
                    r = ar.compute_dual_model_reward(
                        is_code_valid=c["status"] == "ok", gt_passed=-1, gt_total=-1, gt_failed_msgs=[],
                        valid_generated_tests=[l["corrected"] for l in executable],
                        invalid_count=sum(1 for l in suite["lines"] if l["validity"] != "valid"),
                        total_generated_count=len(suite["lines"]),
                        gen_passed=sum(1 for l in executable if l["verdict"] == "pass"),
                        gen_failed_msgs=["" if l["verdict"] == "pass" else l["verdict"] for l in executable],
                        attack_gen_total=len(hist), attack_gen_passed=sum(1 for l in hist if l["verdict"] == "pass"),
                        alpha=p["alpha"], tests_per_suite=p["n"],
                    )
                    row.append([r["reward_a"], r["reward_b"]])
                adapter.append(row)
            records.append({"step": st["step"], "task": rec["task"], "shown": shown, "scores": s, "delta": delta, "adapter": adapter})
        mb.save(st["step"])
    reloaded = ar.ArenaMistakeBook(mb_dir, p["steps"][-1]["step"], top_k=p["top_k"]).book()
    equal = []
    normal = []
    for a, b in p["pairs"]:
        va, vb = ar.from_canonical(a), ar.from_canonical(b)
        equal.append(ar.same_value(va, vb))
        normal.append([ar.canonical(va), ar.canonical(vb)])
    return json.dumps({"records": records, "book": book, "class_book": mb.book(), "class_reloaded": reloaded, "class_shown": mb_shown, "equal": equal, "normal": normal}, allow_nan=False)


def literals(values_json):
    """Phase 1 of the grading check: the corrected-line literal of each canonical value as the harness
    sends it (None: none, or one past a test line's limits, which the harness answers with an error)."""
    import arena_reward as ar

    def sent(lit):
        return None if lit is None or len(lit) > ar.MAX_LINE_CHARS or ar._nesting(lit) > ar.MAX_NESTING else lit

    return json.dumps([sent(ar.literal(ar.from_canonical(c))) for c in json.loads(values_json)])


def grade(cases_json):
    """Phase 2: grade_suite on each case {lines, reference, candidate}; outcomes as [kind, canonical or message]."""
    import arena_reward as ar

    def outcome(o):
        return ("ok", ar.from_canonical(o[1])) if o[0] == "ok" else tuple(o)

    out = []
    for case in json.loads(cases_json):
        lines = [{k: l[k] for k in ("invalid", "opaque", "side") if k in l} if "invalid" in l else {"call": l["call"], "args": l["args"], "answer": ar.from_canonical(l["answer"])} for l in case["lines"]]
        reference = {k: outcome(o) for k, o in case["reference"].items()}
        candidate = None if case["candidate"] is None else {k: outcome(o) for k, o in case["candidate"].items()}
        out.append(ar.grade_suite(lines, reference, candidate))
    return json.dumps(out)


def dump_rewards(pairs_json):
    """What the reference's reward manager puts in a dump with arena_reward: compute_dual_model_reward
    per pair, given the reference's inputs ({kwargs})."""
    import arena_reward as ar

    return json.dumps([ar.compute_dual_model_reward(**kw) for kw in json.loads(pairs_json)])


if __name__ == "__main__" and len(sys.argv) > 1:  # not under Pyodide, whose __name__ is also __main__
    sys.path.insert(0, sys.argv[1])
    sys.stdout.write({"parity": parity, "literals": literals, "grade": grade, "dump_rewards": dump_rewards}[sys.argv[2] if len(sys.argv) > 2 else "parity"](sys.stdin.read()))
