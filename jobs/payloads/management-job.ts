/** Payload of a management job: which recorded action to run. Never a parameter, never a secret. */
export interface ManagementJob {
  actionId: string;
}

/** One job per action: enqueueing it again while it waits or runs adds nothing. (BullMQ reserves ':'.) */
export function managementJobId(actionId: string): string {
  return `management.${actionId}`;
}
