// Every indexing handler of the ecosystem; Ponder loads them through src/index.ts.
import "./spawner.ts";
import "./token.ts";
import "./pool.ts";
import "./registry.ts";
import "./action-log.ts";
import "./voting.ts";
import "./booster.ts";
