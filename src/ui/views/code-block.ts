/** Highlighted Python as DOM (tokens from highlight.ts, one span per token). */
import { h } from "../dom.ts";
import { tokenizePython } from "../highlight.ts";

export function codeBlock(src: string, label?: string): HTMLElement {
  const code = h("code", { class: "py" });
  for (const t of tokenizePython(src)) code.append(t.kind === "space" ? t.text : h("span", { class: `tok-${t.kind}` }, t.text));
  return h("pre", { class: "code", "aria-label": label }, code);
}

/** One highlighted line, inline. */
export function codeInline(src: string): HTMLElement {
  const code = h("code", { class: "py inline" });
  for (const t of tokenizePython(src)) code.append(t.kind === "space" ? t.text : h("span", { class: `tok-${t.kind}` }, t.text));
  return code;
}
