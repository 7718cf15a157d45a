// loyalty-bridge accounts list | show <id> | create … | set <id> KEY=VALUE… | delete <id>
// loyalty-bridge shops list | link <platform> <shop> <account|none>
// Through a running bridge's admin API (--url), so that new credentials are checked with the service, a
// change works at once, and the audit records who made it. An API key is never printed; give it as `-` to
// read it from stdin rather than leave it in the shell's history.
import { LANES, type Lane, type LaneCounts } from '../core/lanes.ts';
import type { AccountView } from '../accounts/account-view.ts';
import { isProgramKey } from '../accounts/program-settings.ts';
import type { ShopView } from '../http/admin-accounts.ts';
import type { CredentialsCheck } from '../accounts/account-records.ts';
import { causeOfCheck } from '../accounts/check-cause.ts';
import { fail, out, UsageError, type Remote } from './common.ts';

export interface NewAccountArgs {
  name: string | undefined;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  brandId: string | undefined;
  rateLimit: string | undefined;
  /** On the bridge's own sandbox: it makes the address and credentials. */
  sandbox?: boolean;
}

type Listed = AccountView & {
  shops: Array<{ platform: string; shop: string }>;
  health: {
    paused: boolean;
    callsLastMinute: number | null;
    limitPerMinute: number | null;
    /** Absent from bridges older than the limit in words. */
    limitWords?: string | null;
    budgetSpentUntil: string | null;
    lanes: Record<Lane, LaneCounts>;
    deadLetters: number | null;
  };
};
interface Refusal {
  error?: string;
  errors?: string[];
}

/** The fields of an account a person may set (the admin API's names). */
const FIELDS = ['name', 'baseUrl', 'apiKey', 'brandId', 'rateLimitPerMinute'] as const;

const needsRemote = (command: string) =>
  fail(
    `${command}: give --url of the running bridge (and --token, or ADMIN_TOKEN): accounts change through its admin API, which checks their credentials and puts the change to work at once`,
  );

/** One line per bad field, as the bridge said them. */
const refused = (what: string, body: Refusal) => {
  process.stderr.write(`loyalty-bridge: ${what}:\n`);
  for (const line of body.errors ?? [body.error ?? 'refused']) process.stderr.write(`  ${line}\n`);
  return 1;
};

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}
/** `-` for a key read from stdin (kept out of the shell's history and the process list). */
const keyFrom = async (value: string) => (value === '-' ? readStdin() : value);

function credentials(account: AccountView): string {
  if (account.readOnly) return 'the environment’s (LOYALTY_API_KEY, LOYALTY_BRAND_ID)';
  if (!account.check) return 'not checked yet';
  const detail = account.check.detail ? `: ${account.check.detail}` : '';
  return `${account.check.status}${detail} (checked ${account.check.at})`;
}

/** What to do about a failed check, for its cause: an address refused is not a key refused. */
function checkFix(id: string, check: CredentialsCheck | null): string | undefined {
  switch (causeOfCheck(check)) {
    case 'key_refused':
      return `the service refuses its API key or brand id, so its calls wait: put them right with accounts set ${id} apiKey=- brandId=…`;
    case 'address_refused':
      return `the bridge will not send calls to that address, so its key was never tried: give the service's public https address with accounts set ${id} baseUrl=https://…, or make an account on the bridge's own sandbox with accounts create --sandbox`;
    case 'unreachable':
      return `the service could not be reached there: check the address and that the service is up, then accounts set ${id} baseUrl=… checks it again`;
    default:
      return undefined;
  }
}

