// What the sandbox holds and the rules of the loyalty service, as DESIGN.md
// fixes them. Pure in-memory state with no HTTP in it: every rule returns a
// tagged result, and the routes only translate it into the envelope.

export type EarningStatus = 'pending' | 'approved' | 'cancelled';

export interface Earning {
  id: number;
  activityId: string;
  /** Exact decimal digits, or null for an earn sent without an order. */
  orderId: string | null;
  name: string;
  email: string;
  mobile: string;
  description: string | null;
  points: number;
  status: EarningStatus;
  createdAt: string;
  updatedAt: string;
  approvedAt: string | null;
  cancelledAt: string | null;
}

export interface Redemption {
  id: number;
  email: string;
  mobile: string;
  points: number;
  createdAt: string;
}

export type ConversionStatus = 'pending' | 'approved' | 'rejected';

export interface Conversion {
  id: number;
  campaignId: number;
  orderId: string;
  /** sale or register; null when the caller sent none. */
  event: string | null;
  /** The one referrer field sent, as it came: referrer_code and its value, say. */
  referrer: { field: string; value: string };
  refereeName: string | null;
  refereeEmail: string | null;
  refereeMobile: string | null;
  /** Exact decimal text, as sent. */
  purchaseAmount: string | null;
  customValue: string | null;
  /** Moved by conversion/confirm: pending to approved or rejected; approved to rejected; rejected is final. */
  status: ConversionStatus;
  remark: string | null;
  createdAt: string;
  updatedAt: string;
}

export type ConversionInput = Omit<Conversion, 'id' | 'status' | 'remark' | 'createdAt' | 'updatedAt'>;

/** Why conversion/confirm refused: the documented "conversion does not exist", or a move the rules forbid. */
export type ConfirmRefusal = { reason: 'missing' } | { reason: 'final'; detail: string };

export interface SandboxState {
  earnings: Earning[];
  redemptions: Redemption[];
  conversions: Conversion[];
}

export interface Customer {
  name: string;
  email: string;
  mobile: string;
}

export interface Balance {
  pending: number;
  approved: number;
  redeemed: number;
  available: number;
}

/** A rule's answer: what changed, or why the call is refused (400 with this detail). */
export type RuleResult<T> = { ok: true; value: T } | { ok: false; detail: string };

const refuse = (detail: string): { ok: false; detail: string } => ({ ok: false, detail });

export interface EarnRequest {
  activityId: string;
  points: number;
  name: string;
  email: string;
  mobile: string;
  description: string | null;
  orderId: string | null;
}

export type CustomerLookup = { email: string } | { mobile: string };

export class SandboxStore {
  #earnings: Earning[] = [];
  #byActivityOrder = new Map<string, Earning>();
  #byOrder = new Map<string, Earning[]>();
  #redemptions: Redemption[] = [];
  #conversions = new Map<string, Conversion>();
  #customers = new Map<string, Customer>();
  #emailByMobile = new Map<string, string>();
  #nextId = 1;
  readonly #now: () => Date;

  #last = 0;

  constructor(now: () => Date = () => new Date()) {
    // Strictly increasing times, so histories sort in the order things happened even within a millisecond.
    this.#now = () => {
      this.#last = Math.max(now().getTime(), this.#last + 1);
      return new Date(this.#last);
    };
  }

  /** Earn "sends or updates": with an order id it is an upsert on (activity, order). */
  earn(request: EarnRequest): { earning: Earning; created: boolean } {
    const now = this.#now().toISOString();
    this.#rememberCustomer({ name: request.name, email: request.email, mobile: request.mobile });
    const key = request.orderId === null ? null : `${request.activityId}\u0000${request.orderId}`;
    const existing = key === null ? undefined : this.#byActivityOrder.get(key);
    if (existing) {
      // The customer's details may be corrected; points and status are not reset.
      Object.assign(existing, {
        name: request.name,
        email: request.email,
        mobile: request.mobile,
        description: request.description ?? existing.description,
        updatedAt: now,
      });
      return { earning: existing, created: false };
    }
    const earning: Earning = {
      id: this.#nextId++,
      activityId: request.activityId,
      orderId: request.orderId,
      name: request.name,
      email: request.email,
      mobile: request.mobile,
      description: request.description,
      points: request.points,
      status: 'pending',
      createdAt: now,
      updatedAt: now,
      approvedAt: null,
      cancelledAt: null,
    };
    this.#earnings.push(earning);
    if (key !== null && request.orderId !== null) {
      this.#byActivityOrder.set(key, earning);
      this.#byOrder.set(request.orderId, [...(this.#byOrder.get(request.orderId) ?? []), earning]);
    }
    return { earning, created: true };
  }

