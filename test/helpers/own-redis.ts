import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import net from 'node:net';

/**
 * A redis-server of the test's own on a free loopback port, without persistence: a test may flush
 * it, stop it and start it again (a restart that loses everything), never touching the shared one.
 */
export interface OwnRedis {
  readonly port: number;
  readonly url: string;
  /** Kills the server (SIGKILL) and starts a new one, empty, on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function answers(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    try {
      execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'pipe' });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`redis-server on port ${port} did not answer`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startOwnRedis(): Promise<OwnRedis> {
  let port = 0;
  for (let candidate = 30_000 + Math.floor(Math.random() * 9_000); port === 0; candidate += 1) {
    if (await portFree(candidate)) port = candidate;
  }
  const launch = async () => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    await answers(port);
    return child;
  };
  let server = await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async restart() {
      server.kill('SIGKILL');
      await exited(server);
      server = await launch();
    },
    async stop() {
      server.kill('SIGKILL');
      await exited(server);
    },
  };
}
