/** anywidget entry point for prime_nb's SessionWidget. */

import type { AnyModel } from "@anywidget/types";
import { storeFor } from "./io/comm";
import { mountStandalone, pagePart, readPart } from "./standalone";
import { SessionView } from "./widget";
import "./widget.css";

export default {
  initialize({ model }: { model: AnyModel }): void {
    // Create the column store now, so live appends are kept even before a view exists.
    storeFor(model);
  },
  render({ model, el }: { model: AnyModel; el: HTMLElement }): () => void {
    const view = new SessionView(model, el);
    return () => view.dispose();
  },
};

export { mountStandalone, pagePart, readPart };