  /** approve: pending to approved. cancel: pending or approved to cancelled. Cancelled is final; repeats are no-ops. */
  updatePoints(orderId: string, change: 'approve' | 'cancel'): RuleResult<{ earnings: Earning[]; changed: number }> {
    const earnings = this.#byOrder.get(orderId) ?? [];
    if (earnings.length === 0) return refuse(`no points were earned for lp_orderid ${orderId}`);
    const target: EarningStatus = change === 'approve' ? 'approved' : 'cancelled';
    if (change === 'approve' && earnings.some((earning) => earning.status === 'cancelled')) {
      return refuse(`the points for lp_orderid ${orderId} are cancelled and cannot be approved`);
    }
    const now = this.#now().toISOString();
    let changed = 0;
    for (const earning of earnings) {
      if (earning.status === target) continue;
      earning.status = target;
      earning.updatedAt = now;
      if (target === 'approved') earning.approvedAt = now;
      else earning.cancelledAt = now;
      changed++;
    }
    return { ok: true, value: { earnings, changed } };
  }

  redeem(lookup: CustomerLookup, points: number): RuleResult<{ redemption: Redemption; balance: Balance }> {
    const customer = this.findCustomer(lookup);
    if (!customer) return refuse(`no customer found for ${'email' in lookup ? 'lp_email' : 'lp_mobile'}`);
    const balance = this.balance(customer);
    if (points > balance.available) {
      return refuse(`lp_points ${points} exceeds the available balance of ${balance.available}`);
    }
    const redemption: Redemption = {
      id: this.#nextId++,
      email: customer.email,
      mobile: customer.mobile,
      points,
      createdAt: this.#now().toISOString(),
    };
    this.#redemptions.push(redemption);
    return { ok: true, value: { redemption, balance: this.balance(customer) } };
  }

  /**
   * Records a referral conversion once per (campaign, order). A repeat is a
   * success that records nothing new.
   */
  addConversion(input: ConversionInput): { conversion: Conversion; created: boolean } {
    const key = `${input.campaignId}\u0000${input.orderId}`;
    const existing = this.#conversions.get(key);
    if (existing) return { conversion: existing, created: false };
    const now = this.#now().toISOString();
    const conversion: Conversion = {
      id: this.#nextId++,
      ...input,
      status: 'pending',
      remark: null,
      createdAt: now,
      updatedAt: now,
    };
    this.#conversions.set(key, conversion);
    return { conversion, created: true };
  }

  /**
   * Approves or rejects the conversion of (campaign, order) for an event.
   * Repeating the current state is a no-op success; an approved conversion
   * can still be rejected (a refund after fulfilment); a rejected one is final.
   */
  confirmConversion(
    key: { campaignId: number; orderId: string; event: string },
    decision: 'approve' | 'reject',
    remark: string | null,
  ): { ok: true; conversion: Conversion; changed: boolean } | ({ ok: false } & ConfirmRefusal) {
    const conversion = this.#conversions.get(`${key.campaignId}\u0000${key.orderId}`);
    // An add without an event counts as a sale, the event the service records orders under.
    if (!conversion || (conversion.event ?? 'sale') !== key.event) return { ok: false, reason: 'missing' };
    const target: ConversionStatus = decision === 'approve' ? 'approved' : 'rejected';
    if (conversion.status === target) return { ok: true, conversion, changed: false };
    if (conversion.status === 'rejected')
      return {
        ok: false,
        reason: 'final',
        detail: `the conversion of order_id ${key.orderId} was rejected and cannot be approved`,
      };
    conversion.status = target;
    conversion.remark = remark ?? conversion.remark;
    conversion.updatedAt = this.#now().toISOString();
    return { ok: true, conversion, changed: true };
  }

