// 5: acknowledgement while the store's own API hangs. BigCommerce's
// deliveries are thin: the order behind each is read from its API, after the
// answer. The same load twice, against a BigCommerce API (the test fake, over
// HTTP) that answers, then one that holds every request unanswered: the
// acknowledgement must not notice.
import { bcOrder } from '../../test/helpers/bigcommerce.ts';
import { startFakeBigCommerce } from '../../test/helpers/fake-bigcommerce.ts';
import { bigCommerceLoad } from '../lib/load.ts';
import { measure, startBridgeProcess, startSandbox, type AckOptions, type AckSummary } from './ack.ts';

const STORE = 'benchstore';
const HEADER_SECRET = 'bench-bigcommerce-header-secret-0123';

export interface PlatformHangResult {
  answering: AckSummary;
  hung: AckSummary;
}

export async function platformHangScenario(options: AckOptions): Promise<PlatformHangResult> {
  const sandbox = await startSandbox();
  const bigcommerce = await startFakeBigCommerce({ storeHash: STORE, accessToken: 'bench-token' });
  // A large store: any order asked for exists, and the quota is not what is measured here.
  bigcommerce.orderFor = (id) => bcOrder(id, 11);
  bigcommerce.quota = { requests: 1_000_000, windowMs: 30_000 };
  const env = {
    BIGCOMMERCE_STORE_HASH: STORE,
    BIGCOMMERCE_ACCESS_TOKEN: 'bench-token',
    BIGCOMMERCE_WEBHOOK_SECRET: HEADER_SECRET,
    BIGCOMMERCE_API_URL: bigcommerce.url,
  };
  // The stop is not measured: against the hung API it would wait the whole SHUTDOWN_TIMEOUT_MS (10 s) for reads
  // that never end, so the bridge is given 1 s.
  const start = async () => {
    const server = await startBridgeProcess(sandbox.url, { ...env, SHUTDOWN_TIMEOUT_MS: '1000' });
    return { urls: [server.url], stop: () => server.stop() };
  };
  const load = (urls: string[]) => bigCommerceLoad(urls[0]!, HEADER_SECRET, options);
  try {
    const answering = await measure(start, options, load);
    const release = bigcommerce.hold();
    try {
      const hung = await measure(start, options, load);
      return { answering, hung };
    } finally {
      release();
    }
  } finally {
    await bigcommerce.close();
    await sandbox.stop();
  }
}
