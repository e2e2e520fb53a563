/**
 * Inbound HTML is hostile: it goes through `sanitize-html` (a maintained allowlist sanitizer) before it is stored,
 * and is served under a strict Content-Security-Policy besides (see `BODY_CSP`).
 *
 * Kept: text structure (headings, paragraphs, lists, tables, quotes, inline formatting), links (http, https,
 * mailto only; opened in a new tab with `noopener noreferrer nofollow`), images that point at the message's own
 * attachments (`cid:`; rewritten to the attachment URL when served) or at an inline raster `data:` URI, and a
 * small set of harmless inline styles (colours, alignment, weight, decoration; nothing that can take a URL).
 * Removed: `script`, `style`, `iframe`, `object`, `embed`, `form` and every form control, `base`, `meta`, `link`,
 * SVG and MathML, every `on*` event handler, `javascript:`/`vbscript:`/remote image sources, `srcset`, classes and
 * ids. Remote images are dropped rather than proxied: opening a message must not tell its sender it was read.
 */
import sanitizeHtml from "sanitize-html"

const TAGS = [
  "a", "abbr", "b", "blockquote", "br", "caption", "center", "cite", "code", "col", "colgroup", "dd", "del", "div", "dl", "dt",
  "em", "font", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s",
  "small", "span", "strike", "strong", "sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "tt", "u", "ul"
]

const COLOR = [/^#[0-9a-f]{3,8}$/i, /^rgba?\(\s*[\d.\s,%]+\)$/i, /^[a-z]{3,20}$/i]
const LENGTH = [/^-?\d+(\.\d+)?(px|em|rem|%|pt)?$/i]

const RASTER_DATA_URI = /^data:image\/(png|jpe?g|gif|webp);base64,[a-z0-9+/=\s]+$/i

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: TAGS,
  disallowedTagsMode: "discard",
  allowedAttributes: {
    a: ["href", "title", "target", "rel"],
    img: ["src", "alt", "title", "width", "height"],
    td: ["colspan", "rowspan", "align", "valign", "style"],
    th: ["colspan", "rowspan", "align", "valign", "style", "scope"],
    table: ["border", "cellpadding", "cellspacing", "width", "style"],
    font: ["color", "size"],
    "*": ["style", "align", "dir", "lang"]
  },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["cid", "data"] },
  allowedSchemesAppliedToAttributes: ["href", "src", "cite"],
  allowProtocolRelative: false,
  allowedStyles: {
    "*": {
      color: COLOR,
      "background-color": COLOR,
      "text-align": [/^(left|right|center|justify)$/i],
      "font-weight": [/^(normal|bold|bolder|lighter|\d{3})$/i],
      "font-style": [/^(normal|italic|oblique)$/i],
      "text-decoration": [/^(none|underline|line-through|overline)$/i],
      "font-size": LENGTH,
      padding: [/^[\d.\s]+(px|em|rem|%)?(\s+[\d.]+(px|em|rem|%)?){0,3}$/i],
      margin: [/^[\d.\s]+(px|em|rem|%)?(\s+[\d.]+(px|em|rem|%)?){0,3}$/i],
      width: LENGTH,
      "vertical-align": [/^(top|middle|bottom|baseline)$/i]
    }
  },
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...(attribs.href ? { href: attribs.href } : {}), ...(attribs.title ? { title: attribs.title } : {}), target: "_blank", rel: "noopener noreferrer nofollow" }
    })
  },
  exclusiveFilter: (frame) => frame.tag === "img" && !(frame.attribs.src?.startsWith("cid:") || RASTER_DATA_URI.test(frame.attribs.src ?? ""))
}

/** The message's HTML with everything active or remote removed (see the file's comment). */
export const sanitizeEmailHtml = (html: string): string => sanitizeHtml(html, OPTIONS)

/** Plain text as safe HTML (for messages without an HTML part). */
export const textToHtml = (text: string): string =>
  `<pre style="white-space:pre-wrap">${text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)}</pre>`

/**
 * The policy a stored body is served under: nothing may load or run except images from this origin (attachments)
 * and inline raster data; links may still be followed by the reader. `sandbox` gives the body an opaque origin.
 */
export const BODY_CSP =
  "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; font-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox allow-popups allow-popups-to-escape-sandbox"
