import { Hono } from "hono";

// Ponder requires an API entry; /status and /metrics come from Ponder itself.
export default new Hono();
