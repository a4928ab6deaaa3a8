import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";

/**
 * A minimal WebSocket client (RFC 6455) for reading many sockets cheaply: one callback per TCP
 * chunk that hands over each text frame in place, where the `ws` package runs a stream and an
 * event per message. The server sends unfragmented, unmasked frames; this answers pings and
 * close frames, and masks what it sends with a zero key (valid: the key is not a secret here).
 */

export interface RawSocket {
  send(text: string): void;
  close(): void;
  terminate(): void;
  readonly socket: Socket;
}

export interface RawHandlers {
  /** One text frame: bytes [start, end) of `data` (valid during the call only). */
  onText(data: Buffer, start: number, end: number): void;
  onClose(code: number): void;
}

function frame(opcode: number, payload: Buffer): Buffer {
  if (payload.length > 0xffff) throw new Error("frame too large for this client");
  const long = payload.length >= 126;
  const head = Buffer.alloc(long ? 8 : 6); // the mask key (the last 4 bytes) stays zero
  head[0] = 0x80 | opcode;
  head[1] = 0x80 | (long ? 126 : payload.length);
  if (long) head.writeUInt16BE(payload.length, 2);
  return Buffer.concat([head, payload]);
}

export function openRaw(url: string, handlers: RawHandlers): Promise<RawSocket> {
  const { hostname, port, pathname, search } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), noDelay: true });
  let pending: Buffer | undefined; // an incomplete frame (or the handshake) carried over
  let upgraded = false;
  let closed = false;
  const raw: RawSocket = {
    socket,
    send: (text) => socket.write(frame(1, Buffer.from(text))),
    close: () => {
      if (!socket.writable) return;
      const code = Buffer.alloc(2);
      code.writeUInt16BE(1000);
      socket.end(frame(8, code));
    },
    terminate: () => socket.destroy(),
  };
  const finish = (code: number) => {
    if (closed) return;
    closed = true;
    socket.destroy();
    handlers.onClose(code);
  };

  const frames = (data: Buffer) => {
    let at = 0;
    while (data.length - at >= 2) {
      const opcode = data[at]! & 0x0f;
      let length = data[at + 1]! & 0x7f;
      let head = 2;
      if (length === 126) {
        if (data.length - at < 4) break;
        length = data.readUInt16BE(at + 2);
        head = 4;
      } else if (length === 127) {
        if (data.length - at < 10) break;
        length = Number(data.readBigUInt64BE(at + 2));
        head = 10;
      }
      if (data.length - at < head + length) break;
      const start = at + head;
      const end = start + length;
      if (opcode === 1) handlers.onText(data, start, end);
      else if (opcode === 9) socket.write(frame(10, data.subarray(start, end)));
      else if (opcode === 8) return finish(length >= 2 ? data.readUInt16BE(start) : 1005);
      at = end;
    }
    // Copied: the chunk's memory may be reused once this callback returns.
    pending = at < data.length ? Buffer.from(data.subarray(at)) : undefined;
  };

  return new Promise((resolve, reject) => {
    socket.once("connect", () =>
      socket.write(
        `GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
    socket.on("data", (chunk: Buffer) => {
      const data = pending ? Buffer.concat([pending, chunk]) : chunk;
      if (upgraded) return frames(data);
      const headEnd = data.indexOf("\r\n\r\n");
      if (headEnd < 0) {
        pending = Buffer.from(data);
        return;
      }
      const status = data.subarray(0, data.indexOf("\r\n")).toString();
      if (!/^HTTP\/1\.1 101 /.test(status)) {
        socket.destroy();
        return reject(new Error(`upgrade refused: ${status}`));
      }
      upgraded = true;
      resolve(raw);
      frames(data.subarray(headEnd + 4));
    });
    socket.once("error", (error) => (upgraded ? finish(1006) : reject(error)));
    socket.once("close", () => (upgraded ? finish(1006) : reject(new Error("closed before the upgrade"))));
  });
}
