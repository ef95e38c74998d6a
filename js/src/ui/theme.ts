// The canvas colours: read from the widget's CSS variables, read again when the page's theme changes.
import type { Theme } from "./canvas";

/** The colours in force on ``root`` now (CSS variables, with light defaults). */
export function readTheme(root: Element): Theme {
  const cs = getComputedStyle(root);
  const v = (name: string, fallback: string): string => cs.getPropertyValue(name).trim() || fallback;
  return {
    bg: v("--pnb-canvas-bg", "#ffffff"),
    fg: v("--pnb-fg", "#1f2933"),
    muted: v("--pnb-muted", "#6b7785"),
    edge: v("--pnb-edge", "#c5ccd6"),
    active: v("--pnb-active", "#1f2933"),
    accent: v("--pnb-accent", "#3b82f6"),
    segFill: v("--pnb-seg-fill", "#f3f5f8"),
    font: v("--pnb-font", "system-ui, sans-serif"),
  };
}

/** Call ``onChange`` when the page's theme may have changed: JupyterLab switches themes by
 * attributes on <body>, other hosts follow the system's colour scheme. Returns a disposer. */
export function watchTheme(onChange: () => void): () => void {
  const attrs = new MutationObserver(onChange);
  attrs.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-name", "data-jp-theme-light", "class"] });
  const mq = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  mq?.addEventListener?.("change", onChange);
  return () => {
    attrs.disconnect();
    mq?.removeEventListener?.("change", onChange);
  };
}
