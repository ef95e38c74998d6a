// The pointer on the canvas: where it moves, leaves and clicks, in canvas coordinates.

export interface PointerHandlers {
  move(px: number, py: number): void;
  leave(): void;
  click(px: number, py: number): void;
}

/** Listen to the pointer on ``canvas``; returns the disposer. */
export function listenPointer(canvas: HTMLCanvasElement, on: PointerHandlers): () => void {
  const local = (ev: MouseEvent): [number, number] => {
    const r = canvas.getBoundingClientRect();
    return [ev.clientX - r.left, ev.clientY - r.top];
  };
  const move = (ev: MouseEvent): void => on.move(...local(ev));
  const leave = (): void => on.leave();
  const click = (ev: MouseEvent): void => on.click(...local(ev));
  canvas.addEventListener("mousemove", move);
  canvas.addEventListener("mouseleave", leave);
  canvas.addEventListener("click", click);
  return () => {
    canvas.removeEventListener("mousemove", move);
    canvas.removeEventListener("mouseleave", leave);
    canvas.removeEventListener("click", click);
  };
}
