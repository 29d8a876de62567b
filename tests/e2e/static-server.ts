/** `python3 -m http.server` serving a folder (dist/) on a free loopback port: a host that sends no custom headers. */
import { spawn, type ChildProcess } from "node:child_process";

export function serveStatic(dir: string): Promise<{ child: ChildProcess; origin: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", dir], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const port = /port (\d+)/.exec(out)?.[1];
      if (port) {
        child.stdout!.off("data", onData);
        resolve({ child, origin: `http://127.0.0.1:${port}` });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.resume(); // the request log: drained, not needed
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`python3 -m http.server exited (${code}) before serving: ${out}`)));
  });
}
