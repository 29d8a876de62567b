/**
 * The supervisor: grades a batch with two kinds of runner (src/core/grader/runner.js) and decides
 * every verdict itself (verdicts.ts). Shared by the Node host (child processes under Node's
 * permission model) and the browser host (module Web Workers) through `SpawnRunner`.
 *
 *   judge    parses the lines and runs the references: trusted code only, never a candidate;
 *   sandbox  runs each candidate as one unit, from a pristine interpreter (memory restored);
 *            a killed one is replaced (optionally by a warm spare).
 *
 * Time: each step (a load or a call) has its limit; the runner interrupts a step past it. A step
 * that still has not ended `killGraceMs` later (a loop inside one C call, an interrupt swallowed)
 * gets its runner killed: the step is a `timeout`, the rest of its suite is not run (`timeout`),
 * and the candidate's later suites go on, on a fresh runner (or the spare), without that call; a
 * second kill ends the candidate (its remaining calls `timeout`, not run). A runner that dies by
 * itself costs the step in flight an `error` and ends the candidate. At most two kills per candidate.
 */
import { checkRequest } from "./request.ts";
import { callText, candidateLines, cutAfterOpaque, emptyResult, suiteLines, judgeCandidate, parsePlan, parseStep, referenceCalls, referenceKey, type CandidateRun, type Plan, type PlanLine, type ReferenceOutputs, type StepResult, type UnitSteps } from "./verdicts.ts";
import type { RunnerEvent, RunnerRequest, RunnerRole, RunnerUnit } from "./runner.js";
import type { Grader, GradeLimits, GradeProgress, GradeRequest, GradeResult, StartProgress } from "./types.ts";

/** One live runner process or worker. `onEvent`/`onExit` were given to SpawnRunner. */
export interface RunnerHost {
  send(request: RunnerRequest): void;
  terminate(): Promise<void>;
}

/**
 * Start a runner and resolve once it is ready (Pyodide loaded, interpreter locked down), or reject
 * with why it could not start. Events for requests arrive on `onEvent`; `onExit` is called once if
 * it dies or is terminated. `signal` aborts a start that takes too long: the spawner ends the
 * worker or process it started (the supervisor has given up on it already).
 */
export type SpawnRunner = (role: RunnerRole, onEvent: (event: RunnerEvent) => void, onExit: (why: string) => void, signal?: AbortSignal) => Promise<RunnerHost>;

export class RunnerDiedError extends Error {
  override name = "RunnerDiedError";
}

export class GraderClosedError extends Error {
  override name = "GraderClosedError";
}

/** A runner that was not ready within `startTimeoutMs`: not retried (a start that hangs hangs again). */
export class RunnerStartTimeoutError extends RunnerDiedError {
  override name = "RunnerStartTimeoutError";
}

export interface SupervisorOptions {
  /** Extra time after a step's limit before its runner is killed, ms (default: max(200, limit)). */
  killGraceMs?: number;
  /**
   * Keep one spare sandbox booted (default false): a kill then costs a hand-over instead of a
   * Pyodide start. Kills are rare (a loop that is interrupted in Python costs none), and a spare
   * costs an interpreter's memory and a start on a small machine.
   */
  warmSpare?: boolean;
  /** Give up after this many runner starts in a row that fail (default 3). */
  maxFailedStarts?: number;
  /**
   * A runner that is not ready this long after its start is ended and the request fails at once,
   * without retries (a start that hangs once hangs again: Pyodide's files not arriving, a wasm
   * instantiation that never settles). Default 120,000 ms; a cold start takes about 11 s in
   * Chromium here (npm run bench -- newcomer).
   */
  startTimeoutMs?: number;
}


/** A Grader that also says how many runners it has started: sandboxes (spares included, 1 + kills) and judges. */
export interface SupervisedGrader extends Grader {
  readonly spawns: number;
  /** Judge runners started: 1, plus one per reference kill (no test line restarts it: the parse never fails a batch). */
  readonly judgeSpawns: number;
  /**
   * Runs one untrusted program as a candidate is run (sandbox, pristine interpreter, each step
   * within its limit, a kill past it) and resolves with the raw result of each step: its load, then
   * one per call, stopping after a timeout. For callers that need a program's values rather than
   * verdicts: an imported task's reference, run on drawn inputs (src/core/arena/importers/arenise-sandbox.ts).
   * Queued with grade().
   */
  runUnit(unit: Omit<RunnerUnit, "literal">): Promise<UnitSteps>;
  /**
   * Start the judge and the sandbox now (queued with grade()), so that their cold start is a phase
   * of its own and not hidden inside the first batch; resolves when both are ready, rejects with
   * why one did not start.
   */
  warm(onProgress?: (p: StartProgress) => void): Promise<void>;
  /**
   * End every runner and fail the request in flight with `why` (and a start in progress): for a
   * caller whose own watchdog gave up on a batch. The grader stays usable: the next request starts
   * fresh runners.
   */
  halt(why: string): Promise<void>;
}

