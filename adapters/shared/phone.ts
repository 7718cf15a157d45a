// Mobile numbers to E.164 with libphonenumber-js, using the order's country
// for numbers written without a country code.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

export function toE164(raw: string | null, country: string | null): string | null {
  if (!raw) return null;
  const region = country && /^[A-Za-z]{2}$/.test(country) ? (country.toUpperCase() as CountryCode) : undefined;
  const parsed = parsePhoneNumberFromString(raw, region);
  // Possible, not valid: a number from a range newer than this library's data is still a number.
  return parsed?.isPossible() ? parsed.number : null;
}
