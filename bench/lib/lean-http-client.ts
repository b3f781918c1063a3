import { connect, type Socket } from 'node:net';

/**
 * A measuring client for latency benchmarks: one keep-alive HTTP/1.1
 * connection, one request at a time, reading every response into buffers
 * allocated once.
 *
 * Why not undici: measured on this 2-core VM, undici's per-response buffers
 * (about 90 kB a page) make the measuring process run a mark-compact every
 * few hundred responses, and each puts 2-5 ms on the sample it lands in; that
 * alone lifted a bare node:http server's p99 from 0.4 ms to 4-6 ms. A
 * benchmark of the server must not time its own client's garbage collector.
 * Node's `onread` option reads the socket into one static buffer instead.
 *
 * It understands exactly what the benchmarks get back: a status line,
 * headers with Content-Length, and a body (no chunked encoding).
 */
export interface LeanResponse {
  status: number;
  /** The body, valid until the next request. */
  body: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

export class LeanHttpClient {
  private readonly socket: Socket;
  private readonly readBuffer = Buffer.allocUnsafe(1 << 20);
  private response: Buffer;
  private received = 0;
  private bodyStart = -1;
  private expected = -1;
  private pending: { resolve: (value: LeanResponse) => void; reject: (error: Error) => void } | null = null;

  private constructor(
    private readonly host: string,
    port: number,
    capacity: number,
  ) {
    this.response = Buffer.allocUnsafe(capacity);
    this.socket = connect({
      host,
      port,
      onread: { buffer: this.readBuffer, callback: (bytes) => this.onRead(bytes) },
    });
    this.socket.setNoDelay(true);
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => this.fail(new Error('connection closed')));
  }

  /** Connects to an http:// URL; `capacity` is the largest response expected, in bytes. */
  static async connect(url: string, capacity = 4 << 20): Promise<LeanHttpClient> {
    const { hostname, port } = new URL(url);
    const client = new LeanHttpClient(hostname, Number(port), capacity);
    await new Promise<void>((resolve, reject) => {
      client.socket.once('connect', resolve);
      client.socket.once('error', reject);
    });
    return client;
  }

  /** Sends one GET and resolves with its status and body once the whole body is in. */
  get(path: string, headers: Record<string, string>): Promise<LeanResponse> {
    if (this.pending) throw new Error('LeanHttpClient: one request at a time');
    this.received = 0;
    this.bodyStart = -1;
    this.expected = -1;
    let head = `GET ${path} HTTP/1.1\r\nhost: ${this.host}\r\n`;
    for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(`${head}\r\n`);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onRead(bytes: number): boolean {
    if (this.received + bytes > this.response.length) {
      this.fail(new Error(`response larger than ${this.response.length} bytes`));
      return false;
    }
    this.readBuffer.copy(this.response, this.received, 0, bytes);
    this.received += bytes;
    if (this.bodyStart < 0) {
      const end = this.response.subarray(0, this.received).indexOf(HEADER_END);
      if (end < 0) return true;
      const head = this.response.toString('latin1', 0, end);
      const length = CONTENT_LENGTH.exec(head);
      if (!length) {
        this.fail(new Error(`response without Content-Length: ${head.split('\r\n')[0]}`));
        return false;
      }
      this.bodyStart = end + HEADER_END.length;
      this.expected = this.bodyStart + Number(length[1]);
    }
    if (this.received >= this.expected && this.pending) {
      const { resolve } = this.pending;
      this.pending = null;
      const status = Number(this.response.toString('latin1', 9, 12));
      resolve({ status, body: this.response.subarray(this.bodyStart, this.expected) });
    }
    return true;
  }

  private fail(error: Error): void {
    const pending = this.pending;
    this.pending = null;
    pending?.reject(error);
  }
}
