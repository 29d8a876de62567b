/**
 * The dependency rule of docs/ARCHITECTURE.md, checked on the source tree (`npm run check:deps`,
 * part of `npm run lint`; tests/unit/scripts/check-deps.test.ts also runs it in `npm test`'s unit stage):
 *   1. each file imports only the rooms its room may import (ROOMS below);
 *   2. no import cycles among the files of src/, workers/ and scripts/ (type imports count: two
 *      files that import each other share a piece that belongs below both);
 *   3. no code file loose at src's top (the browser's wiring lives in src/browser/);
 *   4. every relative import names a file that exists.
 * An import is a static, dynamic or type import, an `export ... from`, or an `import.meta.glob`; a
 * `new URL("<code file>", import.meta.url)` (a worker spawned, a module loaded) is a reference: it
 * obeys rule 1 but takes no part in cycles; one naming a data file (a .py or .md read) is free.
 * Only relative specifiers are read: packages are free.
 *
 *   npx tsx scripts/check-deps.ts [--root DIR]   # one line per violation, exit 1 when there is any
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import ts from "typescript";

/** A room of the layout: the folder, and which rooms its files may import. */
export interface Room {
  name: string;
  /** Repository-relative prefix of its files ("" for the loose config files at the top). */
  prefix: string;
  mayImport: readonly string[];
  /** Files (or folders, ending in /) it may import with `import type` only, besides mayImport. */
  mayImportTypes?: readonly string[];
}

/** The rooms, first match wins (src/core before src/). Keep in step with docs/ARCHITECTURE.md. */
export const ROOMS: readonly Room[] = [
  { name: "core", prefix: "src/core/", mayImport: ["core"] },
  { name: "storage", prefix: "src/storage/", mayImport: ["storage", "core"] },
  { name: "node", prefix: "src/node/", mayImport: ["node", "core"] },
  // Types only: the ports the UI asks the wiring to implement (src/ui/deps.ts). It holds what each
  // worker serves (src/browser/*-worker.ts) and spawns workers by URL (new Worker(new URL(...))).
  { name: "browser", prefix: "src/browser/", mayImport: ["browser", "storage", "core"], mayImportTypes: ["src/ui/deps.ts"] },
  // A worker's script only starts what the browser's wiring serves: no logic, no core of its own.
  { name: "workers", prefix: "workers/", mayImport: ["workers", "browser"] },
  { name: "ui", prefix: "src/ui/", mayImport: ["ui", "workers", "browser", "storage", "core"] },
  // The policy benchmark drives the end-to-end tests' policy page in Chromium.
  { name: "scripts", prefix: "scripts/", mayImport: ["scripts", "node", "core", "tests"] },
  { name: "tests", prefix: "tests/", mayImport: ["tests", "ui", "workers", "browser", "storage", "node", "core", "scripts", "config"] },
  { name: "src", prefix: "src/", mayImport: [] },
  { name: "config", prefix: "", mayImport: ["core"] },
];

/** Folders whose files may not take part in an import cycle. */
const ACYCLIC = ["src/", "workers/", "scripts/"];

const CODE = /\.(ts|tsx|mts|js|mjs|cjs)$/;

export type EdgeKind = "import" | "type" | "url";
export interface Edge {
  from: string;
  to: string;
  kind: EdgeKind;
  line: number;
}

export function roomOf(path: string): Room {
  return ROOMS.find((r) => path.startsWith(r.prefix))!;
}

