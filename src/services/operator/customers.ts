// The operator's customers: their points at the loyalty service, and privacy (exporting what the bridge holds about
// a customer, erasing it, erasing a shop, and the data requests and their log).
import type { DataRequestRecord, PrivacyLogEntry } from '../../core/privacy.ts';
import type { CustomerData, CustomerMatch, ErasureReport } from '../../core/store/ledger-store.ts';
import type { TransactionType } from '../../loyalty/protocol.ts';
import { Declined } from './declined.ts';
import type { OperatorParts } from './parts.ts';

export interface PointsAsked {
  type: TransactionType;
  email?: string | undefined;
  mobile?: string | undefined;
  /** The loyalty account whose points to read; the default account's when unset. */
  account?: string | undefined;
}

/** Privacy requests are recorded as the admin's, whichever token asked. */
const ASKED_BY = 'admin';

export interface OperatorCustomers {
  /** The customer's transactions at the loyalty service, as it answers them. */
  points(asked: PointsAsked): Promise<{ type: TransactionType; account: string } & Record<string, unknown>>;
  exportCustomer(
    match: CustomerMatch,
    account: string | undefined,
  ): Promise<
    {
      exportedAt: string;
      request: { platform: string | null; shop: string | null; account: string | null };
    } & CustomerData
  >;
  eraseCustomer(match: CustomerMatch, account: string | undefined): Promise<{ erased: ErasureReport }>;
  eraseShop(platform: string, shop: string): Promise<{ erased: ErasureReport }>;
  privacy(): Promise<{ dataRequests: DataRequestRecord[]; log: PrivacyLogEntry[] }>;
  closeDataRequest(id: string): Promise<{ closed: string }>;
}

export const operatorCustomers = ({ engine, client }: OperatorParts): OperatorCustomers => ({
  points: async (asked: PointsAsked) => {
    const account = asked.account ? await engine.accounts.runtime(asked.account) : undefined;
    if (asked.account && !account?.client.transactions) throw new Declined(404, `no account ${asked.account}`);
    const transactions = account?.client.transactions?.bind(account.client) ?? client.transactions.bind(client);
    const result = await transactions({
      type: asked.type,
      ...(asked.email ? { email: asked.email } : { mobile: asked.mobile ?? '' }),
    });
    return { type: asked.type, account: asked.account ?? 'default', ...result.data };
  },
  /** Everything the bridge holds about a customer (of one account, if named); the export is logged. */
  exportCustomer: async (match: CustomerMatch, account: string | undefined) => {
    const data = await engine.privacy.exportCustomer(match, account);
    await engine.privacy.noteExport(match, ASKED_BY);
    return {
      exportedAt: new Date().toISOString(),
      request: { platform: match.platform ?? null, shop: match.shop ?? null, account: account ?? null },
      ...data,
    };
  },
  eraseCustomer: async (match: CustomerMatch, account: string | undefined) => ({
    erased: await engine.privacy.eraseCustomer(match, ASKED_BY, account),
  }),
  eraseShop: async (platform: string, shop: string) => ({
    erased: await engine.privacy.eraseShop(platform, shop, ASKED_BY),
  }),
  privacy: async () => ({ dataRequests: await engine.privacy.dataRequests(), log: await engine.privacy.log() }),
  closeDataRequest: async (id: string) => {
    if (!(await engine.privacy.closeDataRequest(id))) throw new Declined(404, `no data request ${id}`);
    return { closed: id };
  },
});
