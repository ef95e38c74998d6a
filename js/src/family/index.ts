/** anywidget entry point for prime_nb's FamilyWidget: a family's sessions as lanes.
 *
 * Its own bundle (static/family.js), independent of the session widget's modules. */

import type { AnyModel } from "@anywidget/types";
import { parseFamily } from "./data";
import { renderFamily, type FamilyView } from "./render";
import "./family.css";

interface FamilyModel {
  _family: unknown;
  selected_session: string | null;
}

export function mountFamily(model: AnyModel<FamilyModel>, el: HTMLElement): () => void {
  let view: FamilyView | null = null;
  const draw = (): void => {
    view?.dispose();
    view = renderFamily(el, parseFamily(model.get("_family")), (key) => {
      model.set("selected_session", key);
      model.save_changes();
    });
    view.setSelected(model.get("selected_session"));
  };
  const onSelected = (): void => view?.setSelected(model.get("selected_session"));
  draw();
  model.on("change:_family", draw);
  model.on("change:selected_session", onSelected);
  let width = el.clientWidth;
  const resized = new ResizeObserver(() => {
    if (Math.abs(el.clientWidth - width) > 24) {
      width = el.clientWidth;
      draw();
    }
  });
  resized.observe(el);
  return () => {
    resized.disconnect();
    model.off("change:_family", draw);
    model.off("change:selected_session", onSelected);
    view?.dispose();
  };
}

export default {
  render({ model, el }: { model: AnyModel<FamilyModel>; el: HTMLElement }): () => void {
    return mountFamily(model, el);
  },
};
