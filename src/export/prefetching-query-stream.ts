import QueryStream from 'pg-query-stream';

type Row = unknown[];

/**
 * pg-query-stream asks the server for the next batch only after the current one has been pushed,
 * and the CSV encoder consumes a pushed batch synchronously: Postgres and Node then take turns,
 * each idle while the other works. This stream asks for batch N+1 as soon as batch N arrives,
 * so Postgres produces the next rows while Node encodes these. At most two batches are held,
 * so memory stays constant.
 */
export class PrefetchingQueryStream extends QueryStream {
  private ahead: Promise<Row[]> | undefined;

  private fetch(size: number): Promise<Row[]> {
    const batch = new Promise<Row[]>((resolve, reject) => {
      this.cursor.read(size, (error: Error | undefined, rows: Row[]) => (error ? reject(error) : resolve(rows)));
    });
    // A prefetch still in flight when the stream is destroyed must not become an unhandled rejection.
    batch.catch(() => undefined);
    return batch;
  }

  override _read(size: number): void {
    const current = this.ahead ?? this.fetch(size);
    this.ahead = undefined;
    current.then(
      (rows) => {
        if (this.destroyed) return;
        if (rows.length === size) this.ahead = this.fetch(size);
        for (const row of rows) this.push(row);
        if (rows.length < size) this.push(null);
      },
      (error: Error) => this.destroy(error),
    );
  }
}