/** The relative imports and URL references of one file, resolved to repository paths. */
export function edgesOf(path: string, source: string): Edge[] {
  const sf = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, false, path.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const edges: Edge[] = [];
  const add = (spec: string, kind: EdgeKind, node: ts.Node) => {
    if (!spec.startsWith("./") && !spec.startsWith("../")) return;
    const to = posix.normalize(posix.join(posix.dirname(path), spec.replace(/[?#].*$/, "")));
    edges.push({ from: path, to, kind, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 });
  };
  const literal = (e: ts.Node | undefined) => (e && ts.isStringLiteralLike(e) ? e.text : null);
  const isMetaUrl = (e: ts.Node | undefined) => !!e && ts.isPropertyAccessExpression(e) && e.getText(sf) === "import.meta.url";
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!clause.namedBindings && ts.isNamedImports(clause.namedBindings) &&
        clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly ? "type" : "import", node);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly ? "type" : "import", node);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, "type", node);
    } else if (ts.isCallExpression(node)) {
      const spec = literal(node.arguments[0]);
      const callee = node.expression.getText(sf);
      if (spec !== null && (node.expression.kind === ts.SyntaxKind.ImportKeyword || callee === "import.meta.glob")) add(spec, "import", node);
    } else if (ts.isNewExpression(node) && node.expression.getText(sf) === "URL" && isMetaUrl(node.arguments?.[1])) {
      const spec = literal(node.arguments?.[0]);
      if (spec !== null) add(spec, "url", node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  // JSDoc types in .js/.mjs files: `@param {import("../x.js").T}`.
  if (/\.(js|mjs|cjs)$/.test(path)) {
    for (const m of source.matchAll(/@(?:type|param|returns?|typedef)\s*\{[^}]*?import\(\s*["']([^"']+)["']\s*\)/g)) {
      const line = source.slice(0, m.index).split("\n").length;
      const spec = m[1];
      if (spec.startsWith("./") || spec.startsWith("../")) edges.push({ from: path, to: posix.normalize(posix.join(posix.dirname(path), spec)), kind: "type", line });
    }
  }
  return edges;
}

export interface Violation {
  rule: "room" | "cycle" | "missing";
  message: string;
}

/** Every violation of the rule in a tree given as path -> source (repository-relative posix paths). */
export function checkDeps(files: ReadonlyMap<string, string>): Violation[] {
  const violations: Violation[] = [];
  const folders = new Set<string>();
  for (const f of files.keys()) for (let d = posix.dirname(f); d !== "."; d = posix.dirname(d)) folders.add(d);
  const graph = new Map<string, string[]>();
  for (const [path, source] of files) {
    if (!CODE.test(path)) continue;
    const room = roomOf(path);
    if (room.name === "src") violations.push({ rule: "room", message: `${path} is loose at src's top: the browser's wiring belongs in src/browser/, the rest in its room` });
    const targets: string[] = [];
    for (const e of edgesOf(path, source)) {
      if (e.kind === "url" && !CODE.test(e.to)) continue;
      if (!files.has(e.to) && !folders.has(e.to.replace(/\/$/, ""))) {
        violations.push({ rule: "missing", message: `${path}:${e.line} imports ${e.to}, which does not exist` });
        continue;
      }
      const target = roomOf(e.to);
      const typePort = e.kind === "type" && (room.mayImportTypes ?? []).some((p) => (p.endsWith("/") ? e.to.startsWith(p) : e.to === p));
      const spawn = e.kind === "url" && room.name === "browser" && target.name === "workers";
      if (target.name !== room.name && !room.mayImport.includes(target.name) && !typePort && !spawn) {
        const how = e.kind === "url" ? "references" : e.kind === "type" ? "imports types from" : "imports";
        const may = [...new Set([room.name, ...room.mayImport])].join(", ") + (room.mayImportTypes ? `; types from ${room.mayImportTypes.join(", ")}` : "");
        violations.push({ rule: "room", message: `${path}:${e.line} (${room.name}) ${how} ${e.to} (${target.name}): ${room.name} may import ${may}` });
      }
      if (e.kind !== "url" && files.has(e.to)) targets.push(e.to);
    }
    graph.set(path, targets);
  }
  for (const cycle of importCycles(graph)) {
    if (cycle.some((f) => ACYCLIC.some((p) => f.startsWith(p)))) {
      violations.push({ rule: "cycle", message: `import cycle: ${[...cycle, cycle[0]].join(" -> ")}` });
    }
  }
  return violations;
}

/** One cycle through each strongly connected component of more than one file (or a file importing itself). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative.
  let index = 0;
  const idx = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  for (const root of [...graph.keys()].sort()) {
    if (idx.has(root)) continue;
    const work: [string, number][] = [[root, 0]];
    idx.set(root, index); low.set(root, index++); stack.push(root); onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const [v, i] = top;
      const next = graph.get(v) ?? [];
      if (i < next.length) {
        top[1]++;
        const w = next[i];
        if (!graph.has(w)) continue;
        if (!idx.has(w)) {
          idx.set(w, index); low.set(w, index++); stack.push(w); onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      } else {
        work.pop();
        if (work.length > 0) { const u = work[work.length - 1][0]; low.set(u, Math.min(low.get(u)!, low.get(v)!)); }
        if (low.get(v) === idx.get(v)) {
          const component: string[] = [];
          let w: string;
          do { w = stack.pop()!; onStack.delete(w); component.push(w); } while (w !== v);
          if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
        }
      }
    }
  }
  return components.map((c) => shortestCycle(graph, new Set(c)));
}

/** A shortest cycle inside one component, from its first file in sorted order (breadth first). */
function shortestCycle(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0];
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(parent.get(path[0])!);
        return path;
      }
      if (!parent.has(w)) { parent.set(w, v); queue.push(w); }
    }
  }
  return [start];
}

/** The project's checked files: src/, workers/, scripts/, tests/ and the config files at the top. */
export function projectFiles(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = dir ? `${dir}/${name}` : name;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else files.set(path, CODE.test(path) ? readFileSync(join(root, path), "utf8") : "");
    }
  };
  for (const dir of ["src", "workers", "scripts", "tests"]) walk(dir);
  for (const name of readdirSync(root)) if (CODE.test(name)) files.set(name, readFileSync(join(root, name), "utf8"));
  return files;
}

if (process.argv[1] && /scripts[\\/]check-deps\.ts$/.test(process.argv[1])) {
  const at = process.argv.indexOf("--root");
  const root = at > 0 ? process.argv[at + 1] : process.cwd();
  const files = projectFiles(root);
  const violations = checkDeps(files);
  for (const v of violations) console.error(`${v.rule}: ${v.message}`);
  const count = [...files.keys()].filter((f) => CODE.test(f)).length;
  console.log(violations.length === 0 ? `check-deps: ${count} files, the dependency rule holds (docs/ARCHITECTURE.md)` : `check-deps: ${violations.length} violation(s) in ${count} files: see docs/ARCHITECTURE.md, "The dependency rule"`);
  if (violations.length > 0) process.exitCode = 1;
}
