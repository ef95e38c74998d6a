// The side panel: one entry's detail or the context at an entry, loaded from the kernel on demand.
import type { Requester } from "../io/comm";
import type { Problem } from "../model/data";
import { button, clear, el } from "./dom";
import { renderContext, renderEntry, renderMessage, revealHits, type ContextDetail, type EntryDetail, type PanelActions } from "./panelcontent";

/** Only the latest request draws: a slow answer for an entry no longer selected is dropped. */
export class SidePanel {
  readonly el: HTMLDivElement;
  private body: HTMLDivElement;
  private seq = 0;
  /** What the panel last showed: an entry, a context, the problems. */
  private showing: "entry" | "context" | "problems" | null = null;

  constructor(
    private req: Requester,
    private actions: PanelActions,
    /** Called when the panel opens or closes (the stage changes size). */
    private onToggle: (open: boolean) => void,
    /** The search in force: Thinking blocks holding its words are opened. */
    private query: () => string = () => "",
  ) {
    this.el = el("div", "pnb-panel pnb-hidden");
    this.body = el("div", "pnb-panel-body");
    const grip = el("div", "pnb-panel-grip");
    grip.title = "Drag to resize the panel";
    const fold = button("⟩", "Fold the panel away (the selection stays)", () => this.setFolded(!this.folded), "pnb-icon-btn pnb-fold");
    this.el.append(grip, fold, button("×", "Close (Esc)", () => actions.close(), "pnb-icon-btn pnb-close"), this.body);
    const width = storedWidth();
    if (width) this.el.style.width = `${width}px`;
    this.stopResize = dragToResize(grip, this.el, () => this.onToggle(true));
  }

  /** Stop listening (the view is going away). */
  readonly stopResize: () => void;

  get folded(): boolean {
    return this.el.classList.contains("pnb-folded");
  }

  /** Fold the panel to a thin strip (or unfold it); the stage takes the room. */
  setFolded(folded: boolean): void {
    this.el.classList.toggle("pnb-folded", folded);
    const fold = this.el.querySelector(".pnb-fold");
    if (fold) fold.textContent = folded ? "⟨" : "⟩";
    this.onToggle(true);
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

  /** Close the panel if it shows an entry: the Transcript shows entries itself, and the
   * panel would only repeat one beside it. A context or the problems stay. */
  hideEntry(): void {
    if (this.showing === "entry") this.hide();
  }

  /** Show entry ``i`` (``id`` is its entry id), then fill in its detail when it arrives. */
  showEntry(i: number, id: string, isLeaf: boolean): void {
    const seq = ++this.seq;
    this.showing = "entry";
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
        revealHits(this.body, this.query());
        this.el.dataset.loaded = String(i);
      },
      (err: Error) => {
        if (seq === this.seq) renderMessage(this.body, `Could not load the entry: ${err.message}`, "pnb-error-text");
      },
    );
  }

  /** List the loader's problems; a problem tied to an entry links to it. */
  showProblems(problems: Problem[], total: number, goTo: (row: number) => void): void {
    this.seq++;
    this.showing = "problems";
    if (!this.open) {
      this.el.classList.remove("pnb-hidden");
      this.onToggle(true);
    }
    this.el.dataset.loaded = "problems";
    delete this.el.dataset.index;
    delete this.el.dataset.entryId;
    const body = this.body;
    clear(body);
    body.append(el("div", "pnb-panel-title", `${total.toLocaleString("en-US")} problem${total === 1 ? "" : "s"} in the file`));
    body.append(
      el("div", "pnb-muted pnb-small", "Loading went on past each of these. Orphans and cycle cuts are loaded as extra roots; duplicate ids are renamed."),
    );
    const list = el("ol", "pnb-problem-list");
    for (const p of problems) {
      const item = el("li", "pnb-problem");
      item.append(el("span", "pnb-problem-line", `line ${p.line}`), el("span", "pnb-problem-kind", p.kind), el("span", "pnb-problem-msg", p.message));
      if (p.row >= 0) item.append(button("show", "Select this entry in the tree", () => goTo(p.row), "pnb-link-btn"));
      list.append(item);
    }
    body.append(list);
    if (total > problems.length) body.append(el("div", "pnb-muted pnb-small", `… and ${(total - problems.length).toLocaleString("en-US")} more: see session.problems in Python.`));
  }

  /** Show what the model saw at entry ``i``; ``back`` returns to the entry. */
  showContext(i: number, back: () => void): void {
    const seq = ++this.seq;
    this.showing = "context";
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

const WIDTH_KEY = "prime_nb.panelWidth";

function storedWidth(): number {
  try {
    const w = Number(globalThis.localStorage?.getItem(WIDTH_KEY));
    return Number.isFinite(w) && w >= MIN_WIDTH ? w : 0;
  } catch {
    return 0;
  }
}

const MIN_WIDTH = 240;

/** The panel's width from dragging its left edge: at least 240 px, at most 85% of its
 * container; the last width is remembered. Returns the function that stops listening. */
export function dragToResize(grip: HTMLElement, panel: HTMLElement, resized: () => void): () => void {
  let startX = 0;
  let startW = 0;
  const move = (ev: PointerEvent): void => {
    const host = panel.parentElement?.getBoundingClientRect().width ?? 1200;
    const w = Math.round(Math.min(Math.max(startW + (startX - ev.clientX), MIN_WIDTH), host * 0.85));
    panel.style.width = `${w}px`;
    resized();
  };
  const up = (): void => {
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", up);
    panel.classList.remove("pnb-resizing");
    try {
      globalThis.localStorage?.setItem(WIDTH_KEY, String(parseInt(panel.style.width, 10) || 0));
    } catch {
      /* storage blocked */
    }
  };
  const down = (ev: PointerEvent): void => {
    ev.preventDefault();
    startX = ev.clientX;
    startW = panel.getBoundingClientRect().width;
    panel.classList.add("pnb-resizing");
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  };
  grip.addEventListener("pointerdown", down);
  return () => {
    grip.removeEventListener("pointerdown", down);
    up();
  };
}
