/**
 * The truth the hostile tests compare the grader with: a clean Pyodide (the grader's CPython 3.14,
 * hash seed 0 as the runners). `cleanPython()` loads one for a test file in beforeAll; `freshTruth`
 * loads a new one per question, for truths the interpreter's history would change (its intern table).
 */
import { beforeAll } from "vitest";
import { loadPyodide, type PyodideInterface } from "pyodide";
import { pinLocalTime, RUNNER_ENV } from "../../../src/core/grader/runner.js";

/** Python's warnings and tracebacks on the truth interpreters' stderr: not the test log's. */
const quiet = () => undefined;
/** A truth interpreter as `python3 prog.py < /dev/null`: the runners' environment (local time UTC), stdin at EOF. */
const clean = () => {
  pinLocalTime(globalThis);
  return loadPyodide({ env: { ...RUNNER_ENV }, stdin: () => null, stderr: quiet });
};

/**
 * Per line of `lines` (one suite) on `py`: whether it holds (neither fails nor raises), the program
 * exec'd once into a namespace, then the lines in it in order. Nothing is set before the program (a
 * warning filter set here hid round 31 D: the truth is a clean interpreter's defaults); the warning
 * filters a question changed are put back after it, for the next question on the same interpreter.
 */
function suiteOn(py: PyodideInterface, code: string, lines: string[]): boolean[] {
  return JSON.parse(py.runPython(`
import json, warnings
with warnings.catch_warnings():  # the filters as they were after, for the next question
    _ns = {}
    exec(${JSON.stringify(code)}, _ns)
    _out = []
    for _line in json.loads(${JSON.stringify(JSON.stringify(lines))}):
        try:
            exec(_line, _ns)
            _out.append(True)
        except Exception:  # an assert that fails, or a line that raises: it does not hold
            _out.append(False)
json.dumps(_out)`) as string) as boolean[];
}

export function cleanPython() {
  let py: PyodideInterface | undefined;
  beforeAll(async () => {
    py = await clean();
  }, 120_000);
  const suiteTruth = (code: string, lines: string[]): boolean[] => {
    if (!py) throw new Error("the clean interpreter exists once its test file's beforeAll ran");
    return suiteOn(py, code, lines);
  };
  /** Whether `line` holds for `code` (the program exec'd, then the line in its namespace). */
  const holds = (code: string, line: string): boolean => suiteTruth(code, [line])[0];
  return { suiteTruth, holds };
}

/** As `suiteTruth`, in an interpreter of its own that nothing ran in before. */
export async function freshTruth(code: string, lines: string[]): Promise<boolean[]> {
  return suiteOn(await clean(), code, lines);
}
