import { Readable } from 'node:stream';

import type pg from 'pg';

import { CopyOutMessages } from './copy-out-messages.ts';

/** Where a COPY's rows go, and what it gives back to write: whole blocks, not a chunk per row. */
export interface CopyRowSink {
  /** One row as COPY wrote it, its newline included: buf[start, end). */
  row(buf: Buffer, start: number, end: number): void;
  /** The blocks completed since the last call ([] when none). */
  takeBlocks(): Buffer[];
  /** Every block still held, at the end of the copy. */
  finish(): Buffer[];
}

// Blocks held before the socket is paused (16 of 256 KB): while the sink falls behind for a moment
// (a file write waiting for a thread on a busy machine), rows keep coming off the socket instead
// of Postgres stalling on its full buffers.
const HIGH_WATER_MARK = 4 << 20;
// Node reads a socket 64 KB at a time: a shorter read means it was drained, and waking for every
// ~8 KB Postgres flushes costs the export more CPU than the rows themselves (about 19,000 reads of
// 9.5 KB for the bench's million rows). After such a read the socket rests this long, while
// Postgres keeps writing into its buffers (MBs on loopback): 2 ms is ~100 KB at its pace, read in
// a few calls. Measured at 1M rows, alternating in one process: 0.25-0.35 s less export CPU, and
// the wall time no longer than without.
const DRAINED_BELOW = 64 * 1024;
const REST_MS = 2;

/**
 * `COPY ... TO STDOUT` as a Readable of the blocks `rows` makes of its rows: a node-postgres
 * Submittable that reads the connection's socket itself while the copy lasts, as pg-copy-streams'
 * `to` does, but hands each row to `rows` in place (copy-out-messages.ts) instead of pushing the
 * socket's bytes on through Transforms that search them for row ends again and hash them (the
 * former pg-copy-streams, FlagStripper and hashing hops). Backpressure pauses the socket, which
 * in turn holds Postgres back.
 */
export class CopyOutQuery extends Readable implements pg.Submittable {
  private connection: pg.Connection | undefined;
  private pgDataHandler: ((chunk: Buffer) => void) | undefined;
  private readonly messages: CopyOutMessages;
  private readonly onData = (chunk: Buffer) => this.consume(chunk);
  // Paused because the reader has enough (until _read), or resting after a short read (until the timer).
  private backpressured = false;
  private resting: NodeJS.Timeout | undefined;
  private readonly endRest = () => {
    this.resting = undefined;
    if (!this.backpressured) this.connection?.stream.resume();
  };

  constructor(
    readonly text: string,
    private readonly rows: CopyRowSink,
  ) {
    super({ highWaterMark: HIGH_WATER_MARK });
    this.messages = new CopyOutMessages((buf, start, end) => rows.row(buf, start, end));
  }

  submit(connection: pg.Connection): void {
    const socket = connection.stream;
    const listeners = socket.listeners('data');
    // node-postgres reads the socket with one 'data' listener (its protocol parser): borrow it.
    if (listeners.length !== 1) throw new Error(`COPY expects one reader on the connection, found ${listeners.length}`);
    this.connection = connection;
    this.pgDataHandler = listeners[0] as (chunk: Buffer) => void;
    socket.removeListener('data', this.pgDataHandler);
    socket.on('data', this.onData);
    connection.query(this.text);
  }

  override _read(): void {
    this.backpressured = false;
    if (!this.resting) this.connection?.stream.resume();
  }

  // The error node-postgres parsed from the bytes handed back to it (the query failed or was cancelled).
  handleError(error: Error): void {
    this.destroy(error);
  }

  handleCommandComplete(): void {}

  // Stopped midway (the sink failed): stop reading; ending the client drops the connection.
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.resting);
    this.connection?.stream.pause();
    callback(error);
  }

  handleReadyForQuery(): void {}

  private consume(chunk: Buffer): void {
    if (this.destroyed) return;
    let more = true;
    try {
      const end = this.messages.feed(chunk);
      for (const block of this.rows.takeBlocks()) more = this.push(block);
      if (end) {
        if (end.kind === 'done') for (const block of this.rows.finish()) this.push(block);
        this.giveBack(end.rest);
        if (end.kind === 'done') this.push(null);
        return;
      }
    } catch (error) {
      this.destroy(error as Error);
      return;
    }
    if (!more) {
      this.backpressured = true;
      this.connection?.stream.pause();
    } else if (chunk.length < DRAINED_BELOW && !this.resting) {
      this.connection?.stream.pause();
      this.resting = setTimeout(this.endRest, REST_MS);
    }
  }

  /** The socket back to node-postgres, with the bytes after the copy for its parser. */
  private giveBack(rest: Buffer): void {
    clearTimeout(this.resting);
    this.resting = undefined;
    const socket = this.connection!.stream;
    socket.removeListener('data', this.onData);
    socket.on('data', this.pgDataHandler!);
    this.connection = undefined;
    if (rest.length > 0) this.pgDataHandler!(rest);
    socket.resume();
  }
}
