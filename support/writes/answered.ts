import { ApiError } from "../../lib/http/index.ts";
import type { WriteOutcome } from "../../api/writes/outcome.ts";
import { httpAnswerOf, httpErrorOf } from "../../api/writes/http/statuses.ts";

/** A write's HTTP answer, as the writes' HTTP adapter would send it. */
export interface WriteAnswer {
  readonly status: number;
  readonly body: any;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * What a call of the writes' saga (api/writes/service.ts) is answered with over HTTP: its outcome,
 * or the UnavailableError it throws, through the one code-to-status map (api/writes/http/statuses.ts).
 * For the suites that drive the saga without an HTTP server; a bug is thrown as it is.
 */
export async function answered(work: Promise<WriteOutcome>): Promise<WriteAnswer> {
  let answer: unknown;
  try {
    answer = httpAnswerOf(await work);
  } catch (error) {
    answer = httpErrorOf(error);
    if (!(answer instanceof ApiError)) throw error;
  }
  return answer instanceof ApiError
    ? { status: answer.status, body: { code: answer.code, message: answer.message }, headers: answer.headers }
    : { ...(answer as { status: number; body: unknown }), headers: {} };
}
