import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/**
 * Raw WebSocket frames for the two moments one process touches thousands of sockets at once: an
 * event fanned out to every subscriber, and a revoked token's sockets closing. Measured on 10,000
 * sockets, ws's per-send framing (a header buffer, cork, a two-buffer writev, uncork) and its
 * close handshake (waiting for every client's close frame before ending the connection) were most of
 * the server's time in both; here one frame is built once and written as it is to each connection.
 *
 * Safe only because the server negotiates no extension (perMessageDeflate is off, so ws's sender never
 * queues): a frame written here cannot interleave with one ws is still building.
 */

/** An unmasked, final text frame carrying `payload` (server-to-client frames are never masked). */
export function textFrame(payload: Buffer): Buffer {
  const n = payload.length;
  const header = n < 126 ? Buffer.from([0x81, n]) : n < 65_536 ? Buffer.from([0x81, 126, n >> 8, n & 0xff]) : Buffer.alloc(10);
  if (n >= 65_536) {
    header[0] = 0x81;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([header, payload]);
}

/** Whether `raw` (the upgraded connection) can take a frame written straight to it. */
export const writable = (socket: WebSocket, raw: Duplex | undefined): raw is Duplex => raw != null && socket.readyState === socket.OPEN && raw.writable;

/**
 * Closes with `code` at once: ws sends the close frame (and sends nothing after it), then the
 * connection is ended without waiting for the client's close frame, so the client learns the code
 * as soon as the frame and the end arrive, not after this process has read every other socket's
 * answer. The client's own close frame, when it comes, is read and dropped as ws always does.
 */
export function closeNow(socket: WebSocket, raw: Duplex | undefined, code: number, reason: string): void {
  if (socket.readyState !== socket.OPEN) return;
  socket.close(code, reason);
  if (!raw || !raw.writable) return;
  raw.end();
  // ws ends the connection again as each handshake finishes (on the client's close frame, then on its
  // end). The connection is already ending, so those calls change nothing, but each builds and drops
  // an Error with its stack: 20,000 of them, a third of a revoke's CPU, for 10,000 sockets.
  raw.end = function (this: Duplex) {
    return this;
  } as Duplex['end'];
}
