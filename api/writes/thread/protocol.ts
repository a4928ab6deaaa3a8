import type { WriteOutcome } from "../outcome.ts";
import type { OperatorBody, ProposeBody, SpawnBody, VoteBody } from "../schemas.ts";
import type { Request } from "../service.ts";

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
    }
  | {
      readonly id: number;
      readonly method: "setOperator";
      readonly request: Request<OperatorBody> & { readonly tokenRef: string };
    };

/**
 * An error thrown in the writes' thread: an UnavailableError's fields (a dependency cannot serve
 * now), or only a message for a bug.
 */
export interface ThreadError {
  readonly message: string;
  readonly unavailable?: { readonly dependency: string; readonly retryAfterSeconds?: number };
}

export type ThreadMessage =
  | { readonly kind: "state"; readonly notReady: string | undefined }
  | { readonly kind: "started" }
  | { readonly kind: "answer"; readonly id: number; readonly outcome?: WriteOutcome; readonly error?: ThreadError }
  | { readonly kind: "closed" };
