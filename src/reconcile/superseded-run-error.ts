import { PermanentError } from '../errors/index.ts';

/**
 * A queued reconciliation run that lost its claim (its process stalled past the claim's expiry and
 * another process took the job): it writes nothing, neither report nor run row nor outcome, and
 * stops. The run that holds the claim now writes them, once.
 */
export class SupersededRunError extends PermanentError {
  constructor(accountId: string) {
    super(`the reconciliation of account ${accountId} lost its claim to another run: it wrote nothing`, {
      code: 'RECONCILIATION_SUPERSEDED',
      field: 'claim',
      rule: 'only the run holding the latest claim on a job writes its outcome',
    });
  }
}
