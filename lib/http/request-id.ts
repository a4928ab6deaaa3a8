import { requestId as honoRequestId } from "hono/request-id";

/**
 * X-Request-Id on every response (a well-formed incoming id is kept, so a proxy's id flows
 * through); handlers and the error log read it as c.get("requestId").
 */
export const requestId = () => honoRequestId({ headerName: "X-Request-Id", limitLength: 128 });
