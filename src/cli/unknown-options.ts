import type { Command } from 'commander';

const HELP = new Set(['-h', '--help']);

/**
 * Refuses an option no command knows (`--acount`, a typo) before anything else is checked.
 * commander checks a command's required options first, so `backfill --acount main` said
 * "required option '--account <name>' not specified", never naming the word typed. This walks
 * to the command the arguments name, with commander's own option parsing, and lets commander
 * refuse the first unknown option: "error: unknown option '--acount' (Did you mean --account?)",
 * exit 2. A request for help is left to commander.
 */
export function refuseUnknownOptions(program: Command, args: readonly string[]): void {
  if (args.some((arg) => HELP.has(arg))) return;
  let command = program;
  let rest = [...args];
  for (;;) {
    const { operands, unknown } = command.parseOptions(rest);
    const name = operands[0];
    const sub =
      name === undefined ? undefined : command.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (sub === undefined) {
      const option = unknown.find((arg) => arg.startsWith('-'));
      if (option !== undefined) refuse(command, option);
      return;
    }
    rest = [...operands.slice(1), ...unknown];
    command = sub;
  }
}

/**
 * commander's own refusal, with its "Did you mean" (a method its types leave out); its plain
 * error should a later commander drop the method.
 */
function refuse(command: Command, option: string): never {
  if ('unknownOption' in command && typeof command.unknownOption === 'function') {
    command.unknownOption.call(command, option);
  }
  return command.error(`error: unknown option '${option}'`, { exitCode: 2, code: 'commander.unknownOption' });
}
