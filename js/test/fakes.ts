/** Stand-ins for the kernel link: a Requester whose answers the test settles by hand. */
import type { Requester } from "../src/io/comm";

export interface Asked {
  what: string;
  extra: Record<string, unknown>;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export function fakeRequester(): { req: Requester; asked: Asked[] } {
  const asked: Asked[] = [];
  const req = {
    request: (what: string, extra: Record<string, unknown> = {}) =>
      new Promise((resolve, reject) => asked.push({ what, extra, resolve, reject })),
    dispose: () => undefined,
  };
  return { req: req as unknown as Requester, asked };
}

/** Let settled promises run their callbacks. */
export const flush = (): Promise<void> => new Promise((r) => setTimeout(r, 0));
