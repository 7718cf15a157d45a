// What a customer reads on the store's pages when the storefront cannot do what they asked, each in their words
// (the storefront's answers, customer-answers.ts; the widgets show them as they are).

/** What a customer reads when their points cannot be shown, each in their words. */
export const CUSTOMER_WORDS = {
  notAllowed: 'Your points cannot be shown here yet: the store has to finish setting this up.',
  noContact: 'Your points cannot be shown: your account has no confirmed e-mail address or phone number.',
  unproven: 'Confirm your e-mail address to see and spend your points: we will send you a link.',
  needsEmail: 'Add your e-mail address to your account in this store to see and spend your points here.',
  proveAction: 'Send me the link',
  busy: 'Your points cannot be shown just now. Try again in a moment.',
} as const;

/** What a customer reads when a reward cannot be redeemed, each in their words. */
export const REDEEM_WORDS = {
  noReward: 'This reward is not offered any more. Reload the page to see the rewards there are.',
  short: 'You do not have enough points for this reward yet.',
  busy: 'Your reward cannot be made just now. Try again in a moment: no points were taken.',
  notAllowed: 'Rewards cannot be redeemed here yet: the store has to finish setting this up.',
  failed: 'Your reward could not be made. Try again in a moment: no points were taken.',
  needsEmail: 'Add your e-mail address to your account in this store to spend your points here: no points were taken.',
  tooMany: 'You already have unused reward codes. Use one of them before you redeem another.',
  signIn: 'Sign in to spend your points.',
  tooFast: 'Redeem was pressed many times in a few seconds. Wait a moment, then press it once: no points were taken.',
} as const;
