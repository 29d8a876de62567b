import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { graderWorkerCsp, hostingHeaders, isGraderWorkerScript, needsHostingHeaders, withHostingHeaders } from "../../src/core/hosting.ts";

const ORIGIN = "http://127.0.0.1:8000";
const GRADER = new URL("/assets/grader.worker-38T3ENl9.js", ORIGIN);

describe("hosting headers (what vite.config.ts and the service worker send)", () => {
  it("recognise the grader worker's script by its dev and its built name only", () => {
    expect(isGraderWorkerScript("/workers/grader.worker.ts")).toBe(true);
    expect(isGraderWorkerScript("/assets/grader.worker-38T3ENl9.js")).toBe(true);
    expect(isGraderWorkerScript("/assets/grader.worker-a_b-c.js")).toBe(true);
    for (const p of ["/assets/policy.worker-38T3ENl9.js", "/assets/grader.worker-38T3ENl9.js.map", "/x/assets/grader.worker-1.js", "/assets/grader-client-CvLw0Ylv.js", "/workers/grader.worker.ts/x", "/"]) {
      expect(isGraderWorkerScript(p), p).toBe(false);
    }
  });

  it("give every same-origin response isolation and CORP, and the grader worker its CSP naming the origin", () => {
    const common = { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp", "Cross-Origin-Resource-Policy": "same-origin" };
    expect(hostingHeaders(new URL("/", ORIGIN))).toEqual(common);
    expect(hostingHeaders(GRADER)).toEqual({ ...common, "Content-Security-Policy": graderWorkerCsp(ORIGIN) });
    expect(graderWorkerCsp(ORIGIN)).toBe(`default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src ${ORIGIN}/pyodide/; worker-src 'none'`);
    // Vite's dev server: Firefox checks the worker's unbundled imports against worker-src.
    expect(graderWorkerCsp(ORIGIN, { dev: true })).toBe(
      `default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src ${ORIGIN}/pyodide/; worker-src ${ORIGIN}/src/core/ ${ORIGIN}/node_modules/ ${ORIGIN}/@vite/`,
    );
  });

  it("are added to pages and worker scripts only: every other response goes out as it came (Firefox refuses a rebuilt one under a path CSP)", () => {
    const req = (path: string, mode: string, destination: string) => ({ url: new URL(path, ORIGIN).href, mode, destination });
    expect(needsHostingHeaders(req("/?seed=2", "navigate", "document"))).toBe(true);
    expect(needsHostingHeaders(req("/assets/policy.worker-x1.js", "same-origin", "worker"))).toBe(true);
    expect(needsHostingHeaders(req(GRADER.pathname, "same-origin", "worker"))).toBe(true);
    expect(needsHostingHeaders(req(GRADER.pathname, "cors", ""))).toBe(true); // a page's fetch of it sees its CSP too
    for (const [path, destination] of [["/pyodide/pyodide.asm.wasm", ""], ["/pyodide/pyodide.asm.js", "script"], ["/assets/index-x.js", "script"], ["/tfjs-wasm/a.wasm", ""], ["/checkpoints/base-tiny.bin", ""]]) {
      expect(needsHostingHeaders(req(path, "cors", destination)), path).toBe(false);
    }
  });

  it("rewrite a response's headers (replacing the server's values), keeping status, body and other headers", async () => {
    const served = new Response("export {};", {
      status: 200,
      statusText: "OK",
      headers: { "Content-Type": "text/javascript", "Cross-Origin-Embedder-Policy": "unsafe-none", "Content-Security-Policy": "default-src *" },
    });
    const out = withHostingHeaders(served, GRADER);
    expect(out.status).toBe(200);
    expect(out.statusText).toBe("OK");
    expect(await out.text()).toBe("export {};");
    expect(out.headers.get("content-type")).toBe("text/javascript");
    expect(out.headers.get("cross-origin-embedder-policy")).toBe("require-corp");
    expect(out.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(out.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(out.headers.get("content-security-policy")).toBe(graderWorkerCsp(ORIGIN));

    const notFound = withHostingHeaders(new Response("missing", { status: 404 }), new URL("/nope.js", ORIGIN));
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get("cross-origin-embedder-policy")).toBe("require-corp");
    expect(notFound.headers.get("content-security-policy")).toBeNull();
  });

  it("leave network errors alone", () => {
    const error = Response.error();
    expect(withHostingHeaders(error, GRADER)).toBe(error);
  });

  it("are defined once: no other source spells out the isolation or CSP values", () => {
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
    const files = [...sources("src"), ...sources("workers"), "vite.config.ts"].filter((f) => f !== join("src", "core", "hosting.ts"));
    const copies = files.filter((f) => /require-corp"|wasm-unsafe-eval|"Cross-Origin-(Opener|Embedder|Resource)-Policy"/.test(readFileSync(f, "utf8")));
    expect(copies).toEqual([]);
  });
});
