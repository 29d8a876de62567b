// Entry of the Node grader's worker_threads worker: registers tsx so the TypeScript worker (and the
// shared core it imports) load without a build step, then hands over to grader-worker.ts.
import { register } from "tsx/esm/api";

register();
await import("./grader-worker.ts");