interface Live {
  host: Promise<RunnerHost>;
  /** Give up a start still in progress (its spawn is aborted). */
  cancel(why: string): void;
  /** The request in flight and where its events go. */
  pending: ((event: RunnerEvent) => void) | null;
  exited: ((why: string) => void) | null;
  dead: string | null;
}

/** One role's runners: the live one, an optional warm spare, and the kill-and-replace logic. */
class RunnerSlot {
  private live: Live | null = null;
  private spare: Live | null = null;
  private nextId = 1;
  private failedStarts = 0;
  started = 0;
  closed = false;
  /** Set by halt(): requests fail with it until the next request of the queue begins (resume()). */
  private halted: string | null = null;

  constructor(
    private readonly role: RunnerRole,
    private readonly spawn: SpawnRunner,
    private readonly warmSpare: boolean,
    private readonly maxFailedStarts: number,
    private readonly startTimeoutMs: number,
  ) {}

  private start(): Live {
    this.started++;
    const abort = new AbortController();
    const live: Live = { host: null as unknown as Promise<RunnerHost>, cancel: () => undefined, pending: null, exited: null, dead: null };
    const spawned = this.spawn(
      this.role,
      (event) => live.pending?.(event),
      (why) => {
        live.dead ??= why;
        live.exited?.(why);
      },
      abort.signal,
    );
    live.host = new Promise<RunnerHost>((resolve, reject) => {
      let settled = false;
      const giveUp = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        abort.abort(error);
        reject(error);
      };
      const timer = setTimeout(() => giveUp(new RunnerStartTimeoutError(
        `the grader's ${this.role} did not start within ${+(this.startTimeoutMs / 1000).toFixed(1)} s (Pyodide never finished loading)`)), this.startTimeoutMs);
      live.cancel = (why) => giveUp(new RunnerDiedError(why));
      spawned.then(
        (host) => {
          if (settled) return void host.terminate().catch(() => undefined); // given up on: not used
          settled = true;
          clearTimeout(timer);
          resolve(host);
        },
        (e: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
    live.host.then(() => (this.failedStarts = 0), () => undefined);
    return live;
  }

  /** End every runner of this role, a start in progress included; requests fail with `why` until resume(). */
  async halt(why: string): Promise<void> {
    this.halted = why;
    const spare = this.spare;
    this.spare = null;
    for (const live of [this.live, spare]) live?.cancel(why);
    await Promise.all([this.retire(), spare?.host.then((h) => h.terminate(), () => undefined)]);
  }

  /** A new request begins: a halt no longer applies. */
  resume(): void {
    this.halted = null;
  }

  private take(): Live {
    if (!this.live) {
      this.live = this.spare ?? this.start();
      this.spare = null;
    }
    // The spare boots once the live runner is up, not beside it: two Pyodide starts at once on a
    // small machine delay the first batch.
    const live = this.live;
    void live.host.then(() => {
      if (this.warmSpare && !this.spare && !this.closed && this.live === live) this.spare = this.start();
    }, () => undefined);
    return live;
  }

  /** Wait until a runner of this role is ready (started if need be). */
  async ensure(): Promise<void> {
    await this.ready();
  }

  /** Kill the live runner (it is replaced on the next request). */
  async retire(): Promise<void> {
    const live = this.live;
    this.live = null;
    if (live) await (await live.host.catch(() => null))?.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    const spare = this.spare;
    this.spare = null;
    await Promise.all([this.retire(), spare?.host.then((h) => h.terminate(), () => undefined)]);
  }

  private async ready(): Promise<{ live: Live; host: RunnerHost }> {
    for (;;) {
      if (this.closed) throw new GraderClosedError("the grader was closed");
      if (this.halted) throw new RunnerDiedError(this.halted);
      const live = this.take();
      try {
        const host = await live.host;
        if (!live.dead) return { live, host };
      } catch (e) {
        if (this.live === live) this.live = null;
        if (this.halted) throw new RunnerDiedError(this.halted);
        if (e instanceof RunnerStartTimeoutError) {
          this.failedStarts = 0;
          throw e;
        }
        if (++this.failedStarts >= this.maxFailedStarts) {
          throw new RunnerDiedError(`the grader's ${this.role} did not start (${this.failedStarts} tries): ${(e as Error).message}`);
        }
        continue;
      }
      if (this.live === live) this.live = null;
    }
  }

  /** Parse a request's lines (judge); `suites` and `golden` are how many the request has. */
  async plan(requestJson: string, suites: number, golden: number): Promise<Plan> {
    const { live, host } = await this.ready();
    const id = this.nextId++;
    return new Promise<Plan>((resolve, reject) => {
      const fail = (why: string) => {
        finish();
        void this.retire();
        reject(new RunnerDiedError(`the grader's judge failed while parsing lines: ${why}`));
      };
      const timer = setTimeout(() => fail("no answer in 60 s"), 60_000);
      const finish = () => {
        clearTimeout(timer);
        live.pending = live.exited = null;
      };
      live.exited = fail;
      live.pending = (event) => {
        if (event.type === "plan" && event.id === id) {
          const plan = parsePlan(event.plan, suites, golden);
          if (!plan) return fail("malformed plan");
          finish();
          resolve(plan);
        } else if (event.type === "failed") fail(String(event.error));
      };
      host.send({ type: "plan", id, request: requestJson });
    });
  }

  /**
   * Run one unit; resolve with its steps (never rejects for the candidate's doing: a kill or a
   * crash becomes the step's `timeout` or `error`). `onStep` sees each step as it ends.
   * `stopped`: ended with a step in flight (a kill, a crash, a broken protocol); `retired`: its
   * runner is gone either way (also a unit that ended unfit, a grown heap, a restore past its time):
   * the next unit pays a runner start, so a caller makes no more units of that candidate or suite.
   */
  async unit(unit: RunnerUnit, killGrace: (limit: number) => number, onStep: () => void): Promise<{ steps: UnitSteps; stopped: boolean; retired: boolean }> {
    const { live, host } = await this.ready();
    const id = this.nextId++;
    const steps: UnitSteps = [];
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      // A call after a reload (`fresh`) has the reload's time too.
      const fresh = new Set(unit.fresh ?? []);
      const limitOf = (step: number) => (step === 0 ? unit.loadMs : unit.testMs + (fresh.has(step - 1) ? unit.loadMs : 0));
      /** Whether the runner has sent every step it will (the rest of a unit is not run after a failed load or a timeout). */
      const complete = () => steps.length === unit.calls.length + 1 || (steps.length > 0 && (steps[0][0] !== "ok" || steps[steps.length - 1][0] === "timeout"));
      // A kill waits one more turn of the event loop: a step or `done` that came in while the host's
      // thread was held past the kill time (its own work, a collection, a loaded machine) is read
      // first, as Node runs expired timers before it reads a pipe. A busy host is not a slow program.
      const expire = (kill: () => void) => () => (timer = setTimeout(kill, 0));
      const arm = () => {
        clearTimeout(timer);
        if (complete()) {
          // Its last step is in: the runner checks and restores its memory before `done`, within one
          // call's time (round 55: a heap grown by gigabytes, even untouched, takes seconds to
          // zero-fill). Past it the runner is killed with no step in flight: the unit's verdicts
          // stand, and the runner start is the program's, as a grown heap's retirement is.
          timer = setTimeout(expire(() => end(null, true)), unit.testMs + killGrace(unit.testMs));
          return;
        }
        const limit = limitOf(steps.length);
        timer = setTimeout(expire(() => end(["timeout", `killed after exceeding ${limit} ms`], true)), limit + killGrace(limit));
      };
      const end = (inFlight: StepResult | null, kill: boolean) => {
        clearTimeout(timer);
        live.pending = live.exited = null;
        if (inFlight && !complete()) steps.push(inFlight);
        if (kill) void this.retire();
        resolve({ steps, stopped: inFlight !== null, retired: kill });
      };
      live.exited = (why) => end(["error", `the sandbox crashed: ${why}`], true);
      // Anything off protocol (a runner that ran untrusted code may send anything) ends the unit,
      // charged to its candidate, and retires the runner.
      const broken = (what: string) => end(["error", `the sandbox broke its protocol: ${what}`], true);
      live.pending = (event) => {
        if (!event || typeof event !== "object" || !("id" in event) || (event.id !== id && event.id !== -1)) return;
        if (event.type === "step") {
          if (event.step !== steps.length || steps.length > unit.calls.length) return broken("a step out of order");
          // Step 0 is the load; a compile-only line (["C", text]) answers as a load does.
          const step = parseStep(event.result, steps.length === 0 || unit.calls[steps.length - 1].startsWith('["C"') ? "load" : "call");
          if (!step) return broken("a malformed result");
          steps.push(step);
          onStep();
          arm();
        } else if (event.type === "done") {
          if (!complete()) return broken("it stopped early");
          end(null, event.fit !== true);
        } else if (event.type === "failed") {
          end(["error", `the sandbox crashed: ${String(event.error)}`], true);
        } else broken("an unknown event");
      };
      arm();
      host.send({ type: "unit", id, unit });
    });
  }
}

export function createSupervisedGrader(spawn: SpawnRunner, options: SupervisorOptions = {}): SupervisedGrader {
  const maxFailedStarts = options.maxFailedStarts ?? 3;
  const startTimeoutMs = options.startTimeoutMs ?? 120_000;
  const judge = new RunnerSlot("judge", spawn, false, maxFailedStarts, startTimeoutMs);
  const sandbox = new RunnerSlot("sandbox", spawn, options.warmSpare ?? false, maxFailedStarts, startTimeoutMs);
  let queue: Promise<unknown> = Promise.resolve();
  /** Run `work` after the requests queued before it; a halt applies to the request in flight only. */
  const enqueue = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(() => {
      judge.resume();
      sandbox.resume();
      return work();
    });
    queue = next.catch(() => undefined);
    return next;
  };
  const killGrace = (limit: number) => options.killGraceMs ?? Math.max(200, limit);
  let closed = false;

