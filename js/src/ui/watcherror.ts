/** The watch thread's last failure (trait ``watch_error``), shown after the status line. */

import type { AnyModel } from "@anywidget/types";

/** Show ``watch_error`` beside ``status`` while it is set; returns the disposer. */
export function showWatchError(model: AnyModel, status: HTMLElement): () => void {
  const note = document.createElement("span");
  note.className = "pnb-watch-error";
  note.setAttribute("role", "status");
  status.after(note);
  const update = (): void => {
    const text = String(model.get("watch_error") ?? "");
    note.textContent = text; // text, never HTML: it may quote the session
    note.title = text;
    note.hidden = text === "";
  };
  update();
  model.on("change:watch_error", update);
  return () => {
    model.off("change:watch_error", update);
    note.remove();
  };
}
