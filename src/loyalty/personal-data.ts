// What of a customer the service may echo back: the body fields that hold a person, and the scrub that takes
// their values out of the service's words before they reach dead letters and logs.

/** Body fields that hold a person: the e-mail, the phone and the name of a customer, a referee or a referrer. */
const PERSONAL_FIELD =
  /^(lp_(email|mobile|name)|referee_(name|email|mobile)|referrer_(email|mobile|code|unique_code))$/;

/** A text of the service's with every personal value the call sent replaced, wherever and however often it is quoted. */
export function withoutSentPersonalData(text: string, sent: Record<string, unknown>): string {
  const values = Object.entries(sent)
    .filter(([field, value]) => PERSONAL_FIELD.test(field) && typeof value === 'string' && value.trim().length >= 3)
    .map(([, value]) => (value as string).trim())
    .sort((a, b) => b.length - a.length);
  return values.reduce((scrubbed, value) => scrubbed.split(value).join('[customer]'), text);
}
