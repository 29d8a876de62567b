/**
 * The harness is one file for Pyodide and native CPython (the benchmark runs it under python3):
 * both must judge the same batch identically. Skipped where no python3 >= 3.11 is installed.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createNodeGrader } from "../../../src/node/grader.ts";
import { gradeNative, nativePythonAvailable } from "../../../src/node/python-native.ts";
import { standardBatch } from "../../../scripts/bench/executor.ts";
import type { Grader, GradeRequest, GradeResult } from "../../../src/core/grader/types.ts";

const native = nativePythonAvailable();
let grader: Grader;
beforeAll(async () => {
  if (native) grader = await createNodeGrader();
});
afterAll(async () => {
  await grader?.close();
});

it.runIf(native)("Pyodide and python3 give the same result on the benchmark batch", async () => {
  const request = standardBatch(7);
  request.suites = request.suites!.slice(0, 96); // 12 codes' worth keeps this quick
  request.golden = [{ code: 0, text: "assert f([1]) == 1\nassert f([2, 2]) == 9" }];
  const inPyodide = await grader.grade(request);
  const { result: inPython } = await gradeNative(request);
  expect(inPython).toEqual(inPyodide);
  const verdicts = new Set(inPyodide.suites.flat().map((l) => `${l.validity}/${l.verdict}`));
  for (const seen of ["valid/pass", "valid/fail", "wrong-answer/pass", "invalid/skipped"]) expect(verdicts).toContain(seen);
});

// Candidates that poison everything an honest candidate (or the harness) relies on.
const REACH_SYS =
  "sys = [g['sys'] for c in object.__subclasses__() for fn in vars(c).values() if type(fn).__name__ == 'function'" +
  " for g in [fn.__globals__] if type(g.get('sys')).__name__ == 'module'][0]\n";
const POISONS = [
  "sys.modules['heapq'] = type(sys)('heapq')\nsys.modules['collections'].heapq = None",
  "sys.modules['re']._cache.clear()\nsys.modules['re'].compile = lambda *a, **k: None\nsys.modules['re'].findall = lambda *a, **k: ['x']",
  "sys.set_int_max_str_digits(640)",
  "sys.modules['collections'].Counter.most_common = lambda *a: [('x', 0)]",
  "sys.modules['ast'].AST.lineno = property(lambda s: 1 / 0)\nsys.modules['ast'].Constant.value = property(lambda s: None)",
  "sys.modules['json'].loads = lambda *a, **k: [['t', []]]\nsys.modules['json'].dumps = lambda *a, **k: '[]'",
  "sys.modules['math'].floor = lambda x: 0\nsys.modules['string'].ascii_lowercase = 'z'",
  "len.__self__.max = lambda *a, **k: 0\nlen.__self__.sorted = lambda *a, **k: []",
  "sys.modules['functools'].reduce = lambda *a: 0\nsys.modules['operator'].itemgetter = lambda *a: (lambda x: 0)",
  "import os\nos.close(1)\nos.close(2)".replace("import os", "os = sys.modules['os']"),
].map((p) => `${REACH_SYS}${p}\ndef f(xs):\n    return 0`);
// Honest candidates that use what the poisons touch; their suites mix passing and failing lines.
const HONEST = [
  "import heapq\nfrom collections import Counter\ndef f(xs):\n    return heapq.nlargest(2, xs) + [Counter(xs).most_common(1)[0][0]]",
  "import re\ndef f(xs):\n    return re.findall('[0-9]+', ' '.join(str(x) for x in xs))",
  "def f(xs):\n    return len(str(10 ** (700 + len(xs))))",
  "import math, string, functools, operator\ndef f(xs):\n    return [math.floor(x / 2) for x in xs] + [string.ascii_lowercase[len(xs)], functools.reduce(operator.add, xs, 0)]",
  "def f(xs):\n    return max(sorted(xs))",
];
const SUITE = "assert f([3, 1, 3]) == [3, 3, 3]\nassert f([12, 5]) == ['12', '5']\nassert f([2]) == 702\nassert f([1, 4]) == 4\nassert f([7, 8, 9]) == [3, 4, 4, 'd', 24]";
const honestTask = { id: "any", entry_point: "f", reference: "def f(xs):\n    return None" };

it.runIf(native)("after poisoning candidates, honest ones get exactly clean CPython's verdicts, in the same and the next batch", async () => {
  const codes = POISONS.flatMap((p, i) => [p, HONEST[i % HONEST.length]]);
  const request = (list: string[]): GradeRequest => ({
    tasks: [honestTask],
    codes: list.map((code) => ({ task: "any", code })),
    golden: list.map((_, code) => ({ code, text: SUITE })),
    limits: { test_ms: 5000, load_ms: 5000 },
  });
  const verdicts = (r: GradeResult) => r.golden.map((s) => s.map((l) => `${l.verdict}:${l.reason}`));
  const clean = verdicts((await gradeNative(request(HONEST))).result);
  expect(clean.flat().some((v) => v.startsWith("pass"))).toBe(true);
  expect(clean.flat().some((v) => v.startsWith("fail"))).toBe(true);
  const mixed = verdicts(await grader.grade(request(codes)));
  const honestInMixed = mixed.filter((_, i) => i % 2 === 1);
  expect(honestInMixed).toEqual(POISONS.map((_, i) => clean[i % HONEST.length]));
  // The next batch on the same grader: as clean.
  expect(verdicts(await grader.grade(request(HONEST)))).toEqual(clean);
}, 180_000);
