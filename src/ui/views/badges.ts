import { h } from "../dom.ts";
import type { Badge } from "../verdicts.ts";

/** A verdict badge: colour plus a text label, with the explanation as tooltip. */
export function badge(b: Badge): HTMLElement {
  return h("span", { class: `badge badge-${b.kind}`, title: b.title }, b.label);
}
