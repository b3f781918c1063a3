// `npm run db:migrate`: the same as `ledgerline migrate`.
process.argv.splice(2, process.argv.length - 2, 'migrate');
await import('../../cli/main.ts');
