import { createServer } from "node:net";

/**
 * Throws unless `port` is free on 127.0.0.1. Ponder moves to the next port when its own is taken,
 * so a busy port would otherwise mean timing whatever answers there.
 */
export async function assertPortFree(port: number, variable: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once("error", () => reject(new Error(`port ${port} is in use; set ${variable} to a free one`)));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve()));
  });
}
