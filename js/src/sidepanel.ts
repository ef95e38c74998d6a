// The side panel: one entry's detail or the context at an entry, loaded from the kernel on demand.
import type { Requester } from "./comm";
import { button, el } from "./dom";
import { renderContext, renderEntry, renderMessage, type ContextDetail, type EntryDetail, type PanelActions } from "./panel";

/** Only the latest request draws: a slow answer for an entry no longer selected is dropped. */
export class SidePanel {
  readonly el: HTMLDivElement;
  private body: HTMLDivElement;
  private seq = 0;

  constructor(
    private req: Requester,
    private actions: PanelActions,
    /** Called when the panel opens or closes (the stage changes size). */
    private onToggle: (open: boolean) => void,
  ) {
    this.el = el("div", "pnb-panel pnb-hidden");
    this.body = el("div", "pnb-panel-body");
    this.el.append(button("×", "Close (Esc)", () => actions.close(), "pnb-icon-btn pnb-close"), this.body);
  }

  get open(): boolean {
    return !this.el.classList.contains("pnb-hidden");
  }

  hide(): void {
    this.seq++;
    if (!this.open) return;
    this.el.classList.add("pnb-hidden");
    this.onToggle(false);
  }

  /** Show entry ``i`` (``id`` is its entry id), then fill in its detail when it arrives. */
  showEntry(i: number, id: string, isLeaf: boolean): void {
    const seq = ++this.seq;
    if (!this.open) {
      this.el.classList.remove("pnb-hidden");
      this.onToggle(true);
    }
    this.el.dataset.index = String(i);
    this.el.dataset.entryId = id;
    renderMessage(this.body, "Loading…");
    this.req.request<EntryDetail | null>("entry", { index: i }).then(
      (detail) => {
        if (seq !== this.seq) return;
        if (!detail) {
          renderMessage(this.body, "This entry is not available.");
          return;
        }
        renderEntry(this.body, detail, this.actions, isLeaf);
        this.el.dataset.loaded = String(i);
      },
      (err: Error) => {
        if (seq === this.seq) renderMessage(this.body, `Could not load the entry: ${err.message}`, "pnb-error-text");
      },
    );
  }

  /** Show what the model saw at entry ``i``; ``back`` returns to the entry. */
  showContext(i: number, back: () => void): void {
    const seq = ++this.seq;
    renderMessage(this.body, "Building the context…");
    this.req.request<ContextDetail | null>("context", { index: i }).then(
      (ctx) => {
        if (seq !== this.seq) return;
        if (!ctx) {
          renderMessage(this.body, "The context is not available here.");
          return;
        }
        renderContext(this.body, ctx, this.actions, back);
        this.el.dataset.loaded = `context-${i}`;
      },
      (err: Error) => {
        if (seq === this.seq) renderMessage(this.body, `Could not build the context: ${err.message}`, "pnb-error-text");
      },
    );
  }
}