  async function run(request: GradeRequest, onProgress?: (p: GradeProgress) => void): Promise<GradeResult> {
    const req = checkRequest(request);
    const { limits } = req;
    const result = emptyResult(req);
    const tasks = new Map(req.tasks.map((t) => [t.id, t]));
    onProgress?.({ phase: "load", done: 0, total: 0, text: "starting the Python sandbox" });
    let total = req.codes.length;
    let done = 0;
    const step = () => onProgress?.({ phase: "grade", done: Math.min(++done, total), total, text: "grading" });

    // 1-2. On the judge, task by task (in the order codes first use them): parse the task's lines,
    // then run its reference once per distinct call. A task's candidates start as soon as its
    // references are in, while the judge goes on with the next task.
    const plan: Plan = { s: [], g: [] };
    const references = new Map<string, { load: StepResult | undefined; outputs: ReferenceOutputs }>();
    const prepared = new Map<string, Promise<void>>();
    let chain = Promise.resolve();
    for (const taskId of new Set(req.codes.map((c) => c.task))) {
      const task = tasks.get(taskId)!;
      chain = chain.then(async () => {
        await planTask(req, taskId, plan);
        const outputs: ReferenceOutputs = new Map();
        let load: StepResult | undefined;
        // Each suite's distinct calls in a unit of their own, each call on a freshly loaded reference
        // (`fresh`: a reference that keeps state between calls, a memo, answers every line as it
        // would alone), suite after suite, each unit from the judge's snapshot: a reference run on
        // hostile arguments (`getattr` with a line's names) can reach the interpreter's state, so
        // nothing of one suite's units may reach another's. A reference is trusted but the arguments
        // are not: after an interrupted call the unit ends and the suite's calls after it run in a new
        // unit; after a kill (or a crash) the rest of that suite is not run, so one suite costs at
        // most one kill, and only its own lines.
        for (const { suite, calls } of referenceCalls(req, plan, taskId)) {
          for (let at = 0; at < calls.length && (load === undefined || load[0] === "ok");) {
            const pending = calls.slice(at);
            total += pending.length + 1; // its calls and the unit's load
            const { steps, stopped, retired } = await judge.unit(
              { code: task.reference, entry: task.entry_point, calls: pending.map(callText), fresh: pending.map((_, i) => i).slice(1), loadMs: limits.load_ms, testMs: referenceMs(limits.test_ms), literal: true },
              killGrace, step);
            load = steps[0];
            for (let i = 1; i < steps.length; i++) outputs.set(referenceKey(suite, pending[i - 1].key), steps[i]);
            const ran = steps.length - 1;
            // After a kill, or a unit that cost the judge (its heap grew): the rest of this suite is not run.
            if (stopped || retired || ran === 0) break;
            at += ran;
          }
        }
        references.set(taskId, { load, outputs });
      });
      prepared.set(taskId, chain);
    }

    // 3. Candidates on the sandbox: each suite of a candidate in a unit of its own, from a pristine
    // interpreter (the memory snapshot), as CPython runs each suite in a process of its own: nothing
    // of one suite (its memo, its garbage and the finalizers that would run on it, state kept outside
    // the module) reaches another suite (round 52: the last suite's finalizers, run by a reload inside
    // the next suite's unit, charged their refusals and their time to it). An interrupted timeout ends
    // its own suite only, and so does a first kill (round 59): the candidate's later suites run on the
    // runner that replaces the killed one (the start a kill costs anyway), without the line that was
    // in flight at the kill (made again it would cost another kill: in any later suite the same line
    // and the rest of its suite are `timeout`, as CPython's process would hang there too). A second kill, a
    // crash or a unit that left its runner unfit ends the candidate: at most two kills and a runner
    // start each. A heap the program grows is kept across its own suites (`more`).
    for (let c = 0; c < req.codes.length; c++) {
      const code = req.codes[c];
      await prepared.get(code.task);
      const lines = candidateLines(req, plan, c, references);
      total += lines.calls.length;
      const run: CandidateRun = { load: undefined, got: new Map(), timedOut: new Set(), ended: null };
      if (code.code.length > MAX_CODE_CHARS) run.load = ["syntax", `code too long (${code.code.length} characters, at most ${MAX_CODE_CHARS})`];
      const { calls } = lines;
      /**
       * The step in flight at this candidate's kill, as the runner was sent it: the line's text (which
       * the step compiles first, where a warning runs the program's hooks: round 60), its arguments.
       * A later suite's step with the same text is the same compile and the same call.
       */
      let killer: string | null = null;
      for (let at = 0; run.load === undefined || (run.load[0] === "ok" && at < calls.length);) {
        let to = at;
        while (to < calls.length && calls[to].group === calls[at].group) to++;
        let pending = calls.slice(at, to);
        const again = killer === null ? -1 : pending.findIndex((call) => callText(call) === killer);
        if (again >= 0) {
          // The killing call and the rest of its suite are not made: `timeout` (not run).
          run.timedOut.add(calls[at].group!);
          pending = pending.slice(0, again);
          if (pending.length === 0) {
            at = to;
            continue;
          }
        }
        const { steps, stopped, retired } = await sandbox.unit({
          code: code.code, entry: tasks.get(code.task)!.entry_point, calls: pending.map(callText),
          loadMs: limits.load_ms, testMs: limits.test_ms, literal: false, more: to < calls.length,
        }, killGrace, step);
        const load = steps[0] ?? (["error", "not run"] as StepResult);
        run.load ??= load;
        if (run.load[0] !== "ok") break; // the program does not load: no line of it runs
        // A later suite's load that failed (a program whose load depends on the clock, say) is the
        // result of each of that suite's calls.
        if (load[0] !== "ok" && !stopped) for (const call of pending) run.got.set(call.key, load);
        for (let i = 1; i < steps.length; i++) run.got.set(pending[i - 1].key, steps[i]);
        if (stopped) {
          const last = steps[steps.length - 1];
          // The step in flight (steps[0] is the load): a killed line, not a load, a crash or a second kill.
          const inFlight: string | null = steps.length >= 2 && last?.[0] === "timeout" && killer === null ? callText(pending[steps.length - 2]) : null;
          if (inFlight === null) {
            run.ended = last ?? null;
            break;
          }
          killer = inFlight;
          run.timedOut.add(calls[at].group!); // the rest of its own suite
          at = to;
          continue;
        }
        // A suite cut short by an interrupted timeout: the rest of it is not run (a failed load
        // answered each of its calls above).
        if (load[0] === "ok" && steps.length - 1 < pending.length) run.timedOut.add(calls[at].group!);
        if (retired) {
          // The unit cost the sandbox a runner start, as a kill does (at most one per candidate): a
          // heap the program grew is kept across its suites (`more`), so before its last unit only a
          // failed load, a restore past its time (round 55) or what no honest program does (a file,
          // a library, a grown function table). Its later suites are not run, and say so: none of
          // them called what timed out in this one (round 57: they were `timeout`).
          run.ended = ["error", "not run: an earlier suite left the sandbox unfit"];
          break;
        }
        at = to;
      }
      judgeCandidate(result, c, lines, run, limits);
    }
    await chain;
    onProgress?.({ phase: "grade", done: total, total, text: "graded" });
    return result;
  }

