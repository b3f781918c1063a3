import { SUBKEY_PASSPHRASE_VARIABLE, subkeyPassphraseFromEnv } from '../../config/subkey-passphrase-env.ts';
import { ValidationError } from '../../errors/index.ts';
import type { ActionInput } from '../../management/action-input.ts';
import { planAction } from '../../management/action-plan.ts';
import { promptSecret } from '../prompt-secret.ts';

// Stands in for the passphrase while everything else is checked, and in a dry run (printed as [redacted]).
const PLACEHOLDER = 'Placeholder1';

/**
 * Builds an action that needs a key passphrase: checks every other field
 * first (so a typo costs no prompt), then takes the passphrase from the
 * environment or a silent prompt. A dry run does not ask for it.
 */
export async function withPassphrase(
  build: (passphrase: string) => ActionInput,
  dryRun: boolean | undefined,
): Promise<ActionInput> {
  planAction(build(PLACEHOLDER));
  const fromEnv = subkeyPassphraseFromEnv();
  if (dryRun) return build(fromEnv ?? PLACEHOLDER);
  const passphrase = fromEnv ?? (await promptSecret('passphrase of the API key (8-32 letters and digits): '));
  if (!passphrase) {
    throw new ValidationError(
      'passphrase',
      `is required: set ${SUBKEY_PASSPHRASE_VARIABLE} or run in a terminal to be prompted`,
    );
  }
  return build(passphrase);
}
