/**
 * `npm run grade -- request.json` (or `-` for stdin): grade one batch with the Node grader and
 * print the GradeResult as JSON. Request and result formats: README "Grading".
 */
import { readFileSync } from "node:fs";
import { createNodeGrader } from "../src/node/grader.ts";
import type { GradeRequest } from "../src/core/grader/types.ts";

const [path, ...extra] = process.argv.slice(2);
if (!path || extra.length > 0) {
  console.error("usage: npm run grade -- <request.json | ->   (prints the result JSON)");
  process.exit(2);
}
let request: GradeRequest;
try {
  request = JSON.parse(readFileSync(path === "-" ? 0 : path, "utf8")) as GradeRequest;
} catch (e) {
  console.error(`grade: cannot read a JSON request from ${path}: ${(e as Error).message}`);
  process.exit(2);
}
const grader = await createNodeGrader();
try {
  const result = await grader.grade(request);
  process.stdout.write(JSON.stringify(result, null, 2) + "\n");
} catch (e) {
  console.error(`grade: ${(e as Error).message}`);
  process.exitCode = 1;
} finally {
  await grader.close();
}
