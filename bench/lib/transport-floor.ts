import { spawn } from 'node:child_process';

import { type ClientKind, type Latencies, openTransport, summarize } from './latency.ts';

/**
 * The machine's own floor: a bare node:http server in its own process that
 * answers every request with one fixed buffer of a page's size, measured with
 * the same client and the same warm-up as the server under test. A server's
 * tail is read against this, side by side in one run.
 */
export async function transportFloor(
  bytes: number,
  kind: ClientKind,
  counts: { warmup: number; samples: number },
): Promise<Latencies> {
  const script = `const b=Buffer.alloc(${bytes},32);require('node:http').createServer((q,r)=>{r.writeHead(200,{'content-type':'application/json','content-length':b.length});r.end(b)}).listen(0,'127.0.0.1',function(){process.stdout.write(this.address().port+'\\n')})`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve) =>
      child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))),
    );
    const transport = await openTransport(kind, `http://127.0.0.1:${port}`);
    const samples: number[] = [];
    let started = performance.now();
    for (let i = 0; i < counts.warmup + counts.samples; i++) {
      if (i === counts.warmup) started = performance.now();
      const t0 = performance.now();
      const res = await transport.get('/', {});
      if (res.body.length !== bytes) throw new Error(`floor: got ${res.body.length} bytes`);
      if (i >= counts.warmup) samples.push(performance.now() - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    await transport.close();
    return summarize(samples, seconds);
  } finally {
    child.kill('SIGTERM');
  }
}