  findCustomer(lookup: CustomerLookup): Customer | undefined {
    const email =
      'email' in lookup ? lookup.email.toLowerCase() : this.#emailByMobile.get(normaliseMobile(lookup.mobile));
    return email === undefined ? undefined : this.#customers.get(email);
  }

  earningsOf(customer: Customer): Earning[] {
    const email = customer.email.toLowerCase();
    return this.#earnings.filter((earning) => earning.email.toLowerCase() === email);
  }

  redemptionsOf(customer: Customer): Redemption[] {
    const email = customer.email.toLowerCase();
    return this.#redemptions.filter((redemption) => redemption.email.toLowerCase() === email);
  }

  /** Available to redeem: approved minus redeemed. A cancelled approval can take it below zero. */
  balance(customer: Customer): Balance {
    const sum = (status: EarningStatus) =>
      this.earningsOf(customer)
        .filter((earning) => earning.status === status)
        .reduce((total, earning) => total + earning.points, 0);
    const redeemed = this.redemptionsOf(customer).reduce((total, redemption) => total + redemption.points, 0);
    const approved = sum('approved');
    return { pending: sum('pending'), approved, redeemed, available: approved - redeemed };
  }

  /** The earning for an order under an activity, without copying the whole state. */
  earningFor(activityId: string, orderId: string): Readonly<Earning> | undefined {
    return this.#byActivityOrder.get(`${activityId}\u0000${orderId}`);
  }

  snapshot(): SandboxState {
    return structuredClone({
      earnings: this.#earnings,
      redemptions: this.#redemptions,
      conversions: [...this.#conversions.values()],
    });
  }

  /**
   * Starts over from a saved snapshot() (the upgrade tests' recorded state of
   * an earlier run): what it holds, the customers its earnings name, ids and
   * times that go on after its own. For tests and tools in this process; no
   * route reaches it.
   */
  restore(state: SandboxState): void {
    if (!Array.isArray(state?.earnings) || !Array.isArray(state.redemptions) || !Array.isArray(state.conversions)) {
      throw new TypeError('a sandbox state has earnings, redemptions and conversions, each a list');
    }
    this.reset();
    const saved = structuredClone(state);
    // The customer an earning names is the one its last earn sent: replayed in the order they were written.
    for (const earning of [...saved.earnings].sort((a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.id - b.id)) {
      this.#rememberCustomer({ name: earning.name, email: earning.email, mobile: earning.mobile });
    }
    for (const earning of saved.earnings) {
      this.#earnings.push(earning);
      if (earning.orderId === null) continue;
      this.#byActivityOrder.set(`${earning.activityId}\u0000${earning.orderId}`, earning);
      this.#byOrder.set(earning.orderId, [...(this.#byOrder.get(earning.orderId) ?? []), earning]);
    }
    this.#redemptions = saved.redemptions;
    for (const conversion of saved.conversions)
      this.#conversions.set(`${conversion.campaignId}\u0000${conversion.orderId}`, conversion);
    const all = [...saved.earnings, ...saved.redemptions, ...saved.conversions];
    this.#nextId = Math.max(0, ...all.map((each) => each.id)) + 1;
    const times = all
      .flatMap((each) => [each.createdAt, 'updatedAt' in each ? each.updatedAt : each.createdAt])
      .map((time) => Date.parse(time));
    this.#last = Math.max(this.#last, ...times.filter(Number.isFinite));
  }

  reset(): void {
    this.#earnings = [];
    this.#byActivityOrder.clear();
    this.#byOrder.clear();
    this.#redemptions = [];
    this.#conversions.clear();
    this.#customers.clear();
    this.#emailByMobile.clear();
  }

  #rememberCustomer(customer: Customer): void {
    const email = customer.email.toLowerCase();
    const previous = this.#customers.get(email);
    if (previous && previous.mobile !== customer.mobile) this.#emailByMobile.delete(normaliseMobile(previous.mobile));
    this.#customers.set(email, customer);
    this.#emailByMobile.set(normaliseMobile(customer.mobile), email);
  }
}

/** Mobile numbers match on their digits: "+1 (555) 010-0000" and "+15550100000" are one customer. */
export const normaliseMobile = (mobile: string): string => mobile.replace(/[^\d]/g, '');
