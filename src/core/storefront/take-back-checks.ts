// A take-back by hand against the customer's reward codes (Adjustments.takeBackChecks): the service finds one customer
// by their e-mail or their phone, while a storefront holds their codes under one of the two (serviceCustomer: the
// e-mail where the platform's record has one, else the phone; a customer may hold codes under each, in two shops or
// before and after an e-mail was added). So the take-back marks, and checks after it, the holder it names and those of
// the other identifiers the customer's orders carry with it.
import type { TakeBackChecks } from '../adjustments.ts';
import type { OperatorQueries } from '../store/ledger-store.ts';
import type { CoverChecks } from './cover-checks.ts';
import { customerKey, type ServiceCustomer } from './customer-points.ts';
import { holderId } from './reservations.ts';

export function takeBackChecks(
  store: Pick<OperatorQueries, 'customerOrders'>,
  checks: Pick<CoverChecks, 'cancelling' | 'check'>,
): TakeBackChecks {
  return {
    marking: async (account, customer) => {
      const customers = await takenFrom(store, customer);
      // Under the holders of the account's pool's first, where its customers' codes are reserved (AccountPool).
      const { holder: first } = await account.pool();
      const marks = await Promise.all(customers.map((each) => checks.cancelling(account.id, each, first)));
      return async () => {
        for (const [at, each] of customers.entries()) await checks.check(account, holderId(first, each), marks[at]);
      };
    },
  };
}

/** The customer the take-back names, then the e-mails and phones their orders carry beside that identifier. */
async function takenFrom(
  store: Pick<OperatorQueries, 'customerOrders'>,
  customer: ServiceCustomer,
): Promise<ServiceCustomer[]> {
  const orders = await store.customerOrders(customer);
  const found = new Map<string, ServiceCustomer>([[customerKey(customer), customer]]);
  for (const { snapshot } of orders) {
    const { email, mobile } = snapshot.customer;
    for (const each of [...(email ? [{ email }] : []), ...(mobile ? [{ mobile }] : [])])
      if (!found.has(customerKey(each))) found.set(customerKey(each), each);
  }
  return [...found.values()];
}
