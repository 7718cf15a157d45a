// loyalty-bridge customer export|erase --email <e> | --phone <p> [--platform <p> --shop <s>]
// The customer's right to see and to be forgotten, for every platform: the
// export is JSON on stdout; erasure removes their personal data from every
// order, delivery, dead letter, adjustment and backup the ledger keeps.
import type { Config } from '../config.ts';
import type { CustomerMatch, ErasureReport } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import { fail, out, UsageError, withLocalEngine, type Remote } from './common.ts';

export interface CustomerArgs {
  email: string | undefined;
  phone: string | undefined;
  platform: string | undefined;
  shop: string | undefined;
}

export async function customer(
  config: Config,
  logger: Logger,
  remote: Remote | undefined,
  action: string | undefined,
  args: CustomerArgs,
): Promise<number> {
  if (action !== 'export' && action !== 'erase') throw new UsageError('customer takes export or erase');
  if (!args.email && !args.phone) throw new UsageError(`customer ${action} needs --email or --phone`);
  if (args.shop && !args.platform) throw new UsageError('--shop needs --platform');
  // A number without its country code could be several customers' in several countries.
  if (args.phone && !/^\+[\d\s().-]{7,20}$/.test(args.phone.trim()))
    throw new UsageError('--phone needs the number with its country code, like +44 20 7946 0958');
  const match: CustomerMatch = {
    platform: args.platform,
    shop: args.shop,
    emails: args.email ? [args.email] : [],
    phones: args.phone ? [args.phone] : [],
    orderIds: [],
  };
  const query = {
    ...(args.email ? { email: args.email } : {}),
    ...(args.phone ? { phone: args.phone } : {}),
    ...(args.platform ? { platform: args.platform } : {}),
    ...(args.shop ? { shop: args.shop } : {}),
  };
  if (remote) {
    if (action === 'export') {
      const { status, body } = await remote.get<unknown>(`customers/export?${new URLSearchParams(query)}`);
      if (status !== 200) return fail(`export refused: ${JSON.stringify(body)}`);
      out(JSON.stringify(body, null, 2));
      return 0;
    }
    const { status, body } = await remote.post<{ erased?: ErasureReport; error?: string }>('customers/erase', query);
    if (status !== 200 || !body.erased) return fail(`erasure refused: ${body.error ?? status}`);
    return reportErasure(body.erased);
  }
  return withLocalEngine(config, logger, async ({ engine }) => {
    if (action === 'export') {
      const data = await engine.privacy.exportCustomer(match);
      await engine.privacy.noteExport(match, 'cli');
      out(JSON.stringify({ exportedAt: new Date().toISOString(), ...data }, null, 2));
      return 0;
    }
    return reportErasure(await engine.privacy.eraseCustomer(match, 'cli'));
  });
}

function reportErasure(report: ErasureReport): number {
  out(
    `erased: ${report.orders} orders, ${report.deadLetters} dead letters, ${report.inbox} waiting deliveries, ${report.adjustments} manual adjustments, ${report.records - report.adjustments} other records`,
  );
  out('The loyalty service keeps its own copy of the customer: erase them there too (docs/privacy.md).');
  return 0;
}