  /**
   * Parse the suite and golden lines of one task's codes on the judge, into `plan`, a few suites per
   * request (so that no answer grows past what a runner may send).
   */
  async function planTask(req: GradeRequest & { limits: Required<GradeLimits> }, taskId: string, plan: Plan): Promise<void> {
    // Each suite as the lines Python reads (the harness splits and filters them the same way): a
    // generated suite's first max_lines (N), a golden suite whole (round 46: a golden test past N was
    // dropped unread, and its program scored as if it passed).
    const linesOf = (text: string, kind: "s" | "g") => (kind === "s" ? suiteLines(text).slice(0, req.limits.max_lines) : suiteLines(text));
    const mine = (list: GradeRequest["suites"], kind: "s" | "g") =>
      (list ?? []).flatMap((suite, index) => (req.codes[suite.code].task === taskId ? [{ kind, index, lines: linesOf(suite.text, kind) }] : []));
    const all = [...mine(req.suites, "s"), ...mine(req.golden, "g")];
    const task = req.tasks.find((t) => t.id === taskId)!;
    const sub = (suites: string[], golden: string[]) => ({
      tasks: [task],
      codes: [{ task: taskId, code: "" }],
      suites: suites.map((text) => ({ code: 0, text })),
      golden: golden.map((text) => ({ code: 0, text })),
      limits: req.limits,
    });
    // Requests whose answers fit a runner's event line (each line's entry is bounded by its length,
    // planBound): whole suites packed together, a longer suite in parts whose repeats are found
    // here across parts.
    type Part = { kind: "s" | "g"; index: number; lines: string[]; from: number };
    const requests: Part[][] = [];
    let open: Part[] = [];
    let size = 0;
    for (const suite of all) {
      let part: Part = { kind: suite.kind, index: suite.index, lines: [], from: 0 };
      open.push(part);
      suite.lines.forEach((line, n) => {
        const bound = planBound(line);
        if (size + bound > PLAN_REQUEST_CHARS && size > 0) {
          requests.push(open);
          part = { kind: suite.kind, index: suite.index, lines: [], from: n };
          open = [part];
          size = 0;
        }
        part.lines.push(line);
        size += bound;
      });
    }
    if (open.length) requests.push(open);
    const parsed = new Map<string, PlanLine[]>();
    for (const parts of requests) {
      const texts = (kind: "s" | "g") => parts.filter((x) => x.kind === kind).map((x) => x.lines.join("\n"));
      const got = await judge.plan(JSON.stringify(sub(texts("s"), texts("g"))), texts("s").length, texts("g").length).catch(async (e: unknown) => {
        if (!(e instanceof RunnerDiedError)) throw e;
        // A line killed the judge's parser: parse line by line, so only that line is lost.
        const one = async (lines: string[]) => {
          const out: PlanLine[] = [];
          for (const line of lines) {
            // A crash is opaque: CPython may run the line (the lines after it are refused).
            const parsed: PlanLine | undefined = await judge.plan(JSON.stringify(sub([line], [])), 1, 0).then(
              (p) => p.s[0][0],
              () => ["invalid", "the parser crashed on this line", null, null, null, null, 1],
            );
            if (parsed) out.push(parsed);
          }
          return out;
        };
        const lines: Plan = { s: [], g: [] };
        for (const x of parts) (x.kind === "s" ? lines.s : lines.g).push(await one(x.lines));
        return lines;
      });
      const next = { s: 0, g: 0 };
      for (const x of parts) {
        const key = `${x.kind}${x.index}`;
        parsed.set(key, [...(parsed.get(key) ?? []), ...got[x.kind][next[x.kind]++]]);
      }
    }
    for (const suite of all) {
      const lines = parsed.get(`${suite.kind}${suite.index}`) ?? [];
      cutAfterOpaque(lines); // across parts too
      markRepeats(lines); // across parts, and after a line-by-line parse (the harness's own marks otherwise)
      (suite.kind === "s" ? plan.s : plan.g)[suite.index] = lines;
    }
  }

