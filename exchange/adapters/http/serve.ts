import { createRouteServer } from "../../../lib/http/index.ts";
import { parseJsonExact } from "../../core/money/json.ts";

/**
 * How the exchange serves a declared route (lib/http's kit): bodies are parsed from the bytes the
 * signature covered with numbers kept exact, and every rate-limited route may answer 503.
 */
export const serve = createRouteServer({
  parseJson: parseJsonExact,
  sharedErrors: [
    {
      status: 503,
      code: "UNAVAILABLE",
      when: "the database is away or the commit queue is full (writes; reads that need the database)",
    },
  ],
});
