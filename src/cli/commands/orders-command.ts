import type { Command } from 'commander';

import { ValidationError } from '../../errors/index.ts';
import type { CancelSymbolOrderParams } from '../../exchange/index.ts';
import type { OrderRef } from '../../management/action-input.ts';
import { type ActionCommandOptions, actionOptions, runActionCommand } from '../management/action-command.ts';
import { readIdFile, readOrdersCsv } from '../management/cli-input.ts';
import { runTool } from '../run-tool.ts';

interface CancelAllOptions extends ActionCommandOptions {
  category: string;
  symbol?: string;
}

interface CancelOptions extends ActionCommandOptions {
  symbol?: string;
  orderIds?: string;
  clientOids?: string;
  orders?: string;
}

async function ordersOf(options: CancelOptions): Promise<OrderRef[]> {
  const given = [options.orderIds, options.clientOids, options.orders].filter((file) => file !== undefined);
  if (given.length !== 1) {
    throw new ValidationError('--order-ids', 'give exactly one of --order-ids, --client-oids and --orders');
  }
  if (options.orders !== undefined) {
    if (options.symbol !== undefined) {
      throw new ValidationError('--symbol', "is not used with --orders: the file names each order's symbol");
    }
    return readOrdersCsv(options.orders);
  }
  if (options.symbol === undefined) {
    throw new ValidationError('--symbol', 'is required with --order-ids and --client-oids');
  }
  return options.orderIds !== undefined
    ? readIdFile('--order-ids', options.orderIds, options.symbol)
    : readIdFile('--client-oids', options.clientOids!, options.symbol);
}

export function registerOrdersCommands(program: Command): void {
  const orders = program.command('orders').description('cancel open orders (audited jobs, one outcome per order)');

  actionOptions(
    orders
      .command('cancel-all')
      .description('cancel every open order of a category, or of one symbol in it (cancel-symbol-order)')
      .requiredOption('--category <category>', 'SPOT, MARGIN, USDT-FUTURES, COIN-FUTURES or USDC-FUTURES')
      .option('--symbol <symbol>', 'only this symbol'),
  ).action((options: CancelAllOptions) =>
    runTool((config) =>
      runActionCommand(
        config,
        {
          command: 'orders_cancel_all',
          params: {
            category: options.category as CancelSymbolOrderParams['category'],
            ...(options.symbol === undefined ? {} : { symbol: options.symbol }),
          },
        },
        options,
      ),
    ),
  );

  actionOptions(
    orders
      .command('cancel')
      .description(
        'cancel any number of spot orders (batch-cancel-order: at most 50 per request, one identifier kind per request, multiple mode across symbols)',
      )
      .option('--symbol <symbol>', 'the symbol of every order in --order-ids / --client-oids')
      .option('--order-ids <file>', 'one orderId per line')
      .option('--client-oids <file>', 'one clientOid per line')
      .option(
        '--orders <file>',
        'CSV with header symbol,orderId,clientOid (one id per row): orders over several symbols',
      ),
  ).action((options: CancelOptions) =>
    runTool(async (config) => {
      await runActionCommand(
        config,
        { command: 'orders_batch_cancel', params: { orders: await ordersOf(options) } },
        options,
      );
    }),
  );
}
