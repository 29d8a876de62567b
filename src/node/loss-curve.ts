/**
 * The pretraining loss curve as an SVG line chart (docs/BASE-MODELS.md): one point per progress
 * window (the mean loss of the last `every` steps, as `npm run pretrain-base` prints it).
 */
export function lossCurveSvg(losses: readonly number[], every: number, title: string): string {
  const [W, H, L, R, T, B] = [560, 300, 50, 20, 30, 36];
  const finite = losses.filter(Number.isFinite);
  const lo = Math.min(0, ...finite);
  const hi = Math.max(lo + 1e-9, ...finite);
  const n = losses.length;
  const x = (i: number) => L + ((W - L - R) * i) / Math.max(1, n - 1);
  const y = (v: number) => T + (H - T - B) * (1 - (v - lo) / (hi - lo));
  const pts = losses.map((v, i) => (Number.isFinite(v) ? `${x(i).toFixed(1)},${y(v).toFixed(1)}` : "")).filter(Boolean).join(" ");
  const ticks = [lo, (lo + hi) / 2, hi].map((v) => `<text x="${L - 6}" y="${(y(v) + 4).toFixed(1)}" font-size="11" text-anchor="end">${v.toFixed(2)}</text>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${L}" y="18" font-size="14">${escapeXml(title)}</text>`,
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#333"/>`,
    ...ticks,
    `<text x="${(L + W - R) / 2}" y="${H - 8}" font-size="12" text-anchor="middle">step (${every} to ${every * n}, mean loss of each ${every})</text>`,
    `<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="${pts}"/>`,
    "</svg>",
  ].join("\n");
}

const escapeXml = (s: string) => s.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]!);