  return {
    grade(request, onProgress) {
      if (closed) return Promise.reject(new GraderClosedError("grade() after close()"));
      return enqueue(() => run(request, onProgress));
    },
    runUnit(unit) {
      if (closed) return Promise.reject(new GraderClosedError("runUnit() after close()"));
      return enqueue(async () => {
        if (unit.code.length > MAX_CODE_CHARS) return [["syntax", `code too long (${unit.code.length} characters, at most ${MAX_CODE_CHARS})`]] as UnitSteps;
        return (await sandbox.unit({ ...unit, literal: false }, killGrace, () => undefined)).steps;
      });
    },
    warm(onProgress) {
      if (closed) return Promise.reject(new GraderClosedError("warm() after close()"));
      return enqueue(async () => {
        // One after the other, as a batch starts them: two Pyodide starts at once on a small machine
        // take longer than two in a row.
        onProgress?.({ done: 0, total: 2, text: "starting the Python sandbox: the judge" });
        await judge.ensure();
        onProgress?.({ done: 1, total: 2, text: "starting the Python sandbox: the candidates' sandbox" });
        await sandbox.ensure();
        onProgress?.({ done: 2, total: 2, text: "the Python sandbox is ready" });
      });
    },
    async halt(why) {
      await Promise.all([judge.halt(why), sandbox.halt(why)]);
    },
    async close() {
      closed = true;
      await Promise.all([judge.close(), sandbox.close()]);
    },
    get spawns() {
      return sandbox.started;
    },
    get judgeSpawns() {
      return judge.started;
    },
  };
}

