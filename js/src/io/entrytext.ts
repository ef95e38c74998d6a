// Text fetched from the kernel on demand: hover previews and the first lines drawn beside nodes.
import type { Requester } from "./comm";
import type { Preview } from "../ui/tipcontent";

/** Caches of per-entry text, keyed by entry index; ``reset`` when indices change meaning. */
export class EntryText {
  readonly lines = new Map<number, string>();
  private pending = new Set<number>();
  private previews = new Map<number, Preview | Promise<Preview>>();
  private generation = 0;

  constructor(private req: Requester) {}

  /** New rows were appended: previews may change (a leaf gains children), lines do not. */
  grew(): void {
    this.previews.clear();
  }

  /** The data was replaced: every index may now name another entry. */
  reset(): void {
    this.generation++;
    this.previews.clear();
    this.lines.clear();
    this.pending.clear();
  }

  /** Ask once for the first lines of these entries; ``onReady`` runs when they arrive. */
  fetchLines(indices: number[], onReady: () => void): void {
    const want = indices.filter((i) => !this.pending.has(i)).slice(0, 400);
    if (!want.length) return;
    for (const i of want) this.pending.add(i);
    const gen = this.generation;
    this.req.request<{ lines: string[] }>("lines", { indices: want }).then(
      (res) => {
        if (gen !== this.generation) return;
        want.forEach((i, j) => this.lines.set(i, String(res?.lines?.[j] ?? "")));
        onReady();
      },
      () => {
        if (gen !== this.generation) return;
        for (const i of want) this.lines.set(i, "");
      },
    );
  }

  /** The hover preview of an entry, asked for once; a failed request is asked again next time. */
  preview(i: number): Promise<Preview> {
    const cached = this.previews.get(i);
    if (cached) return Promise.resolve(cached);
    const p = this.req.request<Preview>("preview", { index: i }).then((v) => {
      const val = v ?? {};
      this.previews.set(i, val);
      return val;
    });
    this.previews.set(i, p);
    p.catch(() => this.previews.delete(i));
    return p;
  }
}
