/** The index badge (`/whale-index/badge.svg`): a flat two-part SVG, label on the left, score and label on the right. */
import type { WhaleIndex } from "../../../schema/http/analytics"

const COLOURS: Record<WhaleIndex["label"], string> = {
  "Extreme selling": "#e05d44",
  Selling: "#fe7d37",
  Neutral: "#9f9f9f",
  Buying: "#97ca00",
  "Extreme buying": "#44cc11"
}

/** Rough width of Verdana 11px text (what badge renderers assume). */
const textWidth = (s: string) => Math.round([...s].reduce((w, c) => w + (/[ il.:|]/.test(c) ? 3.5 : /[mwMW]/.test(c) ? 10 : 7), 0)) + 10

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export const badgeSvg = (index: Pick<WhaleIndex, "score" | "label">, demo: boolean): string => {
  const left = demo ? "whale index (demo)" : "whale index"
  const right = `${index.score.toFixed(1)} ${index.label}`
  const lw = textWidth(left)
  const rw = textWidth(right)
  const w = lw + rw
  const colour = COLOURS[index.label]
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${escape(`${left}: ${right}`)}">` +
    `<title>${escape(`${left}: ${right}`)}</title>` +
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` +
    `<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${rw}" height="20" fill="${colour}"/>` +
    `<rect width="${w}" height="20" fill="url(#s)"/></g>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">` +
    `<text x="${lw / 2}" y="14">${escape(left)}</text><text x="${lw + rw / 2}" y="14">${escape(right)}</text></g></svg>`
}