function describeAccount(account: Listed) {
  out(`${account.id}  ${account.name}${account.readOnly ? '  [read-only]' : ''}`);
  out(
    `    ${account.baseUrl}, brand ${account.brandId}, key ${account.apiKeyHint}, ${account.rateLimitPerMinute} calls a minute`,
  );
  out(`    credentials: ${credentials(account)}`);
  const fix = account.health.paused ? undefined : checkFix(account.id, account.check);
  if (fix) out(`    !! ${fix}`);
  if (account.health.paused) out('    !! paused: the service refuses its credentials; its calls wait');
  if (account.health.callsLastMinute !== null)
    out(
      `    calls: ${account.health.limitWords ?? `${account.health.callsLastMinute} of ${account.health.limitPerMinute} in the last minute`}`,
    );
  if (account.health.budgetSpentUntil)
    out(`    budget spent: its orders wait until ${account.health.budgetSpentUntil}; other accounts go on`);
  for (const lane of LANES) {
    const { waiting, due, oldestDueAt } = account.health.lanes[lane];
    if (waiting > 0)
      out(
        `    ${lane}: ${due} due now of ${waiting} waiting${oldestDueAt ? `, the oldest due since ${oldestDueAt}` : ''}`,
      );
  }
  if (account.health.deadLetters) out(`    dead letters: ${account.health.deadLetters}`);
  if (account.madeFor) out(`    made by the merchant of ${account.madeFor.platform} ${account.madeFor.shop}`);
  out(`    shops: ${account.shops.map((shop) => `${shop.platform} ${shop.shop}`).join(', ') || 'none'}`);
}

export async function accounts(
  remote: Remote | undefined,
  positionals: string[],
  args: NewAccountArgs,
): Promise<number> {
  const [action, id, ...pairs] = positionals;
  if (!['list', 'show', 'create', 'set', 'delete'].includes(action ?? ''))
    throw new UsageError('accounts takes list, show <id>, create, set <id> KEY=VALUE…, or delete <id>');
  if ((action === 'show' || action === 'set' || action === 'delete') && !id)
    throw new UsageError(`accounts ${action} needs an account id (accounts list shows them)`);
  if (action === 'set' && pairs.length === 0) throw new UsageError('accounts set needs KEY=VALUE pairs');
  if (!remote) return needsRemote(`accounts ${action}`);
  const path = `accounts/${encodeURIComponent(id ?? '')}`;

  switch (action) {
    case 'list': {
      const { body } = await remote.get<{ accounts: Listed[] }>('accounts');
      for (const account of body.accounts) describeAccount(account);
      return 0;
    }
    case 'show':
      return showAccount(remote, id, path);
    case 'create':
      return args.sandbox ? createOnSandbox(remote, args) : createAccount(remote, args);
    case 'set':
      return setAccount(remote, id, path, pairs);
    case 'delete': {
      const { status, body } = await remote.delete<Refusal>(path);
      if (status !== 200) return refused(`account ${id} was not deleted`, body);
      out(`deleted ${id}`);
      return 0;
    }
  }
  return 2;
}

/** accounts show <id>: the account as listed, then the settings in force. */
async function showAccount(remote: Remote, id: string | undefined, path: string): Promise<number> {
  const { status, body } = await remote.get<{ account: Listed } & Refusal>(path);
  if (status !== 200) return refused(`no account ${id}`, body);
  describeAccount(body.account);
  const settings = await remote.get<{ settings: Record<string, unknown>; saved: Record<string, unknown> }>(
    `${path}/settings`,
  );
  out('    settings in force (* saved for this account, the rest its defaults):');
  for (const [key, value] of Object.entries(settings.body.settings))
    out(`      ${key in settings.body.saved ? '*' : ' '} ${key} = ${JSON.stringify(value)}`);
  return 0;
}

/** accounts create --sandbox: the bridge's sandbox makes the address and credentials. */
async function createOnSandbox(remote: Remote, args: NewAccountArgs): Promise<number> {
  const { status, body } = await remote.post<{ account: AccountView } & Refusal>('accounts', {
    sandbox: true,
    ...(args.name !== undefined ? { name: args.name } : {}),
  });
  if (status !== 201) return refused('the account was not created', body);
  out(
    `created ${body.account.id} (${body.account.name}) on the bridge's sandbox: credentials ${credentials(body.account)}`,
  );
  return 0;
}

