/** Highlighted Python as DOM (tokens from highlight.ts, one span per token), clipped to what a view can show at once. */
import { h } from "../dom.ts";
import { clipText, hiddenNote } from "../format.ts";
import { tokenizePython } from "../highlight.ts";

/** Characters of a program shown highlighted; the longest programs the policies write are a few thousand. */
export const CODE_SHOWN_CHARS = 20_000;
/** Characters of one test line (or a grader's reason) shown; the grader reads lines of at most 2,000 as written. */
export const LINE_SHOWN_CHARS = 2_000;

function highlighted(src: string, max: number, cls: string): HTMLElement {
  const { shown, hidden } = clipText(src, max);
  const code = h("code", { class: cls });
  for (const t of tokenizePython(shown)) code.append(t.kind === "space" ? t.text : h("span", { class: `tok-${t.kind}` }, t.text));
  if (hidden > 0) code.append(h("span", { class: "muted clipped" }, hiddenNote(hidden)));
  return code;
}

export function codeBlock(src: string, label?: string): HTMLElement {
  return h("pre", { class: "code", "aria-label": label }, highlighted(src, CODE_SHOWN_CHARS, "py"));
}

/** One highlighted line, inline. */
export function codeInline(src: string): HTMLElement {
  return highlighted(src, LINE_SHOWN_CHARS, "py inline");
}

/** A plain stored text (a grader's reason), clipped like a line. */
export function clippedText(text: string): string {
  const { shown, hidden } = clipText(text, LINE_SHOWN_CHARS);
  return hidden > 0 ? `${shown} ${hiddenNote(hidden)}` : shown;
}
