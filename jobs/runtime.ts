import type { AppRuntime } from '../src/app/app-runtime.ts';
import type { Queues } from './definitions.ts';

/**
 * The long-lived resources one process shares between its workers, queues
 * and commands: the application's runtime and the queues themselves. Built (and
 * released) by the composition root, jobs/composition/create-runtime.ts; jobs
 * and commands only receive it.
 */
export interface Runtime extends AppRuntime {
  queues: Queues;
}
