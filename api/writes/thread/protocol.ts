import type { ProposeBody, SpawnBody, VoteBody } from "../schemas.ts";
import type { Answer, Request } from "../service.ts";

/** Messages between the API's thread (start.ts) and the writes' thread (entry.ts). */

export type ThreadCall =
  | { readonly id: number; readonly method: "spawn"; readonly request: Request<SpawnBody> }
  | {
      readonly id: number;
      readonly method: "vote";
      readonly request: Request<VoteBody> & { readonly tokenRef: string };
    }
  | {
      readonly id: number;
      readonly method: "propose";
      readonly request: Request<ProposeBody> & { readonly tokenRef: string };
    };

/** An error thrown in the writes' thread: an ApiError's fields, or only a message for a bug. */
export interface ThreadError {
  readonly status?: number;
  readonly code?: string;
  readonly message: string;
  readonly headers?: Record<string, string>;
}

export type ThreadMessage =
  | { readonly kind: "state"; readonly notReady: string | undefined }
  | { readonly kind: "started" }
  | { readonly kind: "answer"; readonly id: number; readonly answer?: Answer; readonly error?: ThreadError }
  | { readonly kind: "closed" };