/**
 * The most one line's plan entry can take in a judge's answer event: harness.py caps the entry at
 * PLAN_PER_CHAR x its length + PLAN_BASE, and at PLAN_LINE_CHARS (a longer one is an invalid line);
 * the event's JSON escaping at most doubles it (the plan is ASCII); plus the line's framing and
 * reason. A JavaScript length counts UTF-16 units, never fewer than Python's code points.
 */
export const planBound = (line: string): number => 2 * (Math.min(PLAN_LINE_CHARS, PLAN_PER_CHAR * line.length + PLAN_BASE) + 1024);
export const PLAN_PER_CHAR = 40;
export const PLAN_BASE = 400;
export const PLAN_LINE_CHARS = 80_400;
/** A judge request's lines' bounds add up to at most this: a runner's event line is 4 MiB (src/node/grader.ts). */
const PLAN_REQUEST_CHARS = 4 * 2 ** 20 - 2 ** 16;

/**
 * A suite's repeats, as the harness marks them within one request: a line repeating the call of an
 * earlier line of the suite (same arguments, rebuilt the same way: argv) is invalid.
 */
function markRepeats(lines: PlanLine[]): void {
  const seen = new Map<string, number>();
  lines.forEach((line, n) => {
    if (!line[2] || !line[3]) return; // not a call, or a refused line's call alone (no answer): stays invalid
    const key = JSON.stringify(line[5] ?? line[2]); // the call as the runners rebuild it (verdicts.ts callKey)
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, n);
      line.splice(0, 2, "valid", "");
    } else line.splice(0, 2, "invalid", `repeats the call of line ${first + 1}`);
  });
}


/**
 * A reference call's limit: test_ms / REFERENCE_HEADROOM. A line whose reference needs more is
 * invalid ("reference timed out"), so a program as fast as the reference always has twice the
 * reference's time: otherwise a Test policy could pick arguments that take the reference just under
 * test_ms, and a correct program would time out on them (and lose every later line) by noise alone.
 */
export const REFERENCE_HEADROOM = 2;
export const referenceMs = (testMs: number): number => Math.max(1, Math.floor(testMs / REFERENCE_HEADROOM));

/** A candidate longer than this is not run (`syntax-error`, "code too long"). */
export const MAX_CODE_CHARS = 100_000;
