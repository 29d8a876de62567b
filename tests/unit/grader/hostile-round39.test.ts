/**
 * Round 39: a stranger agent on cb78f9d, ~30 minutes. Each test asserts CPython's truth first (a clean
 * Pyodide: the program exec'd, then each line exec'd in its namespace), then that the grader's verdict
 * is that truth or a refusal (grade-lines.ts OK_PASS / OK_FAIL). Tests here FAIL on cb78f9d.
 *
 * A. The entry point's caller is a harness frame, and warnings see it (no `sys._getframe`, no search).
 *    CPython's `exec(line, ns)` runs the line as a `<string>` frame whose globals are the program's
 *    namespace; `warnings.warn(msg, stacklevel=2)` from the entry point (the ordinary idiom of a
 *    library function) attributes the warning to that frame: its registry `__warningregistry__` is
 *    created in the PROGRAM's globals, its filename is `<string>`. In the grader the caller is
 *    `_deeper` / `_call` (harness.py): the registry goes into the harness's namespace and the
 *    filename is `harness.py`. A reference that reports either is judged against the grader's answer
 *    (a true line `wrong-answer`, corrected to a line CPython calls false); a candidate can tell.
 *    Root cause (a guess): harness `_call` calls `fn(*args)` through `_deeper` instead of running the
 *    call from a frame of a code object exec'd in the program's namespace (filename `<string>`).
 *
 * B. The module table is not a clean Pyodide's: setup preloads `_pylong` and `unicodedata`
 *    (harness `setup`, `_C_IMPORTS`), which a clean Pyodide loads only when a program first needs
 *    them. `'_pylong' in collections._sys.modules` is False in CPython, True in the grader: no import,
 *    no frame, no harness object. A wrong program that answers right only under the grader passes.
 *
 * C. The runner's environment names the host's grader script: `os.environ['_']` (set by
 *    Emscripten from the runner process's argv[1]) is `<repo>/src/node/grader-child.mjs`, captured in
 *    the base snapshot (also a host path leak into the sandbox). A clean Pyodide has its own caller's
 *    script there. Root cause (a guess): RUNNER_ENV (runner.js) does not pin `_` (or the runner does
 *    not drop it), so `loadPyodide`'s env keeps Emscripten's default.
 *
 * Fixed: A, harness `_call` runs the call as `r = f(*a)`, a '<string>' module code exec'd with the
 * program's namespace as globals (and, since round 40, locals: `BOX[0](*BOX[1])`), the last of the depth pad's
 * frames (round 21's caller-name test passes since); A1/A2 now want exactly CPython's verdict. C,
 * RUNNER_ENV pins `_` to the browser's "./this.program" in every runner (fresh or from the base
 * snapshot, whose recipe is raised) and in the truth interpreters. B stays open (Not guaranteed: the
 * module table is the grader's; Pyodide's own modules are gone by rule 1, and a C-level import of
 * `_pylong` or `unicodedata` inside a unit would load code outside the restored heap): `it.fails`.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, UNWARN } from "./grade-lines.ts";

const { suiteTruth } = cleanPython();
const grader = sharedNodeGrader();

const REGISTRY = [
  "import collections",
  "def f():",
  "    collections._sys.modules['warnings'].warn('deprecated', stacklevel=2)",
  "    return '__warningregistry__' in globals()",
].join("\n");

const FILENAME = [
  "import collections",
  "def f():",
  "    w = collections._sys.modules['warnings']",
  "    with w.catch_warnings(record=True) as seen:",
  "        w.simplefilter('always')",
  "        w.warn('deprecated', stacklevel=2)",
  "    return seen[0].filename",
].join("\n");

describe("A. the entry point's caller is the harness's frame: stacklevel=2 warnings see it (harness `_call` / `_deeper`)", () => {
  it("A1. generated: a reference whose warning registry lands in its globals in CPython is judged on the grader's", async () => {
    const lines = ["assert f() == True"];
    expect(suiteTruth(REGISTRY, [...lines, UNWARN])).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REGISTRY, lines, REGISTRY);
    expect(got[0], got.join(" | ")).toBe("valid/pass");
  }, 300_000);

  it("A2. golden: a warning's filename is '<string>' in CPython, 'harness.py' in the grader", async () => {
    const lines = ["assert f() == '<string>'"];
    expect(suiteTruth(FILENAME, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", FILENAME, lines, FILENAME);
    expect(got[0], got.join(" | ")).toBe("valid/pass");
  }, 300_000);
});

describe("B. the module table holds what setup preloaded (harness `setup`, `_C_IMPORTS`)", () => {
  // Open (docs/SECURITY.md, Not guaranteed: the module table is the grader's).
  it.fails("B1. golden: a wrong program that answers right only where _pylong is preloaded passes", async () => {
    const reference = "def f(n):\n    return n * 2";
    const wrong = "import collections\ndef f(n):\n    return n * 2 if '_pylong' in collections._sys.modules else n * 3";
    const lines = ["assert f(21) == 42"];
    expect(suiteTruth(wrong, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", reference, lines, wrong);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

describe("C. os.environ['_'] names the grader's runner script (runner.js RUNNER_ENV, base snapshot)", () => {
  it("C1. golden: a wrong program that answers right only under grader-child.mjs passes", async () => {
    const reference = "def f(n):\n    return n * 2";
    const wrong = "import collections\ndef f(n):\n    e = collections._sys.modules['os'].environ.get('_', '')\n    return n * 2 if e.endswith('grader-child.mjs') else n * 3";
    const lines = ["assert f(21) == 42"];
    expect(suiteTruth(wrong, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", reference, lines, wrong);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});