/** accounts create with the merchant's own address and credentials, checked by the bridge. */
async function createAccount(remote: Remote, args: NewAccountArgs): Promise<number> {
  const missing = (
    [
      ['--name', args.name],
      ['--base-url', args.baseUrl],
      ['--api-key', args.apiKey],
      ['--brand-id', args.brandId],
    ] as const
  )
    .filter(([, value]) => value === undefined)
    .map(([name]) => name);
  if (missing.length > 0) throw new UsageError(`accounts create needs ${missing.join(', ')}`);
  const { status, body } = await remote.post<{ account: AccountView } & Refusal>('accounts', {
    name: args.name,
    baseUrl: args.baseUrl,
    apiKey: await keyFrom(args.apiKey ?? ''),
    brandId: args.brandId,
    ...(args.rateLimit !== undefined ? { rateLimitPerMinute: wholeNumber('--rate-limit', args.rateLimit) } : {}),
  });
  if (status !== 201) return refused('the account was not created', body);
  out(`created ${body.account.id} (${body.account.name}): credentials ${credentials(body.account)}`);
  const fix = checkFix(body.account.id, body.account.check);
  if (fix) out(`!! ${fix}`);
  return 0;
}

/** accounts set <id> KEY=VALUE…: the fields, then the settings, each change told or refused on its own. */
async function setAccount(remote: Remote, id: string | undefined, path: string, pairs: string[]): Promise<number> {
  const { fields, settings } = await readPairs(pairs);
  let failed = false;
  if (Object.keys(fields).length > 0) {
    const { status, body } = await remote.patch<{ account: AccountView } & Refusal>(path, fields);
    if (status !== 200) failed = refused(`account ${id} was not changed`, body) > 0;
    else out(`changed ${Object.keys(fields).join(', ')} of ${id}: credentials ${credentials(body.account)}`);
  }
  if (Object.keys(settings).length > 0) {
    const { status, body } = await remote.patch<Refusal>(`${path}/settings`, settings);
    if (status !== 200) failed = refused(`the settings of ${id} were not changed`, body) > 0;
    else out(`changed ${Object.keys(settings).join(', ')} of ${id}`);
  }
  return failed ? 1 : 0;
}

export async function shops(remote: Remote | undefined, positionals: string[]): Promise<number> {
  const [action, platform, shop, account] = positionals;
  if (action !== 'list' && action !== 'link')
    throw new UsageError('shops takes list, or link <platform> <shop> <account|none>');
  if (action === 'link' && (!platform || !shop || !account))
    throw new UsageError('shops link needs <platform> <shop> <account|none>');
  if (!remote) return needsRemote(`shops ${action}`);
  const earnsOn = (view: ShopView) =>
    view.account === null ? 'earns on no account' : `earns on ${view.accountName ?? view.account} (${view.account})`;

  if (action === 'list') {
    const { body } = await remote.get<{ shops: ShopView[] }>('shops');
    if (body.shops.length === 0) out('no shops yet');
    for (const view of body.shops)
      out(`${view.platform.padEnd(12)} ${view.shop.padEnd(40)} ${earnsOn(view)}${view.link ? '' : ' (no link)'}`);
    return 0;
  }
  const { status, body } = await remote.patch<{ shop: ShopView } & Refusal>(
    `shops/${encodeURIComponent(platform ?? '')}/${encodeURIComponent(shop ?? '')}`,
    { account: account === 'none' ? null : account },
  );
  if (status !== 200) return refused(`${platform} ${shop} was not linked`, body);
  out(`${platform} ${shop} ${earnsOn(body.shop)}`);
  return 0;
}

/** KEY=VALUE pairs: an account's fields by their API names, program settings by their configuration names (KEY= for the default). */
async function readPairs(pairs: string[]) {
  const fields: Record<string, unknown> = {};
  const settings: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`${pair} is not KEY=VALUE`);
    const key = pair.slice(0, at);
    const value = pair.slice(at + 1);
    if ((FIELDS as readonly string[]).includes(key))
      fields[key] =
        key === 'rateLimitPerMinute' ? wholeNumber(key, value) : key === 'apiKey' ? await keyFrom(value) : value;
    else if (isProgramKey(key)) settings[key] = value === '' ? null : value;
    else
      throw new UsageError(
        `${key} is neither a field of an account (${FIELDS.join(', ')}) nor a program setting (EARN_TRIGGER, MIN_ORDER_TOTAL, …)`,
      );
  }
  return { fields, settings };
}

function wholeNumber(name: string, text: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new UsageError(`${name} ${text} is not a whole number`);
  return Number(text);
}
