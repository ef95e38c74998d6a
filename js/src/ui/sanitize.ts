/**
 * Safe rendering of hostile session text: markdown goes through marked then DOMPurify
 * (own instance, strict config); everything else is set as textContent by the callers.
 */

import createDOMPurify, { type Config, type DOMPurify } from "dompurify";
import { Marked } from "marked";

export const IMAGE_MIME = /^image\/(png|jpeg|gif|webp)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/;
const SAFE_LINK = /^(https?:|mailto:)/i;

const FORBID_TAGS = [
  "svg", "math", "style", "iframe", "form", "script", "object", "embed", "link", "meta", "base",
  "frame", "frameset", "input", "button", "textarea", "select", "option", "audio", "video",
  "source", "track", "template", "noscript", "portal", "dialog", "canvas", "applet", "picture",
];
const FORBID_ATTR = ["style", "srcset", "action", "formaction", "xlink:href", "ping", "background", "poster", "srcdoc", "id", "name", "class"];

const CONFIG: Config = {
  USE_PROFILES: { html: true },
  FORBID_TAGS,
  FORBID_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|data:image\/(?:png|jpeg|gif|webp);base64,)/i,
};

let purifier: DOMPurify | null = null;

function getPurifier(): DOMPurify {
  if (purifier) return purifier;
  const p = createDOMPurify(window);
  p.addHook("uponSanitizeAttribute", (_node, data) => {
    if (data.attrName.startsWith("on")) data.keepAttr = false;
  });
  p.addHook("afterSanitizeAttributes", (node) => {
    const el = node as Element;
    if (!el.tagName) return;
    const tag = el.tagName.toLowerCase();
    if (tag === "img") {
      const src = (el.getAttribute("src") ?? "").replace(/\s+/g, "");
      if (!DATA_IMAGE.test(src)) {
        // Remote or unsafe images never load: show their alt text instead.
        const alt = el.getAttribute("alt") ?? "";
        const span = el.ownerDocument.createElement("span");
        span.className = "pnb-blocked";
        span.textContent = `[image${alt ? `: ${alt}` : ""}]`;
        el.replaceWith(span);
        return;
      }
      el.setAttribute("src", src);
      el.setAttribute("loading", "lazy");
    }
    if (el.hasAttribute("href")) {
      const href = (el.getAttribute("href") ?? "").trim();
      if (!SAFE_LINK.test(href)) el.removeAttribute("href");
      else {
        el.setAttribute("target", "_blank");
        el.setAttribute("rel", "noopener noreferrer nofollow");
      }
    }
    for (const attr of Array.from(el.attributes)) {
      if (attr.name.startsWith("on")) el.removeAttribute(attr.name);
    }
  });
  purifier = p;
  return p;
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Raw HTML in session text is shown as text, never parsed (DOMPurify is the second wall). */
const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html({ text }: { text: string }): string {
      return escapeHtml(text);
    },
  },
});

/** Markdown to a sanitised fragment, ready to append. */
export function renderMarkdown(text: string): DocumentFragment {
  let html: string;
  try {
    html = marked.parse(text, { async: false }) as string;
  } catch {
    const frag = document.createDocumentFragment();
    const pre = document.createElement("pre");
    pre.textContent = text;
    frag.append(pre);
    return frag;
  }
  return getPurifier().sanitize(html, { ...CONFIG, RETURN_DOM_FRAGMENT: true }) as DocumentFragment;
}

/** Sanitise an HTML string (exposed for tests). */
export function sanitizeHtml(html: string): string {
  return getPurifier().sanitize(html, { ...CONFIG, RETURN_DOM_FRAGMENT: false }) as unknown as string;
}

/** An <img> for a base64 image block, or null if the type or data is not allowed. */
export function imageElement(mime: unknown, data: unknown): HTMLImageElement | null {
  if (typeof mime !== "string" || typeof data !== "string") return null;
  const m = mime.toLowerCase().trim();
  if (!IMAGE_MIME.test(m)) return null;
  const clean = data.replace(/\s+/g, "");
  if (!BASE64.test(clean)) return null;
  const img = document.createElement("img");
  img.alt = "image";
  img.src = `data:${m};base64,${clean}`;
  return img;
}
