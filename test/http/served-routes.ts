import type { FastifyInstance, HTTPMethods } from 'fastify';

export interface ServedRoute {
  readonly method: HTTPMethods;
  /** The pattern as registered, prefix included: `/admin/queues/api/queues/:queueName/pause`. */
  readonly url: string;
}

// One line of fastify's route tree: the branch drawing (4 characters a level), the path piece
// the node adds to its parent's, and the methods served there, if any. The compressed tree (the
// default) is read: with `commonPrefix: false` a wildcard node loses the pieces above it
// (`/admin/queues/static/*` prints as `/admin/queues/*`).
const TREE_LINE = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/;

/**
 * Every route the app serves, read from the app itself (its printed route tree), so a route a
 * plugin adds in a later version is tried without anybody listing it. Each parsed route is
 * checked against `hasRoute`: a change in the tree's drawing fails here, not silently.
 */
export function servedRoutes(app: FastifyInstance): ServedRoute[] {
  const stack: string[] = [];
  const routes: ServedRoute[] = [];
  for (const line of app.printRoutes().split('\n')) {
    if (line.trim() === '') continue;
    const match = TREE_LINE.exec(line);
    if (!match) throw new Error(`unexpected line in the route tree: ${JSON.stringify(line)}`);
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const url = stack.join('');
    for (const method of (match[3] ?? '').split(', ').filter(Boolean) as HTTPMethods[]) {
      if (!app.hasRoute({ method, url })) throw new Error(`parsed ${method} ${url}, which the app does not serve`);
      routes.push({ method, url });
    }
  }
  return routes;
}
