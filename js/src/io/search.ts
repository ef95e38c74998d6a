// Search: the kernel's answer as a hit mask, and stepping through the hits in tree order.
import type { Requester } from "./comm";
import { hitCountText, nextHitPos, orderedHits } from "../ui/searchhits";

/** The hits of the current query; only the latest query's answer is kept. */
export class Search {
  /** 1 for entries that match, or null when there is no query. */
  hits: Uint8Array | null = null;
  list: number[] = [];
  hidden = 0;
  pos = -1;
  /** A query asked and not answered yet. */
  pending = false;
  private seq = 0;

  constructor(
    private req: Requester,
    private countEl: HTMLElement,
  ) {}

  get current(): number {
    return this.pos >= 0 ? this.list[this.pos] : -1;
  }

  /** Ask for the entries matching ``query`` among ``n``; ``onDone`` runs with the answer. */
  run(query: string, n: number, onDone: () => void): void {
    const seq = ++this.seq;
    this.pending = false;
    if (!query) {
      this.hits = null;
      onDone();
      return;
    }
    this.countEl.textContent = "…";
    this.pending = true;
    this.req.request<{ indices: number[] }>("search", { query }).then(
      (res) => {
        if (seq !== this.seq) return;
        this.pending = false;
        const mask = new Uint8Array(n);
        for (const i of res?.indices ?? []) if (i >= 0 && i < n) mask[i] = 1;
        this.hits = mask;
        onDone();
      },
      () => {
        if (seq !== this.seq) return;
        this.pending = false;
        this.countEl.textContent = "error";
      },
    );
  }

  /** Order the hits as the tree reads (``order``), counting those the filter hides. */
  arrange(order: ArrayLike<number>, shown: ArrayLike<number>, selected: number): void {
    this.list = [];
    this.hidden = 0;
    this.pos = -1;
    if (!this.hits) {
      this.countEl.textContent = "";
      return;
    }
    const found = orderedHits(order, this.hits, shown);
    this.list = found.list;
    this.hidden = found.hidden;
    this.pos = this.list.indexOf(selected);
    this.showCount();
  }

  /** Move ``step`` hits on (wrapping); returns the entry to select, or -1. */
  step(step: number): number {
    const n = this.list.length;
    if (!n) return -1;
    this.pos = nextHitPos(this.pos, step, n);
    this.showCount();
    return this.list[this.pos];
  }

  private showCount(): void {
    this.countEl.textContent = hitCountText(this.pos, this.list.length, this.hidden);
  }
}
